"""Williams and Fisher tests: ALGORITHMS §9 TV5, scipy, the WMT12 example data, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import spalib
from spalib import data


def test_williams_es_en_amber_vs_bleu():
    res = spalib.williams_test(0.880651168828011, 0.760352368043568, 0.947389661501826, 12)
    assert res.statistic == pytest.approx(2.687027667623706, abs=1e-12)
    assert res.pvalue == pytest.approx(0.012458770664095589, abs=1e-15) and res.df == 9
    two = spalib.williams_test(0.880651168828011, 0.760352368043568, 0.947389661501826, 12, alternative="two-sided")
    assert two.pvalue == pytest.approx(0.024917541328190487, abs=1e-15)
    less = spalib.williams_test(0.880651168828011, 0.760352368043568, 0.947389661501826, 12, alternative="less")
    assert less.pvalue == pytest.approx(1 - res.pvalue)
    # the released R tool's stored output equals the p-value with n - 2 degrees of freedom
    tool = spalib.williams_test(0.880651168828011, 0.760352368043568, 0.947389661501826, 12, df=10)
    assert tool.pvalue == pytest.approx(0.0114079074943561, abs=1e-13)


def test_williams_reference_unit_test():
    gold, m1, m2 = [1, 2, 3, 4, 5], [1.1, 2, 3.1, 4, 5.1], [1.5, 2, 3.1, 4, 5.5]
    r1, r2, r12 = stats.pearsonr(gold, m1)[0], stats.pearsonr(gold, m2)[0], stats.pearsonr(m1, m2)[0]
    assert r1 == pytest.approx(0.9994005394605665) and r2 == pytest.approx(0.9868634624770863)
    # r near 1 makes t sensitive to the last bits of the correlations: agree to 1e-11
    assert spalib.williams_test(r1, r2, r12, 5).pvalue == pytest.approx(0.019073687983160403, abs=1e-11)


def test_williams_matrix_reproduces_the_released_multi_metric_example():
    human, metrics = data.load_wmt12("es-en")
    result = spalib.williams_matrix(human, metrics)
    p = result.pvalues
    assert p.loc["Meteor", "AMBER"] == pytest.approx(0.00429699386694122, abs=1e-14)
    assert p.loc["Meteor", "SAGAN_STS"] == pytest.approx(0.48135002773539914, abs=1e-14)
    assert p.loc["TerrorCat", "Meteor"] == pytest.approx(0.2865976214475016, abs=1e-14)
    assert result.correlations.index[0] == "TerrorCat" and result.correlations.is_monotonic_decreasing
    assert np.isnan(p.loc["AMBER", "Meteor"])  # only the direction higher -> lower is tested


def test_fisher_known_answer_and_symmetry():
    res = spalib.fisher_z_test(0.6, 100, 0.4, 120)
    assert res.statistic == pytest.approx(1.9625822258879462, abs=1e-13)
    assert res.pvalue == pytest.approx(0.024847368836735263, abs=1e-14)
    assert spalib.fisher_z_test(0.4, 120, 0.6, 100).pvalue == pytest.approx(1 - res.pvalue)


def test_williams_is_more_powerful_than_fisher_for_correlated_metrics():
    w = spalib.williams_test(0.9, 0.8, 0.95, 30)
    f = spalib.fisher_z_test(0.9, 30, 0.8, 30)
    assert w.pvalue < f.pvalue


@pytest.mark.parametrize("args, message", [
    ((1.0, 0.5, 0.5, 10), "`r12` must be a correlation strictly between -1 and 1"),
    ((0.5, -1.2, 0.5, 10), "`r13` must be"),
    ((0.5, 0.5, np.nan, 10), "`r23` must be"),
    ((0.5, 0.4, 0.3, 3), "`n` must be an integer greater than 3"),
    ((0.9, -0.9, 0.9, 10), "determinant of their correlation matrix is .*not positive"),
])
def test_williams_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        spalib.williams_test(*args)


def test_other_bad_input():
    with pytest.raises(ValueError, match="`alternative` must be"):
        spalib.williams_test(0.5, 0.4, 0.3, 10, alternative="bigger")
    with pytest.raises(ValueError, match="`n2` must be an integer greater than 3"):
        spalib.fisher_z_test(0.5, 10, 0.4, 2)
    human, metrics = data.load_wmt12("es-en")
    with pytest.raises(ValueError, match="different items"):
        spalib.williams_matrix(human.iloc[1:], metrics)
    with pytest.raises(ValueError, match="at least two metrics"):
        spalib.williams_matrix(human, metrics[["AMBER"]])


def test_williams_rejects_bad_degrees_of_freedom_and_types():
    with pytest.raises(ValueError, match="`df` must be a finite number"):
        spalib.williams_test(0.9, 0.8, 0.85, 12, df=np.nan)
    with pytest.raises(ValueError, match="`n` must be a positive integer"):
        spalib.williams_test(0.9, 0.8, 0.85, "12")
    with pytest.raises(ValueError, match="`r12` must be a correlation"):
        spalib.williams_test(0.9 + 0j, 0.8, 0.85, 12)


def test_williams_matrix_names_the_metric_with_bad_scores():
    human = pd.Series(np.arange(8.0))
    metrics = pd.DataFrame({"good": np.arange(8.0) + 0.1 * np.sin(np.arange(8.0)), "bad": np.arange(8.0) ** 2})
    metrics.loc[3, "bad"] = np.inf
    with pytest.raises(ValueError, match=r"`metrics\['bad'\]` has 1 infinite value"):
        spalib.williams_matrix(human, metrics)
    metrics.loc[3, "bad"] = np.nan
    with pytest.raises(ValueError, match="missing in: bad"):
        spalib.williams_matrix(human, metrics)

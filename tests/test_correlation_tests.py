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
    ((1.0, 0.5, 0.5, 10), r"`r12` must be a finite number in \(-1.0, 1.0\); got 1.0"),
    ((0.5, -1.2, 0.5, 10), "`r13` must be"),
    ((0.5, 0.5, np.nan, 10), "`r23` must be"),
    ((0.5, 0.4, 0.3, 3), r"`n` must be an integer in \[4, 9007199254740992\]; got 3"),
    ((0.9, -0.9, 0.9, 10), "determinant of their correlation matrix is .*not positive"),
])
def test_williams_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        spalib.williams_test(*args)


def test_other_bad_input():
    with pytest.raises(ValueError, match="`alternative` must be"):
        spalib.williams_test(0.5, 0.4, 0.3, 10, alternative="bigger")
    with pytest.raises(ValueError, match=r"`n2` must be an integer in \[4, "):
        spalib.fisher_z_test(0.5, 10, 0.4, 2)
    human, metrics = data.load_wmt12("es-en")
    with pytest.raises(ValueError, match="different items"):
        spalib.williams_matrix(human.iloc[1:], metrics)
    with pytest.raises(ValueError, match="at least two metrics"):
        spalib.williams_matrix(human, metrics[["AMBER"]])


def test_williams_rejects_bad_degrees_of_freedom_and_types():
    with pytest.raises(ValueError, match="`df` must be a finite number"):
        spalib.williams_test(0.9, 0.8, 0.85, 12, df=np.nan)
    with pytest.raises(ValueError, match="`n` must be an integer"):
        spalib.williams_test(0.9, 0.8, 0.85, "12")
    with pytest.raises(ValueError, match="`r12` must be a real number"):
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


def test_every_argument_is_checked_before_any_work():
    # the determinant error would come first if `alternative` and `df` were checked late
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        spalib.williams_test(0.9, -0.9, 0.9, 10, alternative="bigger")
    with pytest.raises(ValueError, match="`df` must be a finite number"):
        spalib.williams_test(0.9, -0.9, 0.9, 10, df=0)
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        spalib.fisher_z_test(0.5, 10, 0.4, 12, alternative=None)
    human, metrics = data.load_wmt12("es-en")
    with pytest.raises(ValueError, match="`df` must be a finite number"):   # before "two metrics"
        spalib.williams_matrix(human, metrics[["AMBER"]], df=-1)
    with pytest.raises(TypeError, match="`absolute` must be True or False"):
        spalib.williams_matrix(human, metrics, absolute="yes")
    with pytest.raises(TypeError, match="`metrics` must be a DataFrame or a dict"):
        spalib.williams_matrix(human, metrics.to_numpy())


def test_williams_matrix_correlation_is_the_correlation_type():
    human, metrics = data.load_wmt12("es-en")
    spearman = spalib.williams_matrix(human, metrics, correlation="spearman")
    for name in metrics.columns:
        assert spearman.correlations[name] == pytest.approx(abs(stats.spearmanr(human, metrics[name])[0]), abs=1e-12)
    with pytest.raises(ValueError, match="`correlation` must be one of 'pearson', 'spearman'"):
        spalib.williams_matrix(human, metrics, correlation="kendall")
    with pytest.raises(TypeError, match="method"):          # `method` is how a p-value is computed
        spalib.williams_matrix(human, metrics, method="spearman")


def test_significant_share_counts_p_equal_to_alpha():
    human, metrics = data.load_wmt12("es-en")
    result = spalib.williams_matrix(human, metrics)
    upper = result.pvalues.to_numpy()[np.triu_indices(len(result.pvalues), 1)]
    at = float(np.sort(upper)[10])                          # a level equal to one of the p-values
    assert result.significant_share(at) == np.mean(upper <= at) > np.mean(upper < at)
    assert result.significant_share(0.05) == np.mean(upper <= 0.05)


def test_williams_matrix_is_scale_invariant_and_refuses_constant_scores():
    human, metrics = data.load_wmt12("es-en")
    result = spalib.williams_matrix(human, metrics)
    for scale in (1e200, 1e-200):
        scaled = spalib.williams_matrix(human * scale, metrics * scale)
        pd.testing.assert_frame_equal(scaled.pvalues, result.pvalues, rtol=1e-12)
    with pytest.raises(ValueError, match=r"`metrics\['AMBER'\]`: constant scores have no correlation"):
        spalib.williams_matrix(human, metrics.assign(AMBER=1.0))
    with pytest.raises(ValueError, match="`human`: constant scores"):
        spalib.williams_matrix(human * 0, metrics)
    with pytest.raises(ValueError, match="at least 4 systems"):
        spalib.williams_matrix(human.iloc[:3], metrics.iloc[:3])


def test_williams_matrix_aligns_by_label_and_accepts_identical_indexes():
    human, metrics = data.load_wmt12("es-en")
    result = spalib.williams_matrix(human, metrics)
    shuffled = spalib.williams_matrix(human, metrics.iloc[::-1])
    pd.testing.assert_frame_equal(shuffled.pvalues, result.pvalues)
    as_dict = spalib.williams_matrix(human, {name: metrics[name] for name in metrics.columns})
    pd.testing.assert_frame_equal(as_dict.pvalues, result.pvalues)
    # a repeated label needs no alignment when both indexes are the same
    repeated = ["x"] + list(human.index[1:])
    same = spalib.williams_matrix(human.set_axis(repeated), metrics.set_axis(repeated))
    pd.testing.assert_frame_equal(same.pvalues, result.pvalues)

"""Bad input to the correlation tests, the rank correlations and the reproduction ledger: one test
per row of the bad-input review (/work/shared/reviews/bad-input.md, "Every failure", rows 19-26
and 45-47), with the review's inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import spalib


@pytest.fixture
def calibration_toy():
    """`h`, `m`: 40 items, `h` integers 0-4 as floats, `m = h` + standard normal noise."""
    rng = np.random.default_rng(0)
    h = rng.integers(0, 5, 40).astype(float)
    return h, h + rng.standard_normal(40)


@pytest.fixture
def pairs_toy():
    """`H3` 6 x 30 integers 0-9; `A = H3` + N(0, 1), `B = H3` + N(0, 3^2)."""
    rng = np.random.default_rng(0)
    h3 = rng.integers(0, 10, (6, 30)).astype(float)
    return h3, h3 + rng.standard_normal((6, 30)), h3 + 3 * rng.standard_normal((6, 30))


@pytest.fixture
def williams_toy():
    """`hum`, 10 systems s0-s9, standard normal; m0-m3 = `hum` + N(0, (0.3(k+1))^2); TER = -`hum` + N(0, 0.5^2)."""
    rng = np.random.default_rng(0)
    hum = pd.Series(rng.standard_normal(10), index=[f"s{i}" for i in range(10)])
    metrics = pd.DataFrame({f"m{k}": hum + rng.normal(0, 0.3 * (k + 1), 10) for k in range(4)})
    metrics["TER"] = -hum + rng.normal(0, 0.5, 10)
    return hum, metrics


def ledger_toy(**row_r):
    """Two rows, `r` (published 0.97, ours 0.9712) and `clusters` (published 5, ours 7, "one
    system more"); ``row_r`` overrides cells of row `r`."""
    rows = pd.DataFrame({"published": ["0.97", "5"], "ours": [0.9712, 7.0],
                         "kind": ["deterministic", "deterministic"], "note": ["", "one system more"]},
                        index=["r", "clusters"])
    for column, value in row_r.items():
        if column not in rows:
            rows[column] = [0.01, 1.0]
        rows[column] = rows[column].astype(object)
        rows.at["r", column] = value
    return rows


def test_row19_tie_calibration_checks_rng_without_sampling(calibration_toy):
    h, m = calibration_toy
    with pytest.raises(TypeError, match="`rng` must be None, an int or a numpy.random.Generator; got 'x'"):
        spalib.tie_calibration(h, m, grouping="none", rng="x")
    with pytest.raises(ValueError, match="`rng` must be a non-negative int seed"):
        spalib.tie_calibration(h, m, grouping="none", rng=-1)
    # a Generator is checked but not advanced when nothing is sampled
    generator = np.random.default_rng(3)
    state = generator.bit_generator.state
    res = spalib.tie_calibration(h, m, grouping="none", rng=generator)
    assert generator.bit_generator.state == state
    assert res.epsilon == pytest.approx(0.5519601115587891) and res.statistic == pytest.approx(0.7615384615384615)


def test_row20_pairs_test_names_epsilon1(pairs_toy):
    h3, a, b = pairs_toy
    with pytest.raises(ValueError, match=r"`epsilon1` must be a finite number in \[0.0, inf\]; got -1.0"):
        spalib.pairs_permutation_test(h3, a, b, epsilon1=-1.0, epsilon2=0.0, rng=1)
    with pytest.raises(ValueError, match=r"`epsilon2` must be a finite number in \[0.0, inf\]; got -1.0"):
        spalib.pairs_permutation_test(h3, a, b, epsilon1=0.0, epsilon2=-1.0, rng=1)
    # `sample_rate` is checked even when both thresholds are given (it then goes unused)
    with pytest.raises(ValueError, match=r"`sample_rate` must be a finite number in \(0.0, 1.0\]"):
        spalib.pairs_permutation_test(h3, a, b, epsilon1=0.0, epsilon2=0.0, sample_rate=5, rng=1)


def test_row21_pairs_test_names_a_non_numeric_epsilon(pairs_toy):
    h3, a, b = pairs_toy
    with pytest.raises(ValueError, match="`epsilon1` must be a real number; got 'x'"):
        spalib.pairs_permutation_test(h3, a, b, epsilon1="x", epsilon2=0.0, rng=1)
    with pytest.raises(ValueError, match="`epsilon2` must be a real number; got 'x'"):
        spalib.pairs_permutation_test(h3, a, b, epsilon1=0.0, epsilon2="x", rng=1)
    with pytest.raises(ValueError, match="`metric2` has 1 infinite value"):
        spalib.pairs_permutation_test(h3, a, np.where(b == b.max(), np.inf, b), epsilon1=0.0, epsilon2=0.0)


def test_row22_williams_test_refuses_an_n_beyond_float():
    with pytest.raises(ValueError, match=r"`n` must be an integer in \[4, 9007199254740992\]; got 1000"):
        spalib.williams_test(0.5, 0.4, 0.3, 10**400)
    with pytest.raises(ValueError, match=r"`n2` must be an integer in \[4, "):
        spalib.fisher_z_test(0.5, 10, 0.4, 10**400)
    # the largest n accepted still gives a p-value in [0, 1]
    assert 0 <= spalib.williams_test(0.5, 0.4, 0.3, 2**53).pvalue <= 1


def test_row23_williams_matrix_names_duplicate_labels(williams_toy):
    hum, metrics = williams_toy
    human = pd.Series(hum.to_numpy(), index=list("aabcdefghi"))
    reordered = metrics.set_axis(list("abacdefghi"))
    with pytest.raises(ValueError, match=r"`human index` has duplicate labels: \['a'\]"):
        spalib.williams_matrix(human, reordered)
    with pytest.raises(ValueError, match=r"`metrics index` has duplicate labels: \['a'\]"):
        spalib.williams_matrix(hum.set_axis(list("abcdefghij")), reordered)


def test_row24_williams_matrix_names_a_two_dimensional_human(williams_toy):
    _, metrics = williams_toy
    with pytest.raises(ValueError, match=r"`human` must have 1 dimension\(s\); got shape \(10, 5\)"):
        spalib.williams_matrix(metrics.to_numpy(), metrics)
    with pytest.raises(ValueError, match=r"`metrics\['m0'\]` must have 1 dimension\(s\)"):
        spalib.williams_matrix(np.arange(10.0), {"m0": metrics.to_numpy(), "m1": np.arange(10.0)})


def test_row25_significant_share_refuses_alpha_outside_0_1(williams_toy):
    result = spalib.williams_matrix(*williams_toy)
    for alpha in (1.5, 0.0, 1.0, -0.1, np.nan):
        with pytest.raises(ValueError, match=r"`alpha` must be a finite number in \(0.0, 1.0\)"):
            result.significant_share(alpha)
    upper = result.pvalues.to_numpy()[np.triu_indices(5, 1)]
    assert result.significant_share(0.05) == np.mean(upper <= 0.05)


def test_row26_significant_share_refuses_a_string_alpha(williams_toy):
    result = spalib.williams_matrix(*williams_toy)
    with pytest.raises(ValueError, match="`alpha` must be a real number; got '0.05'"):
        result.significant_share("0.05")


def test_row45_ledger_refuses_a_typo_in_ours():
    # after the ledger's rewrite "0.97x" gave "no value of ours" (the wrong cause), and a row of
    # kind "not in the data" took it silently for a missing value
    with pytest.raises(ValueError, match=r"`ours\['r'\]` must be a real number; got '0.97x'"):
        spalib.reproduction_ledger(ledger_toy(ours="0.97x"))
    with pytest.raises(ValueError, match=r"`ours\['r'\]` must be a real number; got '0.97x'"):
        spalib.reproduction_ledger(ledger_toy(ours="0.97x", kind="not in the data", note="absent"))
    assert spalib.reproduction_ledger(ledger_toy())["status"].tolist() == ["match", "differs: one system more"]


def test_row46_ledger_refuses_a_typo_in_the_rounding():
    # the review's `tolerance` column is gone: a ledger's tolerance now follows from the published
    # number's rounding unit (read from the printed string, or a `rounding` column)
    with pytest.raises(ValueError, match=r"`rounding\['r'\]` must be a real number; got 'abc'"):
        spalib.reproduction_ledger(ledger_toy(rounding="abc"))
    with pytest.raises(ValueError, match="not a plain decimal"):
        spalib.reproduction_ledger(ledger_toy(published="0.9x7"))


def test_row47_ledger_refuses_an_infinite_published_number():
    with pytest.raises(ValueError, match="'inf' is not a plain decimal number"):
        spalib.reproduction_ledger(ledger_toy(published="inf"))
    with pytest.raises(ValueError, match=r"`published\['r'\]` must be a finite number"):
        spalib.reproduction_ledger(ledger_toy(published=np.inf, rounding=0.01))
    with pytest.raises(ValueError, match=r"`ours\['r'\]` must be a finite number"):
        spalib.reproduction_ledger(ledger_toy(ours=np.inf))


def test_p43_normal_pvalues_of_tiny_differences_beside_a_large_score_are_those_of_the_rows_alone():
    """bad-input p_resampling#43: rows of about 1e-170 beside a row of about 1 had their squared
    differences underflow (p = 1.0); each such pair is now summed again, exactly rescaled."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 30))
    x[0] += 1.0
    x[1:] *= 1e-170
    upper = np.triu_indices(3, 1)
    together = spalib.pairwise_pvalues(x, method="normal")[1:, 1:][upper]
    alone = spalib.pairwise_pvalues(x[1:], method="normal")[upper]
    np.testing.assert_allclose(together, alone, rtol=1e-12)
    np.testing.assert_allclose(together, [0.339, 0.158, 0.218], atol=5e-4)   # the review's values
    assert spalib.pairwise_pvalues(np.vstack([x[:1], x[1:2], x[1:2]]), method="normal")[1, 2] == 1.0  # identical

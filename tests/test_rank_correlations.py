"""Kendall variants and tie calibration: ALGORITHMS §9 TV4, scipy, invariants, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from spalib import kendall_tau, pairs_permutation_test, tie_calibration
from spalib._core.rank_kernels import C, D, TH, THM, TM, _calibration_pairs, _sorted_by_difference


def counts(res):
    return res.concordant, res.discordant, res.ties_human, res.ties_metric, res.ties_both


def test_tv4_small_vector():
    h, m = [1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3]
    assert kendall_tau(h, m, variant="b").statistic == pytest.approx(0.31622776601683794)
    assert kendall_tau(h, m, variant="c").statistic == pytest.approx(0.32)
    assert kendall_tau(h, m, variant="tau_eq").statistic == pytest.approx(0.2)
    assert kendall_tau(h, m, variant="acc_eq").statistic == pytest.approx(0.6)
    assert kendall_tau(h, m, variant="acc23", epsilon=2).statistic == pytest.approx(0.4)


def test_tv4_pair_counts_with_and_without_epsilon():
    h, m = [1, 1, 1, 2, 2, 3, 4], [1, 1, 2, 2, 4, 3, 3]
    res = kendall_tau(h, m, variant="tau_eq")
    assert counts(res) == (13, 2, 3, 2, 1)
    assert res.statistic == pytest.approx(7 / 21)
    assert kendall_tau(h, m, variant="acc_eq").statistic == pytest.approx(14 / 21)
    res = kendall_tau(h, m, variant="tau_eq", epsilon=1)
    assert counts(res) == (7, 0, 1, 10, 3)
    assert res.statistic == pytest.approx(-1 / 21)
    assert kendall_tau(h, m, variant="acc_eq", epsilon=1).statistic == pytest.approx(10 / 21)


def test_tv4_all_variants():
    h, m = [0, 0, -1, -1, -5, -25], [0.9, 0.9, 0.8, 0.7, 0.7, 0.1]
    expected = {"a": 0.8, "b": 12 / 13, "c": 0.8888888888888888, "10": 11 / 13, "13": 1.0, "14": 12 / 13,
                "acc_eq": 13 / 15, "tau_eq": 11 / 15}
    assert counts(kendall_tau(h, m, variant="a")) == (12, 0, 1, 1, 1)
    for variant, value in expected.items():
        assert kendall_tau(h, m, variant=variant).statistic == pytest.approx(value), variant


def test_tv4_calibration():
    res = tie_calibration([1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3], grouping="none")
    np.testing.assert_allclose(res.epsilons, [0, 0.5, 1, 1.5, 2, 3, 3.5, 4])
    np.testing.assert_allclose(res.values, [0.6, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1])
    assert res.epsilon == 0.5 and res.statistic == pytest.approx(0.7)
    tau = tie_calibration([1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3], grouping="none", variant="tau_eq")
    np.testing.assert_allclose(tau.values, [0.2, 0.4, 0.2, 0, -0.2, -0.4, -0.6, -0.8], atol=1e-12)
    assert tau.epsilon == 0.5
    res = tie_calibration([0, 0, -1, -1, -5, -25], [0.9, 0.9, 0.8, 0.7, 0.7, 0.1], grouping="none")
    assert res.epsilon == 0 and res.statistic == pytest.approx(13 / 15)
    assert {0.09999999999999998, 0.10000000000000009} <= set(res.epsilons.tolist())


def test_tv4_calibration_with_grouping():
    h, m = [1, 2, 2, 3, 3, 4], [2, 1, 1.5, 5, 3, 2]
    none = tie_calibration(h, m, grouping="none")
    assert none.epsilon == 0 and none.statistic == pytest.approx(0.5333333333333333)
    two_systems_h, two_systems_m = np.reshape(h, (2, 3)), np.reshape(m, (2, 3))
    sys_ = tie_calibration(two_systems_h, two_systems_m, grouping="system")
    assert sys_.epsilon == 2.0 and sys_.statistic == pytest.approx(1 / 3)
    item = tie_calibration(two_systems_h, two_systems_m, grouping="item")
    assert item.epsilon == 0 and item.statistic == pytest.approx(1.0)


def test_reference_tau_optimization_cases():
    res = tie_calibration([1, 2, 3, 4], [0, 2, 6, 8], grouping="none")
    np.testing.assert_allclose(res.epsilons, [0, 2, 4, 6, 8])
    np.testing.assert_allclose(res.values, [1, 4 / 6, 3 / 6, 1 / 6, 0])
    res = tie_calibration([1, 1, 1, 4], [0, 2, 6, 8], grouping="none")
    np.testing.assert_allclose(res.values, [3 / 6, 3 / 6, 4 / 6, 4 / 6, 3 / 6])
    assert res.epsilon == 4 and res.statistic == pytest.approx(4 / 6)
    nan = np.nan
    metric = np.array([[0, 5, 2, 3, 2], [nan, 2, 1, 5, 3], [9, 1, 5, 3, 8], [9, 3, 4, 4, 1], [nan] * 5])
    human = np.array([[1, 5, 2, 1, 1], [4, 2, 2, 1, 4], [5, 9, 2, 8, 7], [7, 6, nan, 3, 2], [nan] * 5])
    res = tie_calibration(human, metric, grouping="system")  # rows are the groups
    np.testing.assert_allclose(res.epsilons, np.arange(9))
    np.testing.assert_allclose(res.values, [0.4666666666666667, 0.4916666666666668, 0.38333333333333347,
                                            0.29166666666666674, 0.2666666666666667, 0.2, 0.15833333333333335,
                                            0.15833333333333335, 0.1166666666666667], atol=1e-12)
    assert res.epsilon == 1


def test_kendall_like():
    assert kendall_tau([10, 11, 100, 150], [2, 1, 4, 3], variant="kendall_like").statistic == pytest.approx(0.6)
    res = kendall_tau([10, 11, 100, 150], [2, 1, 4, 3], variant="kendall_like", threshold=1)
    assert res.statistic == pytest.approx(1 / 3) and (res.concordant, res.discordant) == (4, 2)
    res = kendall_tau([10, np.nan, 100, 150], [2, 1, 4, 3], variant="kendall_like", threshold=1)
    assert res.statistic == pytest.approx(1 / 3)


def test_grouping_averages_groups_and_skips_undefined_ones():
    gold = np.array([1, 2, 3, 4, 5, 6.0]).reshape(2, 3)
    metric = np.array([2, 1, 4, 3, 3, 7.0]).reshape(2, 3)
    assert kendall_tau(gold, metric, variant="b", grouping="none").statistic == pytest.approx(0.5520524474738833)
    assert kendall_tau(gold, metric, variant="b", grouping="system").statistic == pytest.approx(0.5749149571305296)
    assert kendall_tau(gold, metric, variant="b", grouping="item").statistic == pytest.approx(1.0)
    assert kendall_tau(gold, metric, variant="c", grouping="system").statistic == pytest.approx(0.611111111111111)
    flat = np.array([[2, 2, 2], [4, 5, 6.0]])
    res = kendall_tau(gold, flat, variant="b", grouping="system")
    assert res.statistic == 1.0 and res.n_groups == 1 and np.isnan(res.group_statistics[0])


samples = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=40)


@settings(max_examples=60, deadline=None)
@given(samples)
def test_b_and_c_agree_with_scipy_and_counts_add_up(pairs):
    h, m = np.array(pairs, dtype=float).T
    res = kendall_tau(h, m, variant="b")
    n = len(h)
    assert sum(counts(res)) == n * (n - 1) // 2
    slow = kendall_tau(h, m, variant="a", epsilon=0.5)  # integer scores: epsilon 0.5 = exact ties
    assert counts(slow) == counts(res)
    expected_b = stats.kendalltau(h, m, variant="b").statistic
    expected_c = stats.kendalltau(h, m, variant="c").statistic
    if np.isnan(expected_b):
        assert np.isnan(res.statistic)
    else:
        assert res.statistic == pytest.approx(expected_b)
        assert kendall_tau(h, m, variant="c").statistic == pytest.approx(expected_c)


@settings(max_examples=40, deadline=None)
@given(samples)
def test_calibration_curve_matches_direct_computation(pairs):
    h, m = np.array(pairs, dtype=float).T
    m = m * 0.5 + np.arange(len(m)) * 1e-3  # distinct differences, some close
    res = tie_calibration(h, m, grouping="none")
    for eps, value in zip(res.epsilons, res.values):
        assert kendall_tau(h, m, variant="acc_eq", epsilon=eps).statistic == pytest.approx(value, abs=1e-9)
    assert res.statistic == pytest.approx(res.values.max(), abs=1e-12)


def test_dataframes_are_aligned_by_labels():
    h = pd.DataFrame([[1, 2, 3], [3, 2, 1.0]], index=["a", "b"])
    m = pd.DataFrame([[3, 1, 2], [1, 2, 3.0]], index=["b", "a"])
    assert kendall_tau(h, m, variant="acc_eq", grouping="item").statistic == pytest.approx(
        kendall_tau(h.to_numpy(), m.loc[["a", "b"]].to_numpy(), variant="acc_eq", grouping="item").statistic)
    with pytest.raises(ValueError, match="different systems or segments"):
        kendall_tau(h, m.rename(index={"a": "c"}), variant="acc_eq")


@pytest.mark.parametrize("kwargs, message", [
    (dict(variant="tau"), "`variant` must be one of"),
    (dict(variant="c", epsilon=1), "variant 'c' is defined for exact ties only"),
    (dict(variant="b", epsilon=-1), r"`epsilon` must be a finite number in \[0.0, inf\]"),
    (dict(variant="kendall_like", threshold=np.nan), "`threshold` must be a finite number"),
    (dict(variant="b", grouping="segment"), "`grouping` must be"),
    (dict(variant="b", grouping="item"), "needs a systems x segments matrix"),
])
def test_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        kendall_tau([1, 2, 3], [1, 3, 2], **kwargs)


def test_bad_calibration_input():
    with pytest.raises(ValueError, match="optimises 'acc_eq' or 'tau_eq'"):
        tie_calibration([1, 2, 3], [1, 3, 2], variant="b", grouping="none")
    with pytest.raises(ValueError, match=r"`sample_rate` must be a finite number in \(0.0, 1.0\]"):
        tie_calibration([1, 2, 3], [1, 3, 2], grouping="none", sample_rate=0)
    with pytest.raises(ValueError, match="missing score"):
        kendall_tau([1, 2, 3], [1, np.nan, 2], variant="b")


TV6_GOLD = np.reshape([1, 3, 3, 3, 1, 2, 1, 2], (4, 2)).astype(float)  # 4 systems x 2 items, system-major
TV6_M1 = np.reshape([2, 4, 6, 6, 2, 6, 3, 7], (4, 2)).astype(float)
TV6_M2 = np.reshape([1, 5, 4, 4, 4, 3, 2, 1], (4, 2)).astype(float)


def brute_force_pairs_test(gold, better, worse, eps_better, eps_worse, tolerance):
    """Every swap pattern of the pairwise verdicts, item grouping, acc_eq."""
    def verdicts(x, eps):
        return np.array([0.0 if abs(x[i, g] - x[j, g]) <= eps else np.sign(x[i, g] - x[j, g])
                         for g in range(x.shape[1]) for i, j in itertools.combinations(range(x.shape[0]), 2)])

    human, v1, v2 = verdicts(gold, 0), verdicts(better, eps_better), verdicts(worse, eps_worse)
    per_group = len(human) // gold.shape[1]

    def acc(v):
        return np.average([np.sum(v[g * per_group:(g + 1) * per_group] == human[g * per_group:(g + 1) * per_group])
                           / per_group for g in range(gold.shape[1])])

    delta = acc(v1) - acc(v2)
    hits = [acc(np.where(w, v1, v2)) - acc(np.where(w, v2, v1)) >= delta - tolerance
            for w in itertools.product([0, 1], repeat=len(human))]
    return float(np.mean(hits))


def test_pairs_permutation_test_tv6_and_the_references_float_quirk():
    # mt-metrics-eval's p is for its *second* metric (m2) being better: here m2 is metric 1
    exact = pairs_permutation_test(TV6_GOLD, TV6_M2, TV6_M1, method="exact")
    assert (exact.epsilon1, exact.epsilon2) == (1.0, 2.0)
    assert exact.statistic1 == pytest.approx(0.5833333333333333) and exact.statistic2 == pytest.approx(2 / 3)
    assert exact.delta == pytest.approx(-1 / 12)
    assert exact.pvalue == brute_force_pairs_test(TV6_GOLD, TV6_M2, TV6_M1, 1.0, 2.0, tolerance=1e-12) == 0.7734375
    # The reference reports p = 0.635 (1,000 draws, seed 0).  27% of all swap patterns give a margin
    # exactly equal to the observed one, and its float comparison c2 - c1 >= delta drops those whose
    # rounding falls below: enumerating with exact float comparisons gives 0.6328, the reference's
    # value within Monte-Carlo error.  spalib counts such ties, as `>=` intends.
    ref_style = brute_force_pairs_test(TV6_GOLD, TV6_M2, TV6_M1, 1.0, 2.0, tolerance=0.0)
    assert ref_style == 0.6328125 and abs(ref_style - 0.635) < 3 * np.sqrt(0.635 * 0.365 / 1000)
    mc = pairs_permutation_test(TV6_GOLD, TV6_M2, TV6_M1, n_resamples=20_000, rng=np.random.default_rng(0))
    assert mc.pvalue == pytest.approx(exact.pvalue, abs=0.015)


def test_pairs_test_equals_brute_force_on_random_data():
    rng = np.random.default_rng(5)
    h = rng.integers(0, 3, size=(3, 3)).astype(float)
    m1 = h + rng.normal(scale=0.8, size=h.shape)
    m2 = rng.normal(size=h.shape)
    res = pairs_permutation_test(h, m1, m2, epsilon1=0.3, epsilon2=0.2, method="exact")
    assert res.pvalue == brute_force_pairs_test(h, m1, m2, 0.3, 0.2, tolerance=1e-12)
    assert res.delta == pytest.approx(kendall_tau(h, m1, variant="acc_eq", epsilon=0.3, grouping="item").statistic
                                      - kendall_tau(h, m2, variant="acc_eq", epsilon=0.2, grouping="item").statistic)
    with pytest.raises(ValueError, match="supports 'acc_eq' and 'tau_eq'"):
        pairs_permutation_test(h, m1, m2, variant="b")


def test_kendall_like_without_a_pair_above_the_threshold_is_nan():
    assert np.isnan(kendall_tau([10, 11, 12], [1, 2, 3], variant="kendall_like", threshold=25).statistic)


@pytest.mark.parametrize("human, metric, error, message", [
    ([1, 2, np.inf], [1, 2, 3], ValueError, "infinite value"),
    ([1, 2, 3], [1, 2, -np.inf], ValueError, "infinite value"),
    ([1, 2, 3], [1 + 1j, 2, 3], TypeError, "real numbers"),
    (pd.Series([1.0, 2.0], index=["a", "a"]), pd.Series([1.0, 2.0], index=["a", "b"]), ValueError, "duplicate labels"),
    (pd.Series([1.0, 2.0], index=[1, "b"]), pd.Series([1.0, 2.0], index=[1, "b"]), ValueError, "mixes label types"),
])
def test_scores_and_labels_are_checked(human, metric, error, message):
    with pytest.raises(error, match=message):
        kendall_tau(human, metric, variant="b")


def test_sampled_calibration_stores_only_the_sample():
    # 40,000 items ungrouped are 8e8 pairs: the sample is drawn before any pair is stored
    rng = np.random.default_rng(0)
    h, m = rng.integers(0, 5, 40_000).astype(float), rng.random(40_000)
    res = tie_calibration(h, m, grouping="none", sample_rate=0.0005, rng=1)
    assert res.n_pairs == pytest.approx(0.0005 * 40_000 * 39_999 / 2, rel=0.01)
    again = tie_calibration(h, m, grouping="none", sample_rate=0.0005, rng=1)
    assert again.epsilon == res.epsilon and again.n_pairs == res.n_pairs


def test_pairs_test_rejects_the_normal_method():
    h = np.arange(12.0).reshape(3, 4)
    with pytest.raises(ValueError, match="`method` must be one of 'permutation', 'exact'"):
        pairs_permutation_test(h, h, h + 1, method="normal")


def test_every_argument_is_checked_first_on_every_path():
    h = np.arange(12.0).reshape(3, 4)
    # `grouping` before the data (here too short for any group) and on every variant
    with pytest.raises(ValueError, match="`grouping` must be one of 'none', 'item', 'system'; got None"):
        kendall_tau([1.0], [1.0], variant="acc_eq", grouping=None)
    with pytest.raises(ValueError, match="`grouping` must be one of"):
        tie_calibration(h, h, grouping="segment")
    # `rng` and `sample_rate` although no pair is sampled / no threshold is calibrated
    with pytest.raises(TypeError, match="`rng` must be None, an int or a numpy.random.Generator"):
        tie_calibration(h, h, rng=1.5)
    with pytest.raises(ValueError, match=r"`sample_rate` must be a finite number in \(0.0, 1.0\]"):
        pairs_permutation_test(h, h, h + 1, epsilon1=0.0, epsilon2=0.0, sample_rate=0.0)
    with pytest.raises(ValueError, match="`n_resamples` must be a positive integer"):
        pairs_permutation_test(h, h, h + 1, method="exact", n_resamples=0)
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        pairs_permutation_test(h, h, h + 1, epsilon1=0.0, epsilon2=0.0, alternative="less")
    with pytest.raises(ValueError, match=r"`epsilon2` must be a finite number in \[0.0, inf\]; got inf"):
        pairs_permutation_test(h, h, h + 1, epsilon1=0.0, epsilon2=np.inf)
    # the errors name the metric they are about
    with pytest.raises(ValueError, match="`human` and `metric2` must have the same shape"):
        pairs_permutation_test(h, h, h[:, :3])
    with pytest.raises(ValueError, match="`human` and `metric1` cover different systems or segments"):
        frame = pd.DataFrame(h)
        pairs_permutation_test(frame, frame.rename(index={0: 9}), frame)


def test_given_thresholds_equal_the_calibrated_ones():
    rng = np.random.default_rng(2)
    h = rng.integers(0, 4, size=(5, 8)).astype(float)
    m1, m2 = h + rng.normal(size=h.shape), rng.normal(size=h.shape)
    calibrated = pairs_permutation_test(h, m1, m2, n_resamples=300, rng=1)
    given = pairs_permutation_test(h, m1, m2, epsilon1=calibrated.epsilon1, epsilon2=calibrated.epsilon2,
                                   n_resamples=300, rng=1)
    assert (given.epsilon1, given.epsilon2) == (tie_calibration(h, m1).epsilon, tie_calibration(h, m2).epsilon)
    assert given.pvalue == calibrated.pvalue and given.delta == calibrated.delta


@pytest.mark.parametrize("values", [
    np.abs(np.random.default_rng(1).normal(size=20_000)).round(3),   # many ties
    np.abs(np.random.default_rng(2).normal(size=5_000)),              # no ties
    np.random.default_rng(3).integers(0, 3, 10_000).astype(float),   # few distinct values
    np.array([0.0, 1e-300, 5e-324, np.inf, 2.0, 0.0, 5e-324]),       # extremes, subnormals
    np.zeros(4), np.empty(0)])
def test_calibration_sorts_its_differences_stably(values):
    # the curve's running sum depends on the order of equal differences: it must be the stable one
    order = np.argsort(values, kind="stable")
    keys, payload = _sorted_by_difference(values.copy(), np.arange(len(values)))
    assert np.array_equal(payload, order) and np.array_equal(keys, values[order])


@pytest.mark.parametrize("capacity", [0, 1, 7, 10**4])
def test_calibration_pairs_do_not_depend_on_the_first_guess_of_their_number(capacity):
    rng = np.random.default_rng(4)
    h, m = rng.integers(0, 3, 40).astype(float), rng.normal(size=40).round(1)   # ties in both
    starts = np.array([0, 15, 15, 40])   # three groups, one empty
    def pair_class(dh, dm):   # with exact ties, and when the metric calls the pair a tie
        if dh == 0:
            return (THM if dm == 0 else TH), THM
        return (TM if dm == 0 else (C if (dh > 0) == (dm > 0) else D)), TM

    every = [(abs(m[i] - m[j]), g << 6 | base << 3 | tied)
             for g, (lo, hi) in enumerate(zip(starts, starts[1:])) for i in range(lo, hi)
             for j in range(i + 1, hi) for base, tied in [pair_class(h[i] - h[j], m[i] - m[j])]]
    delta, code = _calibration_pairs(h, m, starts, np.uint64(9), 1.0, capacity)
    assert list(zip(delta, code)) == every   # all pairs, in enumeration order
    assert {c >> 3 & 7 for _, c in every} == {C, D, TH, TM, THM}
    sample = list(zip(*_calibration_pairs(h, m, starts, np.uint64(9), 0.3, capacity)))
    assert sample == list(zip(*_calibration_pairs(h, m, starts, np.uint64(9), 0.3, 10**4)))
    kept = iter(zip(delta, code))
    assert 0 < len(sample) < len(every) and all(pair in kept for pair in sample)  # a subsequence

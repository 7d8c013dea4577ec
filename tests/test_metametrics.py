"""Pairwise accuracy, SPA, PERM-BOTH and significance clusters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import spalib
from spalib import data
from spalib._core import meta, perm_both, signs as sign_kernels
from spalib.metametrics import significance_ranks
from spalib.resampling import draw_signs, pairwise_pvalues


def test_pairwise_accuracy_known_answer():
    assert spalib.pairwise_accuracy([1, 2, 3, 3, 4], [1, 1, 2, 1, 2]) == 0.5


def test_pairwise_accuracy_aligns_series_by_system_and_skips_missing_humans():
    human = pd.Series({"a": 1.0, "b": 2.0, "c": 3.0, "d": np.nan})
    metric = pd.Series({"d": 0.0, "c": 0.3, "a": 0.1, "b": 0.2})
    assert spalib.pairwise_accuracy(human, metric) == 1.0
    with pytest.raises(ValueError, match=r"the metric lacks \['d'\], has extra \['e'\]"):
        spalib.pairwise_accuracy(human, metric.rename({"d": "e"}))
    with pytest.raises(TypeError, match="both as pandas Series"):
        spalib.pairwise_accuracy(human, metric.to_numpy())
    with pytest.raises(ValueError, match="missing system score"):
        spalib.pairwise_accuracy(human, metric.replace(0.0, np.nan))


def frame(values, systems=("s1", "s2", "s3")):
    return pd.DataFrame(values, index=list(systems))


def test_spa_aligns_frames_by_system_name():
    rng = np.random.default_rng(0)
    h, m = frame(rng.random((3, 10))), frame(rng.random((3, 10)))
    base = spalib.soft_pairwise_accuracy(h, m, rng=4, signs="mtme").statistic
    assert spalib.soft_pairwise_accuracy(h.iloc[[2, 0, 1]], m.iloc[[1, 2, 0]], rng=4, signs="mtme").statistic == base
    with pytest.raises(ValueError, match="different systems"):
        spalib.soft_pairwise_accuracy(h, m.rename(index={"s3": "s4"}))
    with pytest.raises(ValueError, match="different segments"):
        spalib.soft_pairwise_accuracy(h, m.iloc[:, 1:])
    with pytest.raises(ValueError, match="missing value"):
        spalib.soft_pairwise_accuracy(h, m.where(m > 0.1))


def test_perfect_metric_has_spa_one_and_pa_is_rounded_spa():
    h = np.random.default_rng(1).normal(size=(6, 40)) + np.arange(6)[:, None] * 0.3
    assert spalib.soft_pairwise_accuracy(h, h * 2 + 1, signs=draw_signs(1000, 40, rng=4, signs="mtme").as_bits()).statistic == 1.0
    m = h + np.random.default_rng(2).normal(scale=2, size=h.shape)
    upper = np.triu_indices(6, 1)
    ph = pairwise_pvalues(h, method="normal")[upper]
    pm = pairwise_pvalues(m, method="normal")[upper]
    # eq. 3: PA is SPA with each p-value rounded at 0.5
    pa = 1 - np.mean(np.abs((ph >= 0.5).astype(float) - (pm >= 0.5)))
    assert pa == spalib.pairwise_accuracy(h.mean(axis=1), m.mean(axis=1))


def test_significance_ranks_known_answer():
    p = np.full((5, 5), np.nan)
    p[0, 1:] = [0.30, 0.01, 0.001, 0.0]
    p[1, 2:] = [0.20, 0.04, 0.0]
    p[2, 3:] = [0.5, 0.03]
    p[3, 4] = 0.06
    assert significance_ranks(p).tolist() == [1, 1, 2, 2, 3]
    assert significance_ranks(p, alpha=0.001).tolist() == [1, 1, 1, 2, 2]  # p[0, 3] = 0.001 <= alpha
    with pytest.raises(ValueError, match="square"):
        significance_ranks(p[:2])


def hybrid(a, b, swap):
    a2, b2 = a.copy(), b.copy()
    bits = np.unpackbits(swap, axis=1, bitorder="little")[:, : a.shape[1]].astype(bool)
    a2[bits], b2[bits] = b[bits], a[bits]
    return a2, b2


@pytest.mark.parametrize("n_segments", [8, 13])
def test_perm_both_kernels_equal_recomputing_each_hybrid(n_segments):
    rng = np.random.default_rng(n_segments)
    human, a, b = rng.normal(size=(3, 5, n_segments))
    a, b = np.round(a, 1), np.round(b, 1)  # ties between systems happen
    signs = draw_signs(300, n_segments, rng=4, signs="mtme").as_bits()
    upper = np.triu_indices(5, 1)
    ph = pairwise_pvalues(human, signs=signs)[upper]
    masks = rng.integers(0, 256, size=(6, 5, (n_segments + 7) // 8), dtype=np.uint8)
    sums = [(sign_kernels._signed_sums(t, signs.packed), sign_kernels._observed_sums(t))
            for t in (sign_kernels._byte_tables(a), sign_kernels._byte_tables(b))]
    tol = 1e-11 * max(np.abs(a).sum(axis=1).max(), np.abs(b).sum(axis=1).max())
    bits = sign_kernels._unpack_bits(signs.packed, 8 * masks.shape[2]).astype(np.float32)  # as for WMT data
    inputs = perm_both.spa_pair_inputs(*sums, b - a, 8 * signs.packed.shape[1])
    fast_a, fast_b = perm_both._perm_both_spa_permutation(*sums[0], *sums[1], *inputs,
                                                          masks, bits, signs.packed, ph, False, tol)
    normal_a, normal_b = perm_both._perm_both_spa_normal(a, b, masks, pairwise_pvalues(human, method="normal")[upper], False)
    pa_a, pa_b = perm_both._perm_both_pa(a.sum(axis=1), b.sum(axis=1), perm_both._subset_sums(b - a), masks,
                                        human.mean(axis=1), tol)
    for t, swap in enumerate(masks):
        a2, b2 = hybrid(a, b, swap)
        for x, fast, norm, pa in ((a2, fast_a, normal_a, pa_a), (b2, fast_b, normal_b, pa_b)):
            slow = 1 - np.mean(np.abs(ph - pairwise_pvalues(x, signs=signs)[upper]))
            assert fast[t] == pytest.approx(slow, abs=1e-12)
            hn = pairwise_pvalues(human, method="normal")[upper]
            assert norm[t] == pytest.approx(1 - np.mean(np.abs(hn - pairwise_pvalues(x, method="normal")[upper])))
            # rounding the means makes mathematically tied systems tie in floating point too
            assert pa[t] == spalib.pairwise_accuracy(human.mean(axis=1), np.round(x.mean(axis=1), 12))


def certified_and_from_scratch(human, a, b, n_patterns, n_draws, seed):
    """The PERM-BOTH SPA kernel's draws (both hybrids) and the same from each hybrid's p-values
    recomputed from scratch, with the product in the dtype spalib picks for this many segments.
    """
    rng = np.random.default_rng(seed)
    n_systems, n_segments = a.shape
    signs = draw_signs(n_patterns, n_segments, rng=seed, signs="mtme").as_bits()
    upper = np.triu_indices(n_systems, 1)
    ph = pairwise_pvalues(human, signs=signs)[upper]
    masks = rng.integers(0, 256, size=(n_draws, n_systems, (n_segments + 7) // 8), dtype=np.uint8)
    sums = [(sign_kernels._signed_sums(t, signs.packed), sign_kernels._observed_sums(t))
            for t in (sign_kernels._byte_tables(a), sign_kernels._byte_tables(b))]
    tol = 1e-11 * max(np.abs(a).sum(axis=1).max(), np.abs(b).sum(axis=1).max())
    inputs = perm_both.spa_pair_inputs(*sums, b - a, 8 * signs.packed.shape[1])
    n_cells = inputs[1].shape[1]
    bits = sign_kernels._unpack_bits(signs.packed, n_cells).astype(perm_both.product_dtype(n_cells))
    certified = perm_both._perm_both_spa_permutation(*sums[0], *sums[1], *inputs, masks, bits, signs.packed, ph,
                                                     False, tol)
    slow = [[1 - np.mean(np.abs(ph - pairwise_pvalues(x, signs=signs)[upper])) for x in hybrid(a, b, swap)]
            for swap in masks]
    return np.transpose(certified), np.array(slow), (sums, inputs, masks, bits, signs, ph, tol)


def same_spa(x, y):
    """Equal up to the order of SPA's final mean: one changed decision moves SPA by 1 / (K pairs)."""
    return np.allclose(x, y, rtol=0, atol=1e-12)


def test_perm_both_spa_decides_in_float64_what_float32_cannot():
    """Scores on a coarse grid plus offsets of 2**-30: every decision turns on the offsets, which
    the float32 product loses (it alone gets draws wrong); the certified kernel settles those
    comparisons in float64 and equals recomputing each hybrid's p-values from scratch.
    """
    rng = np.random.default_rng(11)
    human = rng.normal(size=(5, 21))
    a, b = rng.integers(-3, 4, size=(2, 5, 21)) + 2.0 ** -30 * rng.integers(1, 100, size=(2, 5, 21))
    certified, slow, (sums, inputs, masks, bits, signs, ph, tol) = certified_and_from_scratch(human, a, b, 400, 8, 5)
    assert bits.dtype == np.float32 and same_spa(certified, slow)
    total, size, count = perm_both._moved_cells(masks, inputs[1], moved := np.empty((40, 24), np.float32))
    shifts = (moved @ bits.T).reshape(8, 5, -1)
    float32_only = perm_both._spa_of_hybrids(*sums[0], *sums[1], inputs[0], shifts, total, size, count, 0.0, 0.0,
                                             inputs[2], masks, signs.packed, ph, False, tol)  # unit 0: no bound
    assert not same_spa(np.transpose(float32_only), slow)


def test_perm_both_spa_product_in_row_blocks_changes_no_draw():
    """The block product runs in one row block per numba thread, each a one-thread BLAS product:
    on integer scores it is the product exactly; with the grid-plus-offset scores, whose every
    decision is near a threshold, one block or two give the same draws; BLAS's thread count is
    as it was.  (That no rounding of the product changes a decision is the certified kernel's
    test above.)
    """
    import numba
    from threadpoolctl import threadpool_info

    moved = np.random.default_rng(0).integers(-9, 10, size=(37, 64)).astype(np.float32)
    bits = np.random.default_rng(1).integers(0, 2, size=(50, 64)).astype(np.float32)
    blas_threads = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    rng = np.random.default_rng(11)
    human = rng.normal(size=(5, 21))
    a, b = rng.integers(-3, 4, size=(2, 5, 21)) + 2.0 ** -30 * rng.integers(1, 100, size=(2, 5, 21))
    draws, previous = {}, numba.get_num_threads()
    for threads in (1, 2):
        numba.set_num_threads(threads)
        try:
            np.testing.assert_array_equal(perm_both._sign_product(moved, bits), moved @ bits.T)
            draws[threads] = certified_and_from_scratch(human, a, b, 400, 8, 5)[0]
        finally:
            numba.set_num_threads(previous)
    assert perm_both._sign_product(moved[:0], bits).shape == (0, 50)
    np.testing.assert_array_equal(draws[1], draws[2])
    assert [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"] == blas_threads


@pytest.mark.parametrize("n_segments, scale", [(1500, 1.0), (1500, 1e-40), (2100, 1.0)])
def test_perm_both_spa_on_many_segments_and_tiny_differences(n_segments, scale):
    """Long rows (where the float32 bound is widest; past spalib's limit the product is float64)
    and differences below float32's normal range: still equal to recomputing from scratch.
    """
    rng = np.random.default_rng(n_segments)
    human, a, step = rng.normal(size=(3, 4, n_segments))
    a, b = scale * a, scale * (a + np.round(step, 2))
    certified, slow, _ = certified_and_from_scratch(human, a, b, 64, 3, 7)
    assert same_spa(certified, slow)


def toy_metrics(seed=0, n_systems=6, n_segments=60):
    rng = np.random.default_rng(seed)
    quality = np.linspace(0, 1.5, n_systems)[:, None]
    human = quality + rng.normal(size=(n_systems, n_segments))
    systems = [f"sys{i}" for i in range(n_systems)]
    metrics = {
        "good": frame(human + 0.2 * rng.normal(size=human.shape), systems),
        "noisy": frame(human + 3.0 * rng.normal(size=human.shape), systems),
        "random": frame(rng.normal(size=human.shape), systems),
    }
    return frame(human, systems), metrics


@pytest.mark.parametrize("kwargs", [dict(meta_metric="spa"), dict(meta_metric="spa", spa_method="normal"), dict(meta_metric="pa")])
def test_compare_metrics_ranks_a_good_metric_first(kwargs):
    human, metrics = toy_metrics()
    result = spalib.compare_metrics(human, metrics, rng=4, signs="mtme", n_resamples=200, **kwargs)
    assert list(result.scores.index) == ["good", "noisy", "random"]
    assert result.pvalues.loc["good", "random"] <= 0.05
    assert result.ranks["good"] == 1 and result.significance_clusters[0][0] == "good"
    null = result.null_distributions[("good", "noisy")]               # p = extreme draws / draws, no +1
    delta = result.scores["good"] - result.scores["noisy"]
    assert result.pvalues.loc["good", "noisy"] == np.mean(null >= delta) and null.size == 200


def test_compare_metrics_scores_equal_the_meta_metrics():
    human, metrics = toy_metrics(1)
    spa = spalib.compare_metrics(human, metrics, rng=4, signs="mtme", n_resamples=10)
    pa = spalib.compare_metrics(human, metrics, meta_metric="pa", rng=4, n_resamples=10)
    for name, m in metrics.items():
        assert spa.scores[name] == pytest.approx(
            spalib.soft_pairwise_accuracy(human, m, signs=draw_signs(1000, 60, rng=4, signs="mtme").as_bits()).statistic,
            abs=1e-12)
        assert pa.scores[name] == spalib.pairwise_accuracy(human.mean(axis=1), m.mean(axis=1))


def test_identical_metrics_are_not_significantly_different():
    human, metrics = toy_metrics(2)
    same = {"m1": metrics["good"], "m2": metrics["good"].copy()}
    result = spalib.compare_metrics(human, same, rng=4, n_resamples=100)
    assert result.pvalues.iloc[0, 1] == 1.0 and result.n_significant == 0


def test_early_stopping_ends_clear_cases_after_one_block():
    human, metrics = toy_metrics(3)
    result = spalib.compare_metrics(human, metrics, rng=4, n_resamples=1000, early_stopping=spalib.WMT_EARLY_STOPPING)
    assert result.draws.loc["good", "random"] == 100
    with pytest.raises(ValueError, match="`early_min` must be below `early_max`"):
        spalib.EarlyStopping(100, 0.5, 0.02)
    with pytest.raises(TypeError, match="must be None or an EarlyStopping"):
        spalib.compare_metrics(human, metrics, early_stopping=(100, 0.02, 0.5))


def test_compare_metrics_bad_input():
    human, metrics = toy_metrics()
    with pytest.raises(ValueError, match="`meta_metric` must be"):
        spalib.compare_metrics(human, metrics, meta_metric="tau")
    with pytest.raises(ValueError, match="at least two metrics"):
        spalib.compare_metrics(human, {"good": metrics["good"]})
    with pytest.raises(ValueError, match=r"metrics\['noisy'\]"):
        spalib.compare_metrics(human, {**metrics, "noisy": metrics["noisy"].iloc[:, :10]})


@pytest.mark.parametrize("permutation", ["inputs", "systems"])
def test_other_permutation_schemes(permutation):
    human, metrics = toy_metrics(4)
    result = spalib.compare_metrics(human, metrics, rng=4, n_resamples=200, permutation=permutation, meta_metric="pa")
    assert list(result.scores.index)[0] == "good" and result.settings["permutation"] == permutation
    with pytest.raises(ValueError, match="`permutation` must be"):
        spalib.compare_metrics(human, metrics, permutation="cells")


def test_comparison_table_and_explicit_recipes():
    human, metrics = toy_metrics()
    result = spalib.compare_metrics(human, metrics, meta_metric="pa", rng=4, n_resamples=50)
    table = result.table()
    assert list(table.columns) == ["metric", "pa", "rank"] and table["metric"].tolist() == list(result.scores.index)
    assert "good" in table.to_markdown() and "\\begin{tabular}" in table.to_latex()
    with pytest.raises(ValueError, match="signs='mtme' .* for an int seed"):
        spalib.compare_metrics(human, metrics, signs="mtme")
    with pytest.raises(ValueError, match="`spa_resamples` must be a positive integer; got 0"):
        spalib.compare_metrics(human, metrics, spa_resamples=0)
    spa = spalib.soft_pairwise_accuracy(human, metrics["good"], rng=4, signs="mtme")
    assert spa.human_pvalues.shape == (6, 6) and spa.systems == sorted(human.index)


def test_compare_metrics_with_calibrated_acc_eq_equals_the_pairs_tests():
    human, metrics = toy_metrics(4, n_segments=30)
    result = spalib.compare_metrics(human, metrics, meta_metric="acc_eq", n_resamples=200, rng=np.random.default_rng(9))
    assert list(result.scores.index)[0] == "good" and result.ranks["good"] == 1
    rng = np.random.default_rng(9)
    order = list(result.scores.index)
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            eps = result.settings["epsilons"]
            expected = spalib.pairs_permutation_test(human, metrics[a], metrics[b], epsilon1=eps[a], epsilon2=eps[b],
                                                     n_resamples=200, rng=rng)
            assert result.pvalues.loc[a, b] == expected.pvalue
            assert result.scores[a] == expected.statistic1
    with pytest.raises(ValueError, match="`early_stopping` applies to PERM-BOTH"):
        spalib.compare_metrics(human, metrics, meta_metric="acc_eq", early_stopping=spalib.WMT_EARLY_STOPPING)


def test_perm_inputs_normal_spa_by_matrix_products_equals_the_per_draw_kernel():
    from spalib import metametrics
    from spalib._core import perm_both
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(5, 21)), rng.normal(size=(5, 21))
    b[:, 4] = a[:, 4]                                     # a segment where swapping changes nothing
    upper = np.triu_indices(5, 1)
    human_upper = rng.random(10)
    per_segment = rng.integers(0, 256, size=(40, 1, 3), dtype=np.uint8)
    masks = np.ascontiguousarray(np.broadcast_to(per_segment, (40, 5, 3)))
    for mid in (False, True):
        fast = metametrics._inputs_normal_spa_draws(a, b, upper, human_upper, mid)(masks)
        slow = perm_both._perm_both_spa_normal(a, b, masks, human_upper, mid)
        np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)


@pytest.mark.parametrize("statistic, spa_method, permutation", [
    ("pa", "normal", "inputs"), ("pa", "normal", "both"), ("spa", "normal", "inputs"),
    ("spa", "normal", "systems"), ("spa", "permutation", "both"), ("acc_eq", "normal", "both")])
def test_two_sided_pvalues_equal_a_direct_count_over_the_stored_null(statistic, spa_method, permutation):
    rng = np.random.default_rng(7)
    human = frame(rng.normal(size=(5, 24)), systems=[f"s{k}" for k in range(5)])
    metrics = {name: human + noise * rng.normal(size=human.shape)
               for name, noise in (("a", 0.3), ("b", 0.5), ("c", 2.0))}
    kw = dict(meta_metric=statistic, spa_method=spa_method, n_resamples=300, rng=3)
    if statistic != "acc_eq":
        kw["permutation"] = permutation
    one = spalib.compare_metrics(human, metrics, **kw)
    two = spalib.compare_metrics(human, metrics, alternative="two-sided", **kw)
    assert two.settings["alternative"] == "two-sided" and one.settings["alternative"] == "greater"
    for (better, worse), null in two.null_distributions.items():
        np.testing.assert_array_equal(null, one.null_distributions[better, worse])  # same draws
        if statistic == "acc_eq":
            continue  # its null is of the pairs test's sign-flip sum (checked below)
        delta = two.scores[better] - two.scores[worse]
        assert two.pvalues.loc[better, worse] == np.mean(np.abs(null) >= abs(delta))
        assert one.pvalues.loc[better, worse] == np.mean(null >= delta)
        assert two.pvalues.loc[better, worse] >= one.pvalues.loc[better, worse]


def test_two_sided_pairs_test_counts_both_tails():
    h = np.array([[1.0, 3.0, 2.0], [3.0, 3.0, 1.0], [1.0, 2.0, 3.0], [1.0, 2.0, 2.5]])
    good, bad = h + 0.1, -h
    one = spalib.pairs_permutation_test(h, good, bad, method="exact")
    two = spalib.pairs_permutation_test(h, good, bad, method="exact", alternative="two-sided")
    reverse = spalib.pairs_permutation_test(h, bad, good, method="exact", alternative="two-sided")
    assert two.pvalue == reverse.pvalue
    assert two.pvalue == pytest.approx(2 * one.pvalue)  # the exact null is symmetric, no draw at 0
    with pytest.raises(ValueError, match="alternative"):
        spalib.pairs_permutation_test(h, good, bad, alternative="less")
    with pytest.raises(ValueError, match="alternative"):
        spalib.compare_metrics(frame(h[:3]), {"a": frame(good[:3]), "b": frame(bad[:3])}, alternative="both")


def test_chance_levels_derived_match_a_simulation_of_random_metrics():
    """google-research/mt-metrics-eval #14: what does a random metric score?  PA exactly
    (1 - ties) / 2, SPA in the many-patterns limit, PDP and Pearson 0, acc_eq simulated; each checked against the
    simulated random metrics within four Monte-Carlo standard errors."""
    task = data.segment_task(data.load_mtme("wmt23", "he-en"))
    tied = task.human.copy()
    tied.iloc[1] = tied.iloc[0]                        # two systems the humans tie
    for human in (task.human, tied):
        levels = spalib.chance_levels(human, n_resamples=200, spa_resamples=500, rng=3)
        assert list(levels.index) == ["pa", "spa", "acc_eq", "pdp", "pearson"]
        assert list(levels["how"]) == ["exact", "uniform p-values", "simulation", "exact", "exact"]
        pa, spa, acc, pdp, pearson = (levels.loc[s] for s in levels.index)
        assert pdp.expected == 0 and abs(pdp.simulated) < 4 * pdp.se
        assert pearson.expected == 0 and abs(pearson.simulated) < 4 * pearson.se
        assert abs(pa.expected - pa.simulated) < 4 * pa.se
        assert abs(spa.expected - spa.simulated) < 4 * spa.se + 1 / 500   # the patterns' granularity
        assert acc.expected == acc.simulated and 0 <= acc.se < 0.01
    n = len(tied)
    assert levels.loc["pa", "expected"] == (1 - 1 / (n * (n - 1) / 2)) / 2   # one tied pair of n(n-1)/2
    pd.testing.assert_frame_equal(levels, spalib.chance_levels(tied, n_resamples=200, spa_resamples=500, rng=3))
    with pytest.raises(ValueError, match="n_resamples"):
        spalib.chance_levels(tied, n_resamples=0)


def test_spa_is_one_rule_summed_as_numpy_sums_its_mean():
    """The kernels' SPA is the public one: numpy's pairwise summation, so that mt-metrics-eval's
    ``1 - np.mean(np.abs(...))`` is matched to the last bit at every length (below 8 terms, up to
    128 and past it, where the sum splits in halves)."""
    rng = np.random.default_rng(0)
    for n in [*range(1, 300), 1000, 1024, 4095, 10011]:
        human, metric = rng.random(n), rng.random(n) ** 3
        assert meta.spa_of_uppers(human, metric) == 1.0 - np.mean(np.abs(human - metric))


def test_null_draws_of_a_pair_either_way_round_and_their_errors():
    rng = np.random.default_rng(3)
    human = rng.random((4, 24))
    metrics = {"a": human + 0.1 * rng.random((4, 24)), "b": rng.random((4, 24)), "c": rng.random((4, 24))}
    c = spalib.compare_metrics(human, metrics, meta_metric="pa", n_resamples=30, rng=2)
    for (better, worse), null in c.null_distributions.items():
        assert c.null_draws(better, worse) is null
        assert np.array_equal(c.null_draws(worse, better), -null)
    with pytest.raises(ValueError, match="no metric named 'd'"):
        c.null_draws("a", "d")
    with pytest.raises(ValueError, match="two different metrics"):
        c.null_draws("a", "a")
    untested = spalib.compare_metrics(human, metrics, meta_metric="pa", n_resamples=0, rng=2)
    with pytest.raises(ValueError, match="without a test"):
        untested.null_draws("a", "b")


def test_at_least_as_extreme_is_one_rule_in_python_and_in_the_kernels():
    """engine's count_extreme and the kernels' reaches count the same draws, ties included."""
    from spalib._core import extreme
    rng = np.random.default_rng(11)
    null = np.concatenate([rng.normal(size=200), [0.3, -0.3, 0.3 - 1e-13, -0.3 + 1e-13, 0.3 + 1e-13]])
    for observed in (0.3, -0.3, 0.0):
        for tolerance in (0.0, 1e-11):
            for alternative in ("greater", "two-sided"):
                by_kernel = sum(extreme.reaches(d, observed, tolerance, alternative == "two-sided") for d in null)
                assert extreme.count_extreme(null, observed, tolerance, alternative) == by_kernel
    assert extreme.count_extreme(np.array([0.3 - 1e-13]), 0.3, 0.0, "greater") == 0   # plain floats
    assert extreme.count_extreme(np.array([0.3 - 1e-13]), 0.3, 1e-11, "greater") == 1  # a tie counted


@pytest.mark.parametrize("statistic", ["pa", "spa", "acc_eq"])
def test_a_recount_equals_the_test_run_under_the_other_alternative_on_the_same_draws(statistic):
    rng = np.random.default_rng(12)
    human = rng.random((5, 32))
    metrics = {"a": human + 0.3 * rng.random((5, 32)), "b": human + rng.random((5, 32)), "c": rng.random((5, 32))}
    kw = dict(meta_metric=statistic, n_resamples=60, rng=7, spa_resamples=50)
    two = spalib.compare_metrics(human, metrics, alternative="two-sided", **kw)
    one = spalib.compare_metrics(human, metrics, alternative="greater", **kw)
    recounted = two.recount(alternative="greater")
    pd.testing.assert_frame_equal(recounted.pvalues, one.pvalues)
    pd.testing.assert_series_equal(recounted.ranks, one.ranks)
    assert recounted.settings["alternative"] == "greater" and two.settings["alternative"] == "two-sided"
    assert set(two.tolerances) == set(two.null_distributions)
    assert (statistic == "acc_eq") == any(t > 0 for t in two.tolerances.values())   # PERM: plain floats
    looser = two.recount(alpha=0.5)
    assert looser.alpha == 0.5 and looser.n_significant >= two.n_significant
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        two.recount(alternative="less")
    with pytest.raises(ValueError, match="alpha"):
        two.recount(alpha=1.5)
    untested = spalib.compare_metrics(human, metrics, meta_metric="pa", n_resamples=0, rng=2)
    with pytest.raises(ValueError, match="without a test"):
        untested.recount(alternative="two-sided")


def test_a_recount_without_stored_tolerances_says_why_it_cannot_count():
    import dataclasses
    rng = np.random.default_rng(13)
    human = rng.random((4, 16))
    c = spalib.compare_metrics(human, {"a": human + rng.random((4, 16)), "b": rng.random((4, 16))},
                               meta_metric="pa", n_resamples=20, rng=1)
    with pytest.raises(ValueError, match="no tolerance stored"):
        dataclasses.replace(c, tolerances={}).recount(alternative="two-sided")


# --- pairwise difference Pearson (PDP) -------------------------------------------------------------

def pdp_toy():
    rng = np.random.default_rng(1)
    human = pd.DataFrame(rng.normal(size=(6, 40)), index=[f"s{i}" for i in range(6)])
    return human, {f"m{k}": human + rng.normal(scale=0.5 + k, size=(6, 40)) for k in range(3)}


def pdp_by_enumeration(human, metric, grouping):
    """mt-metrics-eval's recipe, spelled out: every ordered pair of cells of a group (each cell with
    itself too), both scores' differences, one Pearson correlation over all of them (scipy)."""
    h, m = np.asarray(human, dtype=float), np.asarray(metric, dtype=float)
    groups = {"item": list(zip(h.T, m.T)), "system": list(zip(h, m)), "none": [(h.ravel(), m.ravel())]}[grouping]
    dh, dm = [], []
    for gh, gm in groups:
        keep = ~np.isnan(gh)
        gh, gm = gh[keep], gm[keep]
        dh += list((gh[:, None] - gh[None, :]).ravel())
        dm += list((gm[:, None] - gm[None, :]).ravel())
    return stats.pearsonr(dh, dm)[0]


def test_pdp_equals_mt_metrics_eval_s_test_values():
    """mt-metrics-eval stats_test.py (testPearsonPdp, testPdpWithAveragingAndNones): its score
    vectors are system-major, two systems."""
    human, metric = [[1, 2, 3], [4, 5, 6]], [[2, 1, 4], [3, 3, 7]]
    for grouping, published in (("item", 0.926), ("none", 0.776), ("system", 0.766)):
        assert round(spalib.pairwise_difference_pearson(human, metric, grouping=grouping), 3) == published
    human, metric = [[1, 5, np.nan], [10, 2, 12]], [[3, 15, 1], [20, 4, 24]]
    assert round(spalib.pairwise_difference_pearson(human, metric), 3) == 0.968
    assert round(spalib.pairwise_difference_pearson(human, metric, grouping="none"), 3) == 0.975


@pytest.mark.parametrize("grouping", ["item", "none", "system"])
def test_pdp_equals_pearson_over_every_pair_s_differences(grouping):
    rng = np.random.default_rng(2)
    human = rng.normal(size=(6, 40))
    metric = human + rng.normal(size=human.shape) + rng.normal(size=40)   # plus a bias per segment
    human[rng.random(human.shape) < 0.1] = np.nan                          # some scores missing
    assert spalib.pairwise_difference_pearson(human, metric, grouping=grouping) == pytest.approx(
        pdp_by_enumeration(human, metric, grouping), abs=1e-12)
    if grouping == "none":   # all cells: Pearson's r of the scores themselves
        keep = ~np.isnan(human)
        assert spalib.pairwise_difference_pearson(human, metric, grouping="none") == pytest.approx(
            stats.pearsonr(human[keep], metric[keep])[0], abs=1e-12)


def test_pdp_within_segments_ignores_what_a_metric_adds_to_a_whole_segment():
    rng = np.random.default_rng(3)
    human = rng.normal(size=(5, 30))
    metric = human + rng.normal(size=human.shape)
    shifted = 3.0 * metric + rng.normal(scale=10, size=30)   # a positive scale, a bias per segment
    assert spalib.pairwise_difference_pearson(human, shifted) == pytest.approx(
        spalib.pairwise_difference_pearson(human, metric), abs=1e-12)
    assert spalib.pairwise_difference_pearson(human, shifted, grouping="none") != pytest.approx(
        spalib.pairwise_difference_pearson(human, metric, grouping="none"), abs=1e-3)


def test_pdp_perm_both_draws_equal_recomputing_each_hybrid():
    rng = np.random.default_rng(4)
    human, a, b = rng.normal(size=(3, 5, 21))
    masks = rng.integers(0, 256, size=(6, 5, 3), dtype=np.uint8)
    fast_a, fast_b = perm_both._perm_both_pdp(a, b, masks, human)
    for t, swap in enumerate(masks):
        a2, b2 = hybrid(a, b, swap)
        assert fast_a[t] == pytest.approx(pdp_by_enumeration(human, a2, "item"), abs=1e-12)
        assert fast_b[t] == pytest.approx(pdp_by_enumeration(human, b2, "item"), abs=1e-12)


def test_compare_metrics_by_pdp_scores_as_the_function_and_tests_with_perm_both():
    human, metrics = pdp_toy()
    c = spalib.compare_metrics(human, metrics, meta_metric="pdp", n_resamples=200, rng=5)
    for name, score in c.scores.items():
        assert score == pytest.approx(spalib.pairwise_difference_pearson(human, metrics[name]), abs=1e-12)
    assert c.meta_metric == "pdp" and list(c.scores.index) == sorted(metrics, key=lambda n: -c.scores[n])
    best, worst = c.scores.index[0], c.scores.index[-1]
    null = c.null_draws(best, worst)
    assert c.pvalues.loc[best, worst] == np.mean(null >= c.scores[best] - c.scores[worst])


def test_pdp_intervals_are_the_pdp_of_the_drawn_segments():
    human, metrics = pdp_toy()
    ci = spalib.metric_intervals(human, metrics, meta_metric="pdp", n_resamples=300, rng=6)
    rng = np.random.default_rng(6)   # the intervals' segment draws, replayed
    n = human.shape[1]
    draws = rng.integers(0, n, size=(300, n))
    for name in ci.index:
        samples = [spalib.pairwise_difference_pearson(human.to_numpy()[:, d], metrics[name].to_numpy()[:, d])
                   for d in draws]
        low, high = np.percentile(samples, [2.5, 97.5])
        assert ci.loc[name, "low"] == pytest.approx(low, abs=1e-12)
        assert ci.loc[name, "high"] == pytest.approx(high, abs=1e-12)


@pytest.mark.parametrize("call, message", [
    (lambda h, m: spalib.pairwise_difference_pearson(h, m, grouping="pairs"), "`grouping` must be one of"),
    (lambda h, m: spalib.pairwise_difference_pearson(h, m.where(m > 0)), "missing value"),
    (lambda h, m: spalib.compare_metrics(h, {"flat": h * 0 + h.mean(axis=0), "m": m}, meta_metric="pdp"),
     r"metrics\['flat'\] scores every system of a segment alike"),
    (lambda h, m: spalib.compare_metrics(h * 0 + 1, {"a": m, "m": m + 1}, meta_metric="pdp"),
     "`human` scores every system of a segment alike"),
])
def test_pdp_refuses_what_it_cannot_score(call, message):
    human, metrics = pdp_toy()
    with pytest.raises(ValueError, match=message):
        call(human, metrics["m0"])

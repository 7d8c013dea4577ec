"""The simulation lab's replication loops: many simulated test sets, each tested with its own
random draws, in one jitted loop.  Every replication's draws come from its own counter-based
stream (SplitMix64 keyed by seed, replication and draw), so results are identical for any
number of threads.  The statistics are the library's own kernels.  No validation here: the
public functions of :mod:`spalib.simulate` check every array before it reaches a kernel.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from spalib._core.extreme import reaches
from spalib._core.meta import _pairwise_agreement, spa_of_uppers
from spalib._core.perm_both import _subset_sums, normal_spa_of_hybrids, pa_of_hybrids
from spalib._core.rng import _byte, sign_patterns, stream_key, swap_masks
from spalib._core.signs import _normal_upper, tie_tolerance


def pair_signs(seed, replication, n_resamples, n_segments):
    """The packed sign patterns (draws x groups of 8 segments) of one replication's pair test,
    in :class:`spalib.SignMatrix`'s layout (bit set = keep the pair as observed).
    """
    return sign_patterns(np.uint64(stream_key(seed, replication)), 0, n_resamples, n_segments)


@njit(cache=True, parallel=True)
def pair_test_counts(diffs, n_resamples, seed):
    """For every replication (row of ``diffs``, the per-segment score differences of one system
    pair), how many of ``n_resamples`` sign-flipped sums are ``>=`` the observed sum, ``==`` it
    (within the library's tie tolerance) and ``>=`` it in absolute value.
    """
    n_replications, n_segments = diffs.shape
    n_groups = (n_segments + 7) // 8
    greater_equal = np.zeros(n_replications, dtype=np.int64)
    equal = np.zeros(n_replications, dtype=np.int64)
    two_sided = np.zeros(n_replications, dtype=np.int64)
    for r in prange(n_replications):
        d = diffs[r]
        observed = 0.0
        for l in range(n_segments):
            observed += d[l]
        tol = tie_tolerance(diffs[r:r + 1])
        key = stream_key(seed, r)
        for k in range(n_resamples):
            total = 0.0
            for g in range(n_groups):
                bits = _byte(key, k * n_groups + g)
                for b in range(min(8, n_segments - 8 * g)):
                    total += d[8 * g + b] if (bits >> b) & 1 else -d[8 * g + b]
            if reaches(total, observed, tol, False):
                greater_equal[r] += 1
                if total <= observed + tol:
                    equal[r] += 1
            if reaches(total, observed, tol, True):
                two_sided[r] += 1
    return greater_equal, equal, two_sided


@njit(cache=True, parallel=True)
def metric_test_counts(human, first, second, meta_metric, scheme, n_resamples, block, early_min, early_max,
                       stop_on_two_sided, seed):
    """The permutation test of two metrics in every replication, as :func:`spalib.compare_metrics`
    runs it on z-scored metrics (``first``, ``second``), with the engine's own hybrid meta-metric
    (PA, ``meta_metric`` 0, or SPA with normal-approximation p-values, 1): the observed better one first,
    ``Δ* >= Δ`` and ``|Δ*| >= |Δ|`` counted over the same draws in plain floating point, early
    stopping after every block on the one-sided p-value, or on the two-sided one if
    ``stop_on_two_sided``.  PERM-INPUTS SPA: the library sums its draws by matrix products
    instead, equal to these up to rounding.

    Returns the observed difference ``stat(first) - stat(second)``, the one-sided and the
    two-sided extreme counts and the draws used per replication.
    """
    n_replications, n_systems, n_segments = human.shape
    n_groups = (n_segments + 7) // 8
    delta = np.empty(n_replications)
    greater = np.zeros(n_replications, dtype=np.int64)
    two_sided = np.zeros(n_replications, dtype=np.int64)
    used = np.zeros(n_replications, dtype=np.int64)
    for r in prange(n_replications):
        h = human[r]
        human_sys = _row_sums(h) / n_segments
        human_upper = _normal_upper(h, False)
        a = first[r]
        b = second[r]
        if meta_metric == 0:   # each metric's PA with its own tie tolerance, as the library scores it
            sum_a, sum_b = _row_sums(a), _row_sums(b)
            agree_a, pairs = _pairwise_agreement(human_sys, sum_a, tie_tolerance(a))
            agree_b, _ = _pairwise_agreement(human_sys, sum_b, tie_tolerance(b))
            stat_a, stat_b = agree_a / pairs, agree_b / pairs
        else:
            sum_a = sum_b = human_sys   # (SPA moves no totals)
            stat_a = spa_of_uppers(human_upper, _normal_upper(a, False))
            stat_b = spa_of_uppers(human_upper, _normal_upper(b, False))
        delta[r] = stat_a - stat_b
        better, worse, sum_better, sum_worse = (a, b, sum_a, sum_b) if stat_a >= stat_b else (b, a, sum_b, sum_a)
        if meta_metric == 0:
            tol = max(tie_tolerance(a), tie_tolerance(b))   # the larger of the pair's, as the library's PA
            diff_sums = _subset_sums(better - worse)
        observed = abs(delta[r])
        key = stream_key(seed, r)
        while used[r] < n_resamples:
            size = min(block, n_resamples - used[r])
            masks = swap_masks(key, used[r], size, scheme, n_systems, n_groups)
            for k in range(size):
                # the engine's pair(better, worse): hybrids of worse (a) and better (b)
                if meta_metric == 0:
                    stat_worse, stat_better = pa_of_hybrids(sum_worse, sum_better, diff_sums, masks[k], human_sys,
                                                            tol)
                else:
                    stat_worse, stat_better = normal_spa_of_hybrids(worse, better, masks[k], human_upper, False)
                null = stat_better - stat_worse
                greater[r] += reaches(null, observed, 0.0, False)   # plain floats, as compare_metrics
                two_sided[r] += reaches(null, observed, 0.0, True)
            used[r] += size
            p = (two_sided[r] if stop_on_two_sided else greater[r]) / used[r]
            if p < early_min or p > early_max:
                break
    return delta, greater, two_sided, used


@njit(cache=True)
def _row_sums(x):
    """Each row's sum in column order from +0.0, compiled in a fraction of the time of
    ``x.sum(axis=1)`` (:func:`metric_test_counts` compiles in two thirds of the time it took).
    """
    out = np.zeros(x.shape[0])
    for s in range(x.shape[0]):
        for l in range(x.shape[1]):
            out[s] += x[s, l]
    return out


@njit(cache=True, parallel=True)
def correlation_difference_counts(human, first, second, n_resamples, seed):
    """The paired permutation test of ``r(h, m1) - r(h, m2)`` (Pearson) in every replication:
    each draw swaps the two metrics' scores of every item with probability 1/2; counts draws
    with ``|Δ*| >= |Δ|`` and the draws whose correlations are defined (a swap can make a
    metric's row constant: that draw has no correlation and is left out of both counts).
    The caller refuses constant rows, so ``observed`` is always defined.
    """
    n_replications, n = human.shape
    observed = np.empty(n_replications)
    two_sided = np.zeros(n_replications, dtype=np.int64)
    defined = np.zeros(n_replications, dtype=np.int64)
    for r in prange(n_replications):
        h = human[r] - human[r].mean()
        hh = math.sqrt((h * h).sum())
        x, y = first[r], second[r]
        key = stream_key(seed, r)
        r_x, r_y = _pearson(h, hh, x), _pearson(h, hh, y)
        observed[r] = r_x - r_y
        tol = tie_tolerance(np.array([r_x, r_y]).reshape(1, 2))
        x2, y2 = np.empty(n), np.empty(n)
        for k in range(n_resamples):
            for i in range(n):
                if (_byte(key, k * n + i) & 1) == 1:
                    x2[i], y2[i] = y[i], x[i]
                else:
                    x2[i], y2[i] = x[i], y[i]
            d = _pearson(h, hh, x2) - _pearson(h, hh, y2)
            if not math.isnan(d):
                defined[r] += 1
                if reaches(d, observed[r], tol, True):
                    two_sided[r] += 1
    return observed, two_sided, defined


@njit(cache=True)
def _pearson(centred, norm, x):
    """Pearson's r of a centred row (of norm ``norm``) with ``x``; NaN when ``x`` is constant."""
    xc = x - x.mean()
    xx = math.sqrt((xc * xc).sum())
    if xx == 0.0 or norm == 0.0:
        return np.nan
    return (centred * xc).sum() / (norm * xx)

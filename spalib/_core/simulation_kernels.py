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


@njit(cache=True)
def _hybrid_statistic(keep, swap, mask, human_sys, human_upper, statistic, tol, hybrid):
    """The statistic of the hybrid that has ``swap``'s score where ``mask``'s bit is set and
    ``keep``'s elsewhere: PA of its system totals (``statistic`` 0) or SPA with normal-limit
    p-values (1, the hybrid built in the buffer ``hybrid``), each as the library computes it.
    """
    n_systems, n_segments = keep.shape
    if statistic == 0:
        totals = np.zeros(n_systems)
        for s in range(n_systems):
            for l in range(n_segments):
                kept, swapped = keep[s, l], swap[s, l]   # both read: a select, not a branch
                totals[s] += swapped if (mask[s, l >> 3] >> (l & 7)) & 1 else kept
        agree, pairs = _pairwise_agreement(human_sys, totals, tol)
        return agree / pairs
    for s in range(n_systems):
        for l in range(n_segments):
            kept, swapped = keep[s, l], swap[s, l]
            hybrid[s, l] = swapped if (mask[s, l >> 3] >> (l & 7)) & 1 else kept
    return spa_of_uppers(human_upper, _normal_upper(hybrid, False))


@njit(cache=True, parallel=True)
def metric_test_counts(human, first, second, statistic, scheme, n_resamples, block, early_min, early_max,
                       stop_on_two_sided, seed):
    """The permutation test of two metrics in every replication, as :func:`spalib.compare_metrics`
    runs it on z-scored metrics (``first``, ``second``): the observed better one first,
    ``Δ* >= Δ`` and ``|Δ*| >= |Δ|`` counted over the same draws in plain floating point, early
    stopping after every block on the one-sided p-value, or on the two-sided one if
    ``stop_on_two_sided``.

    Returns the observed difference ``stat(first) - stat(second)``, the one-sided and the
    two-sided extreme counts and the draws used per replication.
    """
    n_replications, n_systems, n_segments = human.shape
    n_groups = (n_segments + 7) // 8
    keep_all = np.zeros((n_systems, n_groups), dtype=np.uint8)
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
        tol = max(tie_tolerance(a), tie_tolerance(b))   # the larger of the pair's, as the library's PA
        hybrid = np.empty((n_systems, n_segments))
        stat_a = _hybrid_statistic(a, a, keep_all, human_sys, human_upper, statistic, tol, hybrid)
        stat_b = _hybrid_statistic(b, b, keep_all, human_sys, human_upper, statistic, tol, hybrid)
        delta[r] = stat_a - stat_b
        better, worse = (a, b) if stat_a >= stat_b else (b, a)
        observed = abs(delta[r])
        key = stream_key(seed, r)
        while used[r] < n_resamples:
            size = min(block, n_resamples - used[r])
            masks = swap_masks(key, used[r], size, scheme, n_systems, n_groups)
            for k in range(size):
                null = (_hybrid_statistic(better, worse, masks[k], human_sys, human_upper, statistic, tol, hybrid)
                        - _hybrid_statistic(worse, better, masks[k], human_sys, human_upper, statistic, tol, hybrid))
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

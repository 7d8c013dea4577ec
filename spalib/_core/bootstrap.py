"""Bootstrap kernels: statistics recomputed on segment resamples given as count vectors."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from spalib._core.corpus_kernels import score
from spalib._core.meta import _pairwise_agreement, spa_of_uppers
from spalib._core.rng import GOLDEN, mix64, stream_key
from spalib._core.signs import _weighted_normal_upper


@njit(cache=True, parallel=True)
def _bootstrap_spa_normal(human, metrics, counts, mid):
    """SPA (normal-approximation p-values) of every metric on every bootstrap sample of segments;
    ``counts[b, l]``: how often segment l is drawn in sample b.  Returns samples x metrics.
    """
    n_samples = counts.shape[0]
    out = np.empty((n_samples, metrics.shape[0]))
    for b in prange(n_samples):
        weights = counts[b]
        human_upper = _weighted_normal_upper(human, weights, mid)
        for m in range(metrics.shape[0]):
            metric_upper = _weighted_normal_upper(metrics[m], weights, mid)
            out[b, m] = spa_of_uppers(human_upper, metric_upper)
    return out


@njit(cache=True, parallel=True)
def _resample_sums(counts, rows):
    """``counts @ rows.T`` (samples x rows), each sum in :func:`_dot`'s fixed order: the same bits
    on every machine and thread count (a BLAS product's rounding follows both).
    """
    out = np.empty((counts.shape[0], rows.shape[0]))
    for b in prange(counts.shape[0]):
        for r in range(rows.shape[0]):
            out[b, r] = _dot(counts[b], rows[r])
    return out


@njit(cache=True, parallel=True)
def _bootstrap_pa(human_sums, metric_sums, tol):
    """Pairwise accuracy of system totals on every bootstrap sample: ``human_sums`` is samples x
    systems, ``metric_sums`` metrics x samples x systems.  Returns samples x metrics.
    """
    n_metrics, n_samples, _ = metric_sums.shape
    out = np.empty((n_samples, n_metrics))
    for b in prange(n_samples):
        for m in range(n_metrics):
            agree, pairs = _pairwise_agreement(human_sums[b], metric_sums[m, b], tol)
            out[b, m] = agree / pairs
    return out


# --- the bootstrap of system scores (spalib.bootstrap): each system's rows resampled on their own

_BATCH = 512
"""Rows drawn at a time: drawn apart from the counting or summing that follows (which goes one
row after another), a batch's random numbers are computed in SIMD lanes (AVX-512 here: 1.6 ns a
draw one after another, 1.1 ns a batch at a time)."""


@njit(cache=True)
def _draw_rows(state, n, rows):
    """Fill ``rows`` with the stream's next ``rows.size`` rows in [0, n) and return the state after
    them: row ``i`` is ``(mix64(state + (i + 1) * GOLDEN) >> 32) * n >> 32`` (bias < n / 2**32).
    """
    for i in range(rows.size):
        rows[i] = (mix64(state + np.uint64(i + 1) * GOLDEN) >> np.uint64(32)) * np.uint64(n) >> np.uint64(32)
    return state + np.uint64(rows.size) * GOLDEN


@njit(cache=True)
def _resample_counts(seed, group, sample_size, counts):
    """How often each of ``counts.size`` rows is drawn in ``sample_size`` draws with replacement."""
    counts[:] = 0.0
    state = stream_key(seed, group)
    rows = np.empty(min(sample_size, _BATCH), dtype=np.uint64)
    for start in range(0, sample_size, _BATCH):
        batch = rows[:min(_BATCH, sample_size - start)]
        state = _draw_rows(state, counts.size, batch)
        for row in batch:
            counts[row] += 1.0


@njit(cache=True)
def _resample_sum(seed, group, sample_size, values):
    """The sum of ``sample_size`` rows of ``values`` drawn with replacement (the same draws as
    :func:`_resample_counts`, without counting them), added in the order drawn.
    """
    state = stream_key(seed, group)
    rows = np.empty(min(sample_size, _BATCH), dtype=np.uint64)
    total = 0.0
    for start in range(0, sample_size, _BATCH):
        batch = rows[:min(_BATCH, sample_size - start)]
        state = _draw_rows(state, values.size, batch)
        for row in batch:
            total += values[row]
    return total


@njit(cache=True)
def _dot(counts, column):
    """``counts @ column``, added in an order fixed here rather than by the compiler: eight running
    sums (row ``i`` goes to sum ``i % 8``), then the rows past the last multiple of eight, one by one.
    """
    # Letting LLVM reassociate the sum vectorises it in an order set by how LLVM tunes for the
    # CPU: an Intel and an AMD AVX-512 chip gave intervals that differ in the last bit.
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    whole = counts.size - counts.size % 8
    for i in range(0, whole, 8):
        c, v = counts[i:i + 8], column[i:i + 8]
        s0 += c[0] * v[0]
        s1 += c[1] * v[1]
        s2 += c[2] * v[2]
        s3 += c[3] * v[3]
        s4 += c[4] * v[4]
        s5 += c[5] * v[5]
        s6 += c[6] * v[6]
        s7 += c[7] * v[7]
    acc = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    for i in range(whole, counts.size):
        acc += counts[i] * column[i]
    return acc


@njit(cache=True, fastmath={"reassoc"})
def _dot_of_integers(counts, column):
    """``counts @ column`` for non-negative whole-number ``column`` whose sums stay below 2**53:
    every partial sum is exact, so the order LLVM picks to vectorise the loop (2 to 4 times
    faster than :func:`_dot`) cannot change the result on any machine.
    """
    acc = 0.0
    for i in range(counts.size):
        acc += counts[i] * column[i]
    return acc


@njit(parallel=True, cache=True)
def _bootstrap_scores(stats_t, starts, sample_sizes, seeds, code, integers):
    """The score of every group (system) in every trial: ``stats_t`` is statistics x rows with each
    group's rows contiguous (``starts``), ``code`` 0 for a mean, else a corpus metric's code;
    ``integers``: the statistics are non-negative whole numbers whose sums stay below 2**53.
    """
    # Groups outside, trials inside: one group's statistics stay in cache across all trials.
    k = stats_t.shape[0]
    n_groups = starts.size - 1
    out = np.empty((seeds.size, n_groups))
    for g in range(n_groups):
        lo, hi, size = starts[g], starts[g + 1], sample_sizes[g]
        for t in prange(seeds.size):
            if code == 0:  # a mean: sum the drawn rows directly, in time proportional to `size`
                out[t, g] = _resample_sum(seeds[t], g, size, stats_t[0, lo:hi]) / size
                continue
            counts = np.empty(hi - lo)
            _resample_counts(seeds[t], g, size, counts)
            sums = np.empty(k)
            for j in range(k):
                column = stats_t[j, lo:hi]
                sums[j] = _dot_of_integers(counts, column) if integers else _dot(counts, column)
            out[t, g] = score(sums, code)
    return out

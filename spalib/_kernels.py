"""Private numba kernels.  No validation here: the public wrappers check shapes and values.

Sign patterns are stored packed: ``packed[k, g]`` holds, in its bits 0..7, the signs of
segments ``8g .. 8g+7`` in permutation ``k`` (bit set = +1, i.e. keep the pair as observed;
clear = -1, swap the two systems' outputs on that segment).
"""

from __future__ import annotations

import math
import os

import numba
import numpy as np
from numba import njit, prange

# OpenMP workers spin after a parallel region and steal the two cores from the BLAS products of
# PERM-BOTH (27% slower on WMT23 en-de); numba's own work queue does not spin.
if "NUMBA_THREADING_LAYER" not in os.environ:
    numba.config.THREADING_LAYER = "workqueue"


@njit(cache=True)
def _lowest_bit():
    """Index of the lowest set bit of every byte value 1..255 (entry 0 unused)."""
    out = np.zeros(256, dtype=np.int64)
    for m in range(1, 256):
        b = 0
        while not (m >> b) & 1:
            b += 1
        out[m] = b
    return out


@njit(cache=True, parallel=True)
def _byte_tables(scores):
    """For every group of 8 segments and every one of the 256 sign patterns of that group, the
    signed sum of each system's scores: ``table[g, m, s] = sum_b (+1 if bit b of m else -1) *
    scores[s, 8g + b]``.  Each row is the sum of a low-nibble and a high-nibble row (16 patterns
    of 4 segments each), so the 256 rows are independent additions that vectorise; groups are
    independent, so they run in parallel with the same result on any number of threads.
    """
    n_systems, n_segments = scores.shape
    n_groups = (n_segments + 7) // 8
    by_segment = np.zeros((8 * n_groups, n_systems))  # zero rows pad the last group
    for s in range(n_systems):
        for l in range(n_segments):
            by_segment[l, s] = scores[s, l]
    table = np.empty((n_groups, 256, n_systems))
    for g in prange(n_groups):
        base = 8 * g
        low = np.empty((16, n_systems))
        high = np.empty((16, n_systems))
        for m in range(16):
            for s in range(n_systems):
                lo = 0.0
                hi = 0.0
                for b in range(4):
                    sign = 1.0 if (m >> b) & 1 else -1.0
                    lo += sign * by_segment[base + b, s]
                    hi += sign * by_segment[base + 4 + b, s]
                low[m, s] = lo
                high[m, s] = hi
        for m in range(256):
            for s in range(n_systems):
                table[g, m, s] = low[m & 15, s] + high[m >> 4, s]
    return table


GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def mix64(z):
    """SplitMix64's finaliser: a bijective scramble of 64 bits (counter-based random numbers)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def tie_tolerance(x: np.ndarray) -> float:
    """Float64 sums of L terms are off by at most ~L ulps of the largest attainable |sum|; a
    margin far above that, far below any difference that matters.
    """
    return 1e-11 * float(np.abs(x).sum(axis=1).max())


_CHUNK = 64  # permutations per work item: a chunk's partial sums stay in cache across groups


@njit(cache=True, parallel=True)
def _signed_sums(table, packed):
    """``null[s, k] = sum_l sign[k, l] * scores[s, l]`` from the byte tables: one table row per
    8 segments.  Groups are the outer loop so that one group's 256 rows stay in cache while a
    chunk of permutations reads them.  Every sum runs over the groups in order, whatever the
    chunking and thread count, so the result does not depend on the number of threads.
    """
    n_groups, _, n_systems = table.shape
    n_perm = packed.shape[0]
    null = np.empty((n_systems, n_perm))
    n_chunks = (n_perm + _CHUNK - 1) // _CHUNK
    for c in prange(n_chunks):
        start = c * _CHUNK
        stop = min(n_perm, start + _CHUNK)
        acc = np.zeros((stop - start, n_systems))
        for g in range(n_groups):
            for k in range(start, stop):
                m = packed[k, g]
                for s in range(n_systems):
                    acc[k - start, s] += table[g, m, s]
        for k in range(start, stop):
            for s in range(n_systems):
                null[s, k] = acc[k - start, s]
    return null


@njit(cache=True)
def _observed_sums(table):
    """The signed sums of the identity pattern (all signs +1), accumulated exactly as
    :func:`_signed_sums` would, so that the identity permutation reproduces the observed value
    to the last bit.
    """
    n_groups, _, n_systems = table.shape
    out = np.zeros(n_systems)
    for g in range(n_groups):
        for s in range(n_systems):
            out[s] += table[g, 255, s]
    return out


@njit(cache=True)
def _pair_pvalues(null, observed, mid, tol):
    """Upper triangle of one-sided p-values ``P[i, j] = Pr(null_i - null_j >= obs_i - obs_j)``;
    with ``mid`` the ties count one half (mid-p), so that ``P[i, j] + P[j, i] = 1``.

    ``null`` is systems x permutations.  Differences are taken in the arrays' own precision, as
    the reference does; null values within ``tol`` of the observed one count as ties.
    """
    n_systems, n_perm = null.shape
    out = np.full((n_systems, n_systems), np.nan)
    for i in range(n_systems):
        for j in range(i + 1, n_systems):
            obs = observed[i] - observed[j]
            at_least = 0  # counted without branches, so that the loop vectorises
            above = 0
            for k in range(n_perm):
                d = null[i, k] - null[j, k]
                at_least += d >= obs - tol
                above += d > obs + tol
            if mid:
                out[i, j] = (above + 0.5 * (at_least - above)) / n_perm
            else:
                out[i, j] = at_least / n_perm
    return out


@njit(cache=True)
def _uniform_to_signs(uniform):
    """mt-metrics-eval's signs from its float32 uniforms, in place: ``2 * rint(u) - 1`` (+1 iff
    u > 0.5, rint rounding 0.5 down to 0); branch-free, the signs are coin flips.
    """
    n_perm, n_segments = uniform.shape
    for k in range(n_perm):
        for l in range(n_segments):
            uniform[k, l] = 2.0 * np.float32(uniform[k, l] > 0.5) - 1.0


@njit(cache=True)
def _pack_signs(signs):
    """A ±1 sign matrix packed as bits (bit b of byte g = segment 8g+b, set = +1)."""
    n_perm, n_segments = signs.shape
    packed = np.zeros((n_perm, (n_segments + 7) // 8), dtype=np.uint8)
    for k in range(n_perm):
        for l in range(n_segments):
            packed[k, l >> 3] |= np.uint8(signs[k, l] > 0) << np.uint8(l & 7)
    return packed


@njit(cache=True)
def _all_patterns(n_segments):
    """Every one of the 2**n sign patterns, packed (for exact enumeration)."""
    n_groups = (n_segments + 7) // 8
    total = 1 << n_segments
    packed = np.zeros((total, n_groups), dtype=np.uint8)
    for k in range(total):
        for g in range(n_groups):
            packed[k, g] = (k >> (8 * g)) & 0xFF
    return packed


# --- PERM-BOTH: statistics of many hybrid metrics at once ---------------------------------------
# Each kernel takes the two metrics ``a`` and ``b`` (systems x segments, z-scored) and a batch of
# packed swap masks (draws x systems x groups of 8 segments, bit set = swap the cell); hybrid
# ``a'`` takes ``b``'s score where the bit is set, ``b'`` the reverse.  Draws run in parallel,
# each alone, so the result does not depend on the thread count.


@njit(cache=True)
def _hybrids(a, b, swap):
    a2 = a.copy()
    b2 = b.copy()
    n_systems, n_segments = a.shape
    for s in range(n_systems):
        for l in range(n_segments):
            if (swap[s, l >> 3] >> (l & 7)) & 1:
                a2[s, l] = b[s, l]
                b2[s, l] = a[s, l]
    return a2, b2


@njit(cache=True)
def _spa_from_upper(human_upper, p):
    n = p.shape[0]
    total = 0.0
    idx = 0
    for i in range(n):
        for j in range(i + 1, n):
            total += abs(human_upper[idx] - p[i, j])
            idx += 1
    return 1.0 - total / idx


@njit(cache=True)
def _subset_sums(diff):
    """``table[s, g, m] = sum of diff[s, 8g + b] over the bits b set in m`` (plain, unsigned)."""
    n_systems, n_segments = diff.shape
    n_groups = (n_segments + 7) // 8
    low = _lowest_bit()
    table = np.zeros((n_systems, n_groups, 256))
    for s in range(n_systems):
        for g in range(n_groups):
            for m in range(1, 256):
                seg = 8 * g + low[m]
                table[s, g, m] = table[s, g, m & (m - 1)] + (diff[s, seg] if seg < n_segments else 0.0)
    return table


def _perm_both_spa_permutation(null_a, obs_a, null_b, obs_b, diff, masks, sign_bits, human_upper, mid, tol):
    """SPA of both hybrids for every draw, without rebuilding any null sum from scratch.

    Moving cell (s, l) from ``a`` to ``b``'s value adds ``d = b - a`` to ``a``'s row; under sign
    pattern k it adds ``sign_kl * d`` to the null sum, i.e. ``2 * [bit_kl] * d - d``.  Over all
    moved cells that is ``2 * (B @ (W * d)) - sum(W * d)`` with ``B`` the K x L sign bits: one
    float64 matrix product for a block of draws (BLAS does in it ~3x the work per second that
    table look-ups do).  ``b``'s hybrid moves by the opposite amount.
    """
    n_draws, n_systems = masks.shape[:2]
    moved = _unpack_bits(masks, diff.shape[1]) * diff  # draws x systems x segments
    moved = moved.reshape(n_draws * n_systems, diff.shape[1])
    shifts = moved @ sign_bits.T  # (draws * systems) x K; sign_bits is float64 0/1
    return _spa_of_hybrids(null_a, obs_a, null_b, obs_b, shifts.reshape(n_draws, n_systems, -1),
                           moved.sum(axis=1).reshape(n_draws, n_systems), human_upper, mid, tol)


def _unpack_bits(packed, n_segments):
    """Packed bytes (..., groups) -> 0/1 float64 (..., n_segments), bit ``l & 7`` of byte ``l >> 3``."""
    return np.unpackbits(packed, axis=-1, bitorder="little")[..., :n_segments].astype(np.float64)


@njit(cache=True, parallel=True)
def _spa_of_hybrids(null_a, obs_a, null_b, obs_b, shifts, moved, human_upper, mid, tol):
    n_draws = shifts.shape[0]
    n_systems, n_perm = null_a.shape
    out_a = np.empty(n_draws)
    out_b = np.empty(n_draws)
    for t in prange(n_draws):
        hyb_a = np.empty((n_systems, n_perm))
        hyb_b = np.empty((n_systems, n_perm))
        ta = obs_a + moved[t]
        tb = obs_b - moved[t]
        for s in range(n_systems):
            for k in range(n_perm):
                shift = 2.0 * shifts[t, s, k] - moved[t, s]
                hyb_a[s, k] = null_a[s, k] + shift
                hyb_b[s, k] = null_b[s, k] - shift
        out_a[t] = _spa_from_upper(human_upper, _pair_pvalues(hyb_a, ta, mid, tol))
        out_b[t] = _spa_from_upper(human_upper, _pair_pvalues(hyb_b, tb, mid, tol))
    return out_a, out_b


@njit(cache=True)
def _normal_upper(x, mid):
    """Normal-limit p-values of every pair, upper triangle in row order: the null of
    ``sum_l s_l d_l`` has mean 0 and variance ``sum_l d_l^2``, so ``p = 1 - Phi(T / sqrt(ss))``.
    Identical systems (``ss = 0``): every null value equals the observed 0.
    """
    return _weighted_normal_upper(x, np.ones(x.shape[1]), mid)


@njit(cache=True)
def _weighted_normal_upper(x, weights, mid):
    """:func:`_normal_upper` of the segments repeated ``weights[l]`` times (a bootstrap sample)."""
    n_systems, n_segments = x.shape
    totals = np.zeros(n_systems)
    for s in range(n_systems):
        for l in range(n_segments):
            totals[s] += weights[l] * x[s, l]
    out = np.empty(n_systems * (n_systems - 1) // 2)
    idx = 0
    for i in range(n_systems):
        for j in range(i + 1, n_systems):
            ss = 0.0
            for l in range(n_segments):
                d = x[i, l] - x[j, l]
                ss += weights[l] * d * d
            obs = totals[i] - totals[j]
            if ss == 0.0:
                out[idx] = 0.5 if mid else 1.0
            else:
                out[idx] = 0.5 * math.erfc(obs / math.sqrt(2.0 * ss))
            idx += 1
    return out


@njit(cache=True, parallel=True)
def _bootstrap_spa_normal(human, metrics, counts, mid):
    """SPA (normal-limit p-values) of every metric on every bootstrap sample of segments;
    ``counts[b, l]``: how often segment l is drawn in sample b.  Returns samples x metrics.
    """
    n_samples = counts.shape[0]
    out = np.empty((n_samples, metrics.shape[0]))
    for b in prange(n_samples):
        weights = counts[b]
        human_upper = _weighted_normal_upper(human, weights, mid)
        for m in range(metrics.shape[0]):
            metric_upper = _weighted_normal_upper(metrics[m], weights, mid)
            out[b, m] = 1.0 - np.mean(np.abs(human_upper - metric_upper))
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


@njit(cache=True, parallel=True)
def _perm_both_spa_normal(a, b, masks, human_upper, mid):
    n_draws = masks.shape[0]
    out_a = np.empty(n_draws)
    out_b = np.empty(n_draws)
    for t in prange(n_draws):
        a2, b2 = _hybrids(a, b, masks[t])
        out_a[t] = 1.0 - np.mean(np.abs(human_upper - _normal_upper(a2, mid)))
        out_b[t] = 1.0 - np.mean(np.abs(human_upper - _normal_upper(b2, mid)))
    return out_a, out_b


@njit(cache=True)
def _pairwise_agreement(human, metric, tol):
    """Pairwise accuracy of system-level vectors: sign agreement, sign(0) = 0; NaN human skipped.
    Metric differences within ``tol`` count as ties (0 = exact, as the reference).
    """
    n = human.shape[0]
    agree = 0
    pairs = 0
    for i in range(n):
        for j in range(i + 1, n):
            if np.isnan(human[i]) or np.isnan(human[j]):
                continue
            pairs += 1
            d = metric[i] - metric[j]
            metric_sign = 0.0 if abs(d) <= tol else np.sign(d)
            if np.sign(human[i] - human[j]) == metric_sign:
                agree += 1
    return agree, pairs


@njit(cache=True, parallel=True)
def _perm_both_pa(sum_a, sum_b, diff_sums, masks, human_sys, tol):
    """Pairwise accuracy of both hybrids' system means: only each system's total moves, by the
    sum of the swapped cells' differences (subset-sum look-ups, 8 cells at a time).
    """
    n_draws = masks.shape[0]
    n_systems, n_groups, _ = diff_sums.shape
    out_a = np.empty(n_draws)
    out_b = np.empty(n_draws)
    for t in prange(n_draws):
        ta = sum_a.copy()
        tb = sum_b.copy()
        for s in range(n_systems):
            moved = 0.0
            for g in range(n_groups):
                moved += diff_sums[s, g, masks[t, s, g]]
            ta[s] += moved
            tb[s] -= moved
        agree_a, pairs = _pairwise_agreement(human_sys, ta, tol)
        agree_b, _ = _pairwise_agreement(human_sys, tb, tol)
        out_a[t] = agree_a / pairs
        out_b[t] = agree_b / pairs
    return out_a, out_b

"""Private numba kernels.  No validation here: the public wrappers check shapes and values.

Sign patterns are stored packed: ``packed[k, g]`` holds, in its bits 0..7, the signs of
segments ``8g .. 8g+7`` in permutation ``k`` (bit set = +1, i.e. keep the pair as observed;
clear = -1, swap the two systems' outputs on that segment).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True)
def _byte_tables(scores):
    """For every group of 8 segments and every one of the 256 sign patterns of that group, the
    signed sum of each system's scores: ``table[g, m, s] = sum_b (+1 if bit b of m else -1) *
    scores[s, 8g + b]``.  Built incrementally, one addition per entry."""
    n_systems, n_segments = scores.shape
    n_groups = (n_segments + 7) // 8
    table = np.zeros((n_groups, 256, n_systems))
    for g in range(n_groups):
        width = min(8, n_segments - 8 * g)
        for s in range(n_systems):
            total = 0.0
            for b in range(width):
                total -= scores[s, 8 * g + b]
            table[g, 0, s] = total
        for m in range(1, 256):
            low = m & -m  # lowest set bit
            b = 0
            while (1 << b) != low:
                b += 1
            prev = m ^ low
            for s in range(n_systems):
                if b < width:
                    table[g, m, s] = table[g, prev, s] + 2.0 * scores[s, 8 * g + b]
                else:  # padding bit beyond the last segment: no effect
                    table[g, m, s] = table[g, prev, s]
    return table


@njit(cache=True, parallel=True)
def _signed_sums(table, packed):
    """``null[s, k] = sum_l sign[k, l] * scores[s, l]`` from the byte tables: one table row per
    8 segments.  Each ``k`` is computed alone, in a fixed order, so the result does not depend
    on the number of threads."""
    n_groups, _, n_systems = table.shape
    n_perm = packed.shape[0]
    null = np.empty((n_systems, n_perm))
    for k in prange(n_perm):
        acc = np.zeros(n_systems)
        for g in range(n_groups):
            row = table[g, packed[k, g]]
            for s in range(n_systems):
                acc[s] += row[s]
        for s in range(n_systems):
            null[s, k] = acc[s]
    return null


@njit(cache=True)
def _observed_sums(table):
    """The signed sums of the identity pattern (all signs +1), accumulated exactly as
    :func:`_signed_sums` would, so that the identity permutation reproduces the observed value
    to the last bit."""
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
    the reference does; null values within ``tol`` of the observed one count as ties."""
    n_systems, n_perm = null.shape
    out = np.full((n_systems, n_systems), np.nan)
    for i in range(n_systems):
        for j in range(i + 1, n_systems):
            obs = observed[i] - observed[j]
            above = 0
            equal = 0
            for k in range(n_perm):
                d = null[i, k] - null[j, k]
                if d > obs + tol:
                    above += 1
                elif d >= obs - tol:
                    equal += 1
            if mid:
                out[i, j] = (above + 0.5 * equal) / n_perm
            else:
                out[i, j] = (above + equal) / n_perm
    return out


@njit(cache=True)
def _pair_sum_of_squares(scores):
    """``ss[i, j] = sum_l (scores[i, l] - scores[j, l])^2``, the variance of the paired
    permutation null of the difference of sums."""
    n_systems, n_segments = scores.shape
    out = np.zeros((n_systems, n_systems))
    for i in range(n_systems):
        for j in range(i + 1, n_systems):
            total = 0.0
            for l in range(n_segments):
                d = scores[i, l] - scores[j, l]
                total += d * d
            out[i, j] = total
            out[j, i] = total
    return out


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

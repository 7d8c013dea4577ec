"""Sign-flip kernels: the paired permutation null of every system pair, its p-values, their
normal approximation, and the one-sample sign-flip test of the pairs test.  No validation here: the
public functions check every argument before calling these.

Sign patterns are stored packed: ``packed[k, g]`` holds, in its bits 0..7, the signs of
segments ``8g .. 8g+7`` in permutation ``k`` (bit set = +1, i.e. keep the pair as observed;
clear = -1, swap the two systems' outputs on that segment).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from spalib._core.extreme import count_extreme


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


@njit(cache=True)
def tie_tolerance(x):
    """How far apart two sums of a row's terms (``x``: rows x terms) may be and still count as
    equal: ``1e-11 * max_s sum_l |x_sl|``, far above the rounding of float64 sums of the sizes
    met here (it grows like sqrt(L) ulps of that bound in practice) and far below any
    difference that matters.  The rows are checked finite before they get here.
    """
    largest = 0.0
    for s in range(x.shape[0]):
        total = 0.0
        for l in range(x.shape[1]):
            total += abs(x[s, l])
        largest = max(largest, total)
    return 1e-11 * largest


MAX_EXACT_PATTERNS = 20  # exact enumeration visits 2**n sign patterns; beyond this, too long

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
            at_least, above = _count_beyond(null[i], null[j], obs - tol, obs + tol)
            out[i, j] = _pvalue(at_least, above, n_perm, mid)
    return out


@njit(cache=True)
def _count_beyond(x, y, low, high):
    """How many ``x - y`` are ``>= low`` and how many ``> high``, counted without branches over
    whole views (so that the loop vectorises, which a loop over a range of indices does not).
    """
    at_least = 0
    above = 0
    for k in range(x.shape[0]):
        d = x[k] - y[k]
        at_least += d >= low
        above += d > high
    return at_least, above


@njit(cache=True)
def _pvalue(at_least, above, n_perm, mid):
    """The p-value from the counts of null values reaching and exceeding the observed one (with
    ``mid``, ties count one half).
    """
    if mid:
        return (above + 0.5 * (at_least - above)) / n_perm
    return at_least / n_perm


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

def _unpack_bits(packed, n_segments):
    """Packed bytes (..., groups) -> 0/1 float64 (..., n_segments), bit ``l & 7`` of byte ``l >> 3``."""
    return np.unpackbits(packed, axis=-1, bitorder="little")[..., :n_segments].astype(np.float64)


@njit(cache=True)
def _normal_upper(x, mid):
    """Normal-limit p-values of every pair, upper triangle in row order: the null of
    ``sum_l s_l d_l`` has mean 0 and variance ``sum_l d_l^2``, so ``p = 1 - Phi(T / sqrt(ss))``.
    Identical systems (``ss = 0``): every null value equals the observed 0.
    """
    return _weighted_normal_upper(x, None, mid)


@njit(cache=True)
def _weighted_normal_upper(x, weights, mid):
    """:func:`_normal_upper` of the segments repeated ``weights[l]`` times (a bootstrap sample);
    ``weights=None``: each segment once.
    """
    n_systems, n_segments = x.shape
    last = n_systems - 1
    totals = np.empty(n_systems)
    for s in range(0, n_systems, 4):   # four systems' running sums at once, as the pairs below
        s1, s2, s3 = min(s + 1, last), min(s + 2, last), min(s + 3, last)
        t0 = t1 = t2 = t3 = 0.0
        for l in range(n_segments):
            if weights is None:
                t0, t1, t2, t3 = t0 + x[s, l], t1 + x[s1, l], t2 + x[s2, l], t3 + x[s3, l]
            else:
                w = weights[l]
                t0, t1, t2, t3 = t0 + w * x[s, l], t1 + w * x[s1, l], t2 + w * x[s2, l], t3 + w * x[s3, l]
        totals[s], totals[s1], totals[s2], totals[s3] = t0, t1, t2, t3
    out = np.empty(n_systems * (n_systems - 1) // 2)
    idx = 0
    for i in range(n_systems):
        # pairs (i, j) four at a time (past the end, the last j again, unused): four running
        # sums that do not wait on each other, each summed in segment order as one alone would be
        for j in range(i + 1, n_systems, 4):
            j1, j2, j3 = min(j + 1, last), min(j + 2, last), min(j + 3, last)
            ss0 = ss1 = ss2 = ss3 = 0.0
            for l in range(n_segments):
                d0, d1, d2, d3 = x[i, l] - x[j, l], x[i, l] - x[j1, l], x[i, l] - x[j2, l], x[i, l] - x[j3, l]
                if weights is None:
                    ss0, ss1, ss2, ss3 = ss0 + d0 * d0, ss1 + d1 * d1, ss2 + d2 * d2, ss3 + d3 * d3
                else:
                    w = weights[l]
                    ss0, ss1, ss2, ss3 = ss0 + w * d0 * d0, ss1 + w * d1 * d1, ss2 + w * d2 * d2, ss3 + w * d3 * d3
            for step, ss in enumerate((ss0, ss1, ss2, ss3)):
                if j + step < n_systems:
                    total = totals[i] - totals[j + step]
                    if ss < _SS_FLOOR:   # (rare) the squares may have underflowed: sum them again, scaled
                        total, ss = _scaled_pair_moments(x, weights, i, j + step)
                    out[idx] = normal_upper_pvalue(total, ss, mid)
                    idx += 1
    return out


_SS_FLOOR = 2.0 ** -900
"""Below this, a pair's sum of squared differences may have lost terms to underflow (differences
under about 1e-154, beside larger scores that the exact rescaling of the whole matrix keeps)."""


@njit(cache=True)
def _scaled_pair_moments(x, weights, i, j):
    """The weighted sum and sum of squares of pair ``(i, j)``'s differences, each difference
    multiplied by the power of two that brings the largest to [0.5, 1): exact, and since a
    normal-approximation p-value depends on ``total / sqrt(ss)`` only, it is the p-value of the same
    pair in any other exactly rescaled copy of the scores.  (0, 0) for identical rows.
    """
    n_segments = x.shape[1]
    largest = 0.0
    for l in range(n_segments):
        largest = max(largest, abs(x[i, l] - x[j, l]))
    if largest == 0.0:
        return 0.0, 0.0
    scale = math.ldexp(1.0, -math.frexp(largest)[1])
    total = 0.0
    ss = 0.0
    for l in range(n_segments):
        d = (x[i, l] - x[j, l]) * scale
        w = 1.0 if weights is None else weights[l]
        total += w * d
        ss += w * d * d
    return total, ss


@njit(cache=True)
def normal_upper_pvalue(total, ss, mid):
    """The normal approximation to a sign-flip test's one-sided p-value: the null of ``sum_l s_l d_l``
    has mean 0 and variance ``ss = sum_l d_l^2``, so ``p = 1 - Phi(total / sqrt(ss))``.  With
    ``ss <= 0`` (0 up to rounding) every flip gives the observed 0: p = 1, or 1/2 with mid-p.
    """
    if ss <= 0.0:
        return 0.5 if mid else 1.0
    return 0.5 * math.erfc(total / math.sqrt(2.0 * ss))


@njit(cache=True)
def _normal_upper_pvalues(totals, squares, mid):
    out = np.empty(totals.size)
    for k in range(totals.size):
        out[k] = normal_upper_pvalue(totals[k], squares[k], mid)
    return out


def normal_upper_pvalues(totals, squares, mid: bool) -> np.ndarray:
    """:func:`normal_upper_pvalue` of arrays of any shape (sums and sums of squares alike)."""
    totals = np.asarray(totals, dtype=float)
    if np.shape(squares) != totals.shape:   # the kernel reads both element by element
        raise ValueError(f"sums of shape {totals.shape} and sums of squares of shape {np.shape(squares)}")
    flat = _normal_upper_pvalues(np.ascontiguousarray(totals).ravel(),
                                 np.ascontiguousarray(squares, dtype=float).ravel(), mid)
    return flat.reshape(totals.shape)


def random_patterns(n_resamples: int, n_segments: int, rng: np.random.Generator) -> np.ndarray:
    """``n_resamples`` random sign patterns over ``n_segments``, packed eight per byte (``"bits"``)."""
    return rng.integers(0, 256, size=(n_resamples, (n_segments + 7) // 8), dtype=np.uint8)


def sign_flip(values: np.ndarray):
    """A one-sample sign-flip test of ``values``: the observed sum ``sum_l v_l``, its tie tolerance,
    and ``null(packed)``, the sums ``sum_l s_l v_l`` under packed sign patterns (those the paired
    test of ``[values, 0]`` would use give its very null: the zero row adds nothing).
    """
    x = values[None, :]
    table = _byte_tables(x)
    return float(_observed_sums(table)[0]), tie_tolerance(x), lambda packed: _signed_sums(table, packed)[0]


def pairs_null(agree1, agree2, weight, scale, n_resamples, rng, exact, alternative) -> tuple[np.ndarray, float]:
    """The pairs test's null draws of ``stat1 - stat2`` and its p-value, from each pair's agreement
    with the human preference under both metrics (pairs whose correctness is the same under both
    add nothing and are left out).
    """
    diffs = (agree1 - agree2) * weight
    informative = diffs[diffs != 0]
    if informative.size == 0:
        # the verdicts never differ in correctness: every draw ties the observed 0
        return np.zeros(1 if exact else n_resamples), 1.0
    if exact and informative.size > MAX_EXACT_PATTERNS:
        raise ValueError(f"method='exact' enumerates 2**n sign patterns; n = {informative.size} informative "
                         f"pairs is over the limit of {MAX_EXACT_PATTERNS}")
    observed, tol, null_of = sign_flip(scale * informative)
    n = informative.size
    null = null_of(_all_patterns(n) if exact else random_patterns(n_resamples, n, rng))
    return null, count_extreme(null, observed, tol, alternative) / null.size

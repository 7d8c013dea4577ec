"""Private numba kernels for pairwise rank statistics (Kendall variants, tie calibration)."""

from __future__ import annotations

import numpy as np
from numba import njit

from spalib._core.rng import GOLDEN, mix64

# Pair classes: concordant, discordant, tied in the human scores only, in the metric only, in both.
C, D, TH, TM, THM = 0, 1, 2, 3, 4


@njit(cache=True)
def _count_inversions(values):
    """Number of pairs i < j with values[i] > values[j] (strict), by merge sort: O(n log n)."""
    n = values.shape[0]
    buf = values.copy()
    tmp = np.empty_like(buf)
    inversions = 0
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if buf[j] < buf[i]:
                    tmp[k] = buf[j]
                    inversions += mid - i
                    j += 1
                else:
                    tmp[k] = buf[i]
                    i += 1
                k += 1
            while i < mid:
                tmp[k] = buf[i]
                i += 1
                k += 1
            while j < hi:
                tmp[k] = buf[j]
                j += 1
                k += 1
        buf, tmp = tmp, buf
        width *= 2
    return inversions


@njit(cache=True)
def _tied_pairs(sorted_values):
    """Sum over runs of equal values of k(k-1)/2 (input sorted)."""
    total = 0
    run = 1
    for i in range(1, sorted_values.shape[0]):
        if sorted_values[i] == sorted_values[i - 1]:
            run += 1
        else:
            total += run * (run - 1) // 2
            run = 1
    return total + run * (run - 1) // 2


@njit(cache=True)
def _pair_counts_sorted(hs, ms):
    """(C, D, T_h, T_m, T_hm) with exact ties, in O(n log n) (Knight's algorithm), from scores
    sorted by human score, then by metric score (numba has no lexsort: the caller sorts).
    """
    n = hs.shape[0]
    tied_h = _tied_pairs(hs)
    tied_hm = 0
    run = 1
    for i in range(1, n):
        if hs[i] == hs[i - 1] and ms[i] == ms[i - 1]:
            run += 1
        else:
            tied_hm += run * (run - 1) // 2
            run = 1
    tied_hm += run * (run - 1) // 2
    tied_m = _tied_pairs(np.sort(ms))
    # Sorted by (h, m), a strict inversion in m is a pair with h_i <= h_j and m_i > m_j; pairs tied
    # in h are sorted by m, so they are never inversions: what is left are discordant pairs.
    discordant = _count_inversions(ms)
    total = n * (n - 1) // 2
    th = tied_h - tied_hm
    tm = tied_m - tied_hm
    concordant = total - discordant - th - tm - tied_hm
    return concordant, discordant, th, tm, tied_hm


@njit(cache=True)
def _pair_counts_epsilon(h, m, epsilon):
    """(C, D, T_h, T_m, T_hm) where a metric pair is tied iff |m_a - m_b| <= epsilon: O(n^2)."""
    n = h.shape[0]
    counts = np.zeros(5, dtype=np.int64)
    for i in range(n):
        for j in range(i + 1, n):
            dh = h[i] - h[j]
            dm = m[i] - m[j]
            metric_tie = abs(dm) <= epsilon
            if dh == 0:
                counts[THM if metric_tie else TH] += 1
            elif metric_tie:
                counts[TM] += 1
            elif (dh > 0) == (dm > 0):
                counts[C] += 1
            else:
                counts[D] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


@njit(cache=True)
def _kendall_like_counts(h, m, threshold):
    """WMT DARR "Kendall-like": pairs whose human scores differ by at least ``threshold`` (and
    are not tied); concordant iff the metric orders them the same way strictly.
    """
    n = h.shape[0]
    concordant = 0
    discordant = 0
    for i in range(n):
        for j in range(i + 1, n):
            dh = h[i] - h[j]
            if dh == 0 or abs(dh) < threshold:
                continue
            dm = m[i] - m[j]
            if (dh > 0 and dm > 0) or (dh < 0 and dm < 0):
                concordant += 1
            else:
                discordant += 1
    return concordant, discordant


# A calibration pair's code: group << CODE_SHIFT | class with exact ties << 3 | class when tied.
CODE_SHIFT = 6


@njit(cache=True)
def _calibration_pairs(h, m, group_starts, seed, sample_rate, capacity):
    """All within-group pairs (cells are contiguous per group) kept with probability
    ``sample_rate``, in enumeration order: each pair's |metric difference| and its code (group,
    class with the exact ties, and the class the pair moves to when the metric calls it a tie).

    Pair ``q`` (in enumeration order) is kept when its counter-based uniform, drawn from ``seed``
    and ``q``, is below ``sample_rate``.  ``capacity`` is the caller's guess of the number kept
    (a few standard deviations above its mean): the arrays double should it be passed.
    """
    delta = np.empty(capacity)
    code = np.empty(capacity, dtype=np.int64)
    p = 0
    q = np.uint64(0)
    for g in range(group_starts.shape[0] - 1):
        for i in range(group_starts[g], group_starts[g + 1]):
            for j in range(i + 1, group_starts[g + 1]):
                q += np.uint64(1)
                if sample_rate < 1.0 and (mix64(seed + q * GOLDEN) >> np.uint64(11)) * 2.0 ** -53 >= sample_rate:
                    continue
                if p == delta.shape[0]:
                    delta = np.concatenate((delta, np.empty(delta.shape[0] + 1)))
                    code = np.concatenate((code, np.empty(code.shape[0] + 1, dtype=np.int64)))
                dh = h[i] - h[j]
                dm = m[i] - m[j]
                delta[p] = abs(dm)
                if dh == 0:
                    base, tied = (THM if dm == 0 else TH), THM
                else:
                    base, tied = (TM if dm == 0 else (C if (dh > 0) == (dm > 0) else D)), TM
                code[p] = (g << CODE_SHIFT) | (base << 3) | tied
                p += 1
    return delta[:p], code[:p]


@njit(cache=True)
def _group_value(counts, objective):
    total = counts[C] + counts[D] + counts[TH] + counts[TM] + counts[THM]
    if objective == 0:  # acc_eq
        return (counts[C] + counts[THM]) / total
    return (counts[C] + counts[THM] - counts[D] - counts[TH] - counts[TM]) / total  # tau_eq


_DIGIT_BITS = 11


@njit(cache=True)
def _sorted_by_difference(delta, code):
    """``delta`` and ``code`` in the stable ascending order of ``delta`` (non-negative floats: the
    order ``argsort(kind="stable")`` gives), by a least-significant-digit radix sort of their bit
    patterns, which order non-negative floats as the floats themselves, moving both arrays in
    every pass: O(n) against the merge sort's O(n log n), and no look-up out of order
    afterwards, for the calibration's tens of millions of pairs.  The passes alternate between
    the inputs and one buffer each: the inputs are overwritten.
    """
    keys = delta.view(np.uint64)
    n = keys.shape[0]
    n_digits = 1 << _DIGIT_BITS
    n_passes = (64 + _DIGIT_BITS - 1) // _DIGIT_BITS
    mask = np.uint64(n_digits - 1)
    histograms = np.zeros((n_passes, n_digits), dtype=np.int64)   # of each pass's digit
    for i in range(n):
        for pass_ in range(n_passes):
            histograms[pass_, (keys[i] >> np.uint64(_DIGIT_BITS * pass_)) & mask] += 1
    keys_to, code_to = np.empty_like(keys), np.empty_like(code)
    offsets = np.empty(n_digits, dtype=np.int64)
    for pass_ in range(n_passes):
        if histograms[pass_].max() == n:  # one digit value for all: this pass would move nothing
            continue
        shift = np.uint64(_DIGIT_BITS * pass_)
        total = 0
        for digit in range(n_digits):
            offsets[digit] = total
            total += histograms[pass_, digit]
        for i in range(n):
            digit = (keys[i] >> shift) & mask
            keys_to[offsets[digit]] = keys[i]
            code_to[offsets[digit]] = code[i]
            offsets[digit] += 1
        keys, keys_to = keys_to, keys
        code, code_to = code_to, code
    return keys.view(np.float64), code


@njit(cache=True)
def _calibration_curve(delta, code, n_groups, objective):
    """Statistic as a function of epsilon: candidates are 0 and every distinct |difference|.
    Moving pairs into their tie class one at a time in order of |difference| keeps a running
    sum of the per-group statistics, so the whole curve costs O(P) after an O(P) sort.
    Overwrites ``delta`` and ``code``.
    """
    counts = np.zeros((n_groups, 5), dtype=np.int64)
    has_pairs = np.zeros(n_groups, dtype=np.bool_)
    for p in range(code.shape[0]):
        counts[code[p] >> CODE_SHIFT, (code[p] >> 3) & 7] += 1
        has_pairs[code[p] >> CODE_SHIFT] = True
    n_used = 0
    running = 0.0
    values = np.zeros(n_groups)
    for g in range(n_groups):
        if has_pairs[g]:
            values[g] = _group_value(counts[g], objective)
            running += values[g]
            n_used += 1
    delta, code = _sorted_by_difference(delta, code)  # (the caller's arrays are overwritten)
    epsilons = np.empty(delta.shape[0] + 1)
    curve = np.empty(delta.shape[0] + 1)
    epsilons[0] = 0.0
    curve[0] = running / n_used if n_used else 0.0
    size = 1
    for p in range(delta.shape[0]):
        g = code[p] >> CODE_SHIFT
        base = (code[p] >> 3) & 7
        tied = code[p] & 7
        if base != tied:
            counts[g, base] -= 1
            counts[g, tied] += 1
            new = _group_value(counts[g], objective)
            running += new - values[g]
            values[g] = new
        value = running / n_used
        if delta[p] == epsilons[size - 1]:
            curve[size - 1] = value
        else:
            epsilons[size] = delta[p]
            curve[size] = value
            size += 1
    return epsilons[:size], curve[:size]


@njit(cache=True)
def _pair_agreements(h, m, group_starts, eps):
    """For every within-group pair, in group order: 1.0 when the metric's pairwise preference (a
    tie within ``eps``) equals the human one, else 0.0; and ``1 / (pairs in the group)``.
    """
    n_groups = group_starts.shape[0] - 1
    total = 0
    for g in range(n_groups):
        k = group_starts[g + 1] - group_starts[g]
        total += k * (k - 1) // 2
    agree = np.zeros(total)
    weight = np.zeros(total)
    p = 0
    for g in range(n_groups):
        k = group_starts[g + 1] - group_starts[g]
        w = 1.0 / (k * (k - 1) // 2) if k > 1 else 0.0
        for i in range(group_starts[g], group_starts[g + 1]):
            for j in range(i + 1, group_starts[g + 1]):
                d = m[i] - m[j]
                s = 0.0 if abs(d) <= eps else np.sign(d)
                agree[p] = 1.0 if s == np.sign(h[i] - h[j]) else 0.0
                weight[p] = w
                p += 1
    return agree, weight

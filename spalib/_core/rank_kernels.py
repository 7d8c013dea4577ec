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


@njit(cache=True)
def _calibration_pairs(h, m, group_starts, seed, sample_rate):
    """All within-group pairs (cells are contiguous per group) kept with probability
    ``sample_rate``: returns group index, |metric difference|, class with the exact ties, and
    the class the pair moves to when the metric calls it a tie.

    Pair ``q`` (in enumeration order) is kept when its counter-based uniform, drawn from ``seed``
    and ``q``, is below ``sample_rate``: the sample is decided before any pair is stored, so the
    memory is that of the kept pairs only.
    """
    n_kept = _enumerate_pairs(h, m, group_starts, seed, sample_rate, np.empty(0, dtype=np.int64), np.empty(0),
                              np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), False)
    group = np.empty(n_kept, dtype=np.int64)
    delta = np.empty(n_kept)
    base = np.empty(n_kept, dtype=np.int64)
    tied = np.empty(n_kept, dtype=np.int64)
    _enumerate_pairs(h, m, group_starts, seed, sample_rate, group, delta, base, tied, True)
    return group, delta, base, tied


@njit(cache=True)
def _enumerate_pairs(h, m, group_starts, seed, sample_rate, group, delta, base, tied, store):
    p = 0
    q = np.uint64(0)
    for g in range(group_starts.shape[0] - 1):
        for i in range(group_starts[g], group_starts[g + 1]):
            for j in range(i + 1, group_starts[g + 1]):
                q += np.uint64(1)
                if sample_rate < 1.0 and (mix64(seed + q * GOLDEN) >> np.uint64(11)) * 2.0 ** -53 >= sample_rate:
                    continue
                if store:
                    dh = h[i] - h[j]
                    dm = m[i] - m[j]
                    group[p] = g
                    delta[p] = abs(dm)
                    if dh == 0:
                        base[p] = THM if dm == 0 else TH
                        tied[p] = THM
                    else:
                        base[p] = TM if dm == 0 else (C if (dh > 0) == (dm > 0) else D)
                        tied[p] = TM
                p += 1
    return p


@njit(cache=True)
def _group_value(counts, objective):
    total = counts[C] + counts[D] + counts[TH] + counts[TM] + counts[THM]
    if objective == 0:  # acc_eq
        return (counts[C] + counts[THM]) / total
    return (counts[C] + counts[THM] - counts[D] - counts[TH] - counts[TM]) / total  # tau_eq


@njit(cache=True)
def _stable_order(values):
    """The stable ascending order of non-negative floats (what ``argsort(kind="stable")`` gives),
    by a least-significant-digit radix sort of their bit patterns, which order non-negative floats
    as the floats themselves: O(n) against the merge sort's O(n log n), for the calibration's
    hundreds of thousands of pairs.
    """
    keys = values.view(np.uint64)
    n = keys.shape[0]
    order = np.arange(n)
    moved = np.empty(n, dtype=np.int64)
    offsets = np.empty(65537, dtype=np.int64)
    for pass_ in range(4):
        shift = np.uint64(16 * pass_)
        offsets[:] = 0
        for i in range(n):
            offsets[((keys[i] >> shift) & np.uint64(0xFFFF)) + 1] += 1
        if offsets.max() == n:  # one digit value for all: this pass would move nothing
            continue
        for digit in range(65536):
            offsets[digit + 1] += offsets[digit]
        for i in range(n):
            digit = (keys[order[i]] >> shift) & np.uint64(0xFFFF)
            moved[offsets[digit]] = order[i]
            offsets[digit] += 1
        order, moved = moved, order
    return order


@njit(cache=True)
def _calibration_curve(group, delta, base, tied, n_groups, objective):
    """Statistic as a function of epsilon: candidates are 0 and every distinct |difference|.
    Moving pairs into their tie class one at a time in order of |difference| keeps a running
    sum of the per-group statistics, so the whole curve costs O(P log P).
    """
    counts = np.zeros((n_groups, 5), dtype=np.int64)
    has_pairs = np.zeros(n_groups, dtype=np.bool_)
    for p in range(group.shape[0]):
        counts[group[p], base[p]] += 1
        has_pairs[group[p]] = True
    n_used = 0
    running = 0.0
    values = np.zeros(n_groups)
    for g in range(n_groups):
        if has_pairs[g]:
            values[g] = _group_value(counts[g], objective)
            running += values[g]
            n_used += 1
    order = _stable_order(delta)
    epsilons = np.empty(delta.shape[0] + 1)
    curve = np.empty(delta.shape[0] + 1)
    epsilons[0] = 0.0
    curve[0] = running / n_used if n_used else 0.0
    size = 1
    for idx in order:
        g = group[idx]
        if base[idx] != tied[idx]:
            counts[g, base[idx]] -= 1
            counts[g, tied[idx]] += 1
            new = _group_value(counts[g], objective)
            running += new - values[g]
            values[g] = new
        value = running / n_used
        if delta[idx] == epsilons[size - 1]:
            curve[size - 1] = value
        else:
            epsilons[size] = delta[idx]
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

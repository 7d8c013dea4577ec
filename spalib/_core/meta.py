"""The meta-metrics' kernels: SPA from p-value matrices, pairwise agreement, Pearson's r and the
pairwise difference Pearson correlation.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spalib._core.validation import rescaled


def zscored(m: np.ndarray) -> np.ndarray:
    """A metric z-scored over all its cells (after an exact rescaling of huge or tiny scores), as
    the PERM draws swap it.
    """
    m = rescaled(m)
    sd = m.std()
    return (m - m.mean()) / sd if sd > 0 else m - m.mean()


@njit(cache=True)
def spa_of_uppers(human_upper, metric_upper):
    """SPA, ``1 - mean |P^h - P^m|``, from the upper triangles of two p-value matrices
    (Thompson et al. 2024, eq. 1): the one SPA of the library and its kernels, its mean summed as
    numpy sums (so equal to mt-metrics-eval's ``1 - np.mean(np.abs(...))`` to the last bit).
    """
    n = human_upper.shape[0]
    return 1.0 - _pairwise_abs_difference_sum(human_upper, metric_upper, 0, n) / n


@njit(cache=True)
def _pairwise_abs_difference_sum(x, y, start, n):
    """``sum |x_i - y_i|`` over ``start .. start + n - 1`` by numpy's pairwise summation (its
    ``pairwise_sum``): a block of at most 128 terms alone, a longer run as the sum of its two
    halves (the first a multiple of 8 terms long), each summed the same way.  The halves are
    walked with a stack, not by recursion: numba crashes loading a cached recursive function.
    """
    if n <= 128:
        return _block_abs_difference_sum(x, y, start, n)
    starts = np.empty(64, dtype=np.int64)   # pending runs; each level halves a run's length
    sizes = np.empty(64, dtype=np.int64)
    halves_done = np.zeros(64, dtype=np.int64)
    sums = np.empty(64)
    starts[0], sizes[0], top, n_sums = start, n, 1, 0
    while top:
        s, m = starts[top - 1], sizes[top - 1]
        if m <= 128:
            sums[n_sums] = _block_abs_difference_sum(x, y, s, m)
            n_sums += 1
            top -= 1
            continue
        half = m // 2 - (m // 2) % 8
        if halves_done[top - 1] == 2:   # both halves summed: their sum replaces them
            sums[n_sums - 2] += sums[n_sums - 1]
            n_sums -= 1
            top -= 1
            continue
        first = halves_done[top - 1] == 0
        halves_done[top - 1] += 1
        starts[top], sizes[top], halves_done[top] = (s, half, 0) if first else (s + half, m - half, 0)
        top += 1
    return sums[0]


@njit(cache=True)
def _block_abs_difference_sum(x, y, start, n):
    """A block of at most 128 terms summed as numpy sums it: in order below 8 terms, else eight
    running sums combined as a tree, then the terms past the last whole eight in order.
    """
    if n < 8:
        total = 0.0
        for i in range(start, start + n):
            total += abs(x[i] - y[i])
        return total
    d = x[start:start + n]
    e = y[start:start + n]
    r0, r1, r2, r3 = abs(d[0] - e[0]), abs(d[1] - e[1]), abs(d[2] - e[2]), abs(d[3] - e[3])
    r4, r5, r6, r7 = abs(d[4] - e[4]), abs(d[5] - e[5]), abs(d[6] - e[6]), abs(d[7] - e[7])
    whole = n - n % 8
    for i in range(8, whole, 8):
        r0, r1 = r0 + abs(d[i] - e[i]), r1 + abs(d[i + 1] - e[i + 1])
        r2, r3 = r2 + abs(d[i + 2] - e[i + 2]), r3 + abs(d[i + 3] - e[i + 3])
        r4, r5 = r4 + abs(d[i + 4] - e[i + 4]), r5 + abs(d[i + 5] - e[i + 5])
        r6, r7 = r6 + abs(d[i + 6] - e[i + 6]), r7 + abs(d[i + 7] - e[i + 7])
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(whole, n):
        total += abs(d[i] - e[i])
    return total


@njit(cache=True)
def spa_of_rows(human_upper, metric_uppers):
    """:func:`spa_of_uppers` of every row of ``metric_uppers`` (draws x pairs)."""
    out = np.empty(metric_uppers.shape[0])
    for row in range(metric_uppers.shape[0]):
        out[row] = spa_of_uppers(human_upper, metric_uppers[row])
    return out


@njit(cache=True)
def spa_from_matrix(human_upper, p):
    """:func:`spa_of_uppers` of a full metric p-value matrix ``p`` (its upper triangle)."""
    n = p.shape[0]
    upper = np.empty(n * (n - 1) // 2)
    idx = 0
    for i in range(n):
        for j in range(i + 1, n):
            upper[idx] = p[i, j]
            idx += 1
    return spa_of_uppers(human_upper, upper)


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


@njit(cache=True)
def pdp_sums(human, metric):
    """The three sums of the pairwise difference Pearson correlation (PDP), each column a group
    (systems x segments: a segment; transposed: a system): ``sum_g n_g sum_s hc_sg mc_sg`` and the
    two sums of squares, where ``hc``, ``mc`` are the scores centred on the group's mean over the
    cells with a human score (NaN: none) and ``n_g`` their number.  Over all pairs ``i < j`` of a
    group, ``sum (h_i - h_j)(m_i - m_j) = n sum (h_i - mean h)(m_i - mean m)``: the pairs'
    differences are summed in ``O(n)``, not ``O(n**2)``.  A group whose scores are all equal
    adds exactly 0 (its mean, rounded, need not equal them).
    """
    n_rows, n_cols = human.shape
    cross = 0.0
    human_squares = 0.0
    metric_squares = 0.0
    for g in range(n_cols):
        n = 0
        h_mean = 0.0
        m_mean = 0.0
        h_first = np.nan
        m_first = np.nan
        h_same = True
        m_same = True
        for s in range(n_rows):
            if not np.isnan(human[s, g]):
                if n == 0:
                    h_first, m_first = human[s, g], metric[s, g]
                h_same = h_same and human[s, g] == h_first
                m_same = m_same and metric[s, g] == m_first
                n += 1
                h_mean += human[s, g]
                m_mean += metric[s, g]
        if n < 2:
            continue
        h_mean /= n
        m_mean /= n
        c = 0.0
        hh = 0.0
        mm = 0.0
        for s in range(n_rows):
            if not np.isnan(human[s, g]):
                dh = 0.0 if h_same else human[s, g] - h_mean
                dm = 0.0 if m_same else metric[s, g] - m_mean
                c += dh * dm
                hh += dh * dh
                mm += dm * dm
        cross += n * c
        human_squares += n * hh
        metric_squares += n * mm
    return cross, human_squares, metric_squares


@njit(cache=True)
def pdp_of_columns(human, metric):
    """PDP with the groups in the columns (:func:`pdp_sums`); NaN when either side is constant
    within every group.
    """
    cross, hh, mm = pdp_sums(human, metric)
    if hh <= 0.0 or mm <= 0.0:
        return np.nan
    return cross / np.sqrt(hh * mm)


def constant_groups(x: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Which groups' values are all equal (judged on the values: their rounded mean may be a hair
    off them, so a centred constant group need not be exactly 0).
    """
    order = np.argsort(group, kind="stable")
    starts = np.searchsorted(group[order], np.arange(n_groups))
    return np.maximum.reduceat(x[order], starts) == np.minimum.reduceat(x[order], starts)


def group_centred(x: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Each value less the mean of its group (``group``: each value's group)."""
    return x - (np.bincount(group, x, n_groups) / np.bincount(group, minlength=n_groups))[group]


def grouped_pearson(human: np.ndarray, metric: np.ndarray, group: np.ndarray, n_groups: int) -> float:
    """Mean over the groups of Pearson's r of the cells of each (``group``: each cell's group),
    groups where either side is constant left out (mt-metrics-eval's averaging); NaN if all are.
    """
    h, m = group_centred(human, group, n_groups), group_centred(metric, group, n_groups)
    cross = np.bincount(group, h * m, n_groups)
    squares = np.bincount(group, h * h, n_groups) * np.bincount(group, m * m, n_groups)
    valid = ~constant_groups(human, group, n_groups) & ~constant_groups(metric, group, n_groups)
    return float(np.mean(cross[valid] / np.sqrt(squares[valid]))) if valid.any() else np.nan


def pearson_of_sums(sums: np.ndarray, sizes: np.ndarray, human_squares: np.ndarray) -> np.ndarray:
    """The mean over groups of Pearson's r of each row's scores, from each group's sum, sum of
    squares and cross sum with the human scores centred in the group (``sums``: rows x groups x
    3), with ``sizes`` cells; groups whose scores are constant (a variance within rounding of 0)
    or whose human scores are (``human_squares`` 0) left out, as in :func:`grouped_pearson`.
    """
    total, squares, cross = sums[..., 0], sums[..., 1], sums[..., 2]
    spread = squares - total * total / sizes
    valid = (spread > 1e-12 * np.abs(squares)) & (human_squares > 0)
    r = np.where(valid, cross / np.sqrt(np.where(valid, human_squares * spread, 1.0)), 0.0)
    count = valid.sum(axis=-1)
    return np.where(count > 0, r.sum(axis=-1) / np.maximum(count, 1), 0.0)

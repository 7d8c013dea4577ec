"""The two meta-metrics' kernels: SPA from p-value matrices, and pairwise agreement."""

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
    (Thompson et al. 2024, eq. 1), summed in order: every kernel's SPA.
    """
    total = 0.0
    for idx in range(human_upper.shape[0]):
        total += abs(human_upper[idx] - metric_upper[idx])
    return 1.0 - total / human_upper.shape[0]


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

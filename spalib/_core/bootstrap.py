"""Bootstrap kernels: statistics recomputed on segment resamples given as count vectors."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from spalib._core.meta import _pairwise_agreement, spa_of_uppers
from spalib._core.signs import _weighted_normal_upper


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
            out[b, m] = spa_of_uppers(human_upper, metric_upper)
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

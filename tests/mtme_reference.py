"""mt-metrics-eval's paired permutation p-values, restated in plain NumPy (pce.py /
pairwise_paired_permutation_test.py): the yardstick for tests and benchmarks, not for use.
"""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits


def reference_pvalues(scores, seed=4, n_resamples=1000) -> np.ndarray:
    """One float32 sign matrix ``2 * rint(u) - 1`` for all pairs, float32 matmul, ``>=``, no +1.

    The product runs on one BLAS thread, as spalib's: the toolkit's own rounds as BLAS's threads
    split it, which can move a p-value near a tie by 1 / n_resamples."""
    signs = np.random.default_rng(seed).random(size=(n_resamples, scores.shape[1]), dtype=np.float32)
    np.rint(signs, out=signs)
    signs *= 2.0
    signs -= 1.0
    x = np.asarray(scores).astype(np.float32)
    totals = np.sum(x, axis=1)
    with threadpool_limits(1, "blas"):
        partial = np.matmul(signs, x.T)
    i, j = np.triu_indices(len(x), 1)
    out = np.full((len(x), len(x)), np.nan)
    out[i, j] = np.sum(partial[:, i] - partial[:, j] >= totals[i] - totals[j], axis=0) / n_resamples
    return out

"""mt-metrics-eval's paired permutation p-values, restated in plain NumPy (pce.py /
pairwise_paired_permutation_test.py): the yardstick for tests and benchmarks, not for use.
"""

from __future__ import annotations

import numpy as np


def reference_pvalues(scores, seed=4, n_resamples=1000) -> np.ndarray:
    """One float32 sign matrix ``2 * rint(u) - 1`` for all pairs, float32 matmul, ``>=``, no +1."""
    signs = np.random.default_rng(seed).random(size=(n_resamples, scores.shape[1]), dtype=np.float32)
    np.rint(signs, out=signs)
    signs *= 2.0
    signs -= 1.0
    x = np.asarray(scores).astype(np.float32)
    totals = np.sum(x, axis=1)
    partial = np.matmul(signs, x.T)
    i, j = np.triu_indices(len(x), 1)
    out = np.full((len(x), len(x)), np.nan)
    out[i, j] = np.sum(partial[:, i] - partial[:, j] >= totals[i] - totals[j], axis=0) / n_resamples
    return out

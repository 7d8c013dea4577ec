"""All-pairs paired permutation p-values: spalib against plain NumPy and against scipy.

S = 15 systems, L = 1300 segments, K = 1000 permutations (the SPA paper's setting).
Prints the time of each and the ratios; the targets are >= 3x over the NumPy float32 matmul
version of the same algorithm and >= 5,000x per p-value over scipy.stats.permutation_test.
"""

from __future__ import annotations

import timeit

import numpy as np
from scipy import stats

import _setup  # noqa: F401  (first: the threading layer)
import spalib
from mtme_reference import reference_pvalues

S, L, K = 15, 1300, 1000
N_PAIRS = S * (S - 1) // 2


def best(stmt, number, repeat=15):
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number


def main():
    scores = np.random.default_rng(0).normal(size=(S, L)) + np.linspace(0, 0.2, S)[:, None]
    gen = np.random.default_rng(1)
    spalib.pairwise_pvalues(scores, rng=gen)  # compile / load the numba cache before timing
    spalib.pairwise_pvalues(scores, rng=4, signs="mtme")

    t_numpy = best(lambda: reference_pvalues(scores, 4, K), 5)
    t_bits = best(lambda: spalib.pairwise_pvalues(scores, rng=gen), 20)
    t_ref = best(lambda: spalib.pairwise_pvalues(scores, rng=4, signs="mtme"), 5)
    t_normal = best(lambda: spalib.pairwise_pvalues(scores, method="normal"), 20)
    x, y = scores[0], scores[1]
    t_scipy = best(lambda: stats.permutation_test(
        (x, y), lambda a, b, axis: np.mean(a - b, axis=axis), vectorized=True, permutation_type="samples",
        n_resamples=K, alternative="greater", rng=0), 3, repeat=7)

    print(f"all {N_PAIRS} pairs, S={S}, L={L}, K={K}")
    print(f"  NumPy float32 matmul (reference algorithm)    {t_numpy * 1e3:8.2f} ms")
    print(f"  spalib, random-bit signs (Generator rng)       {t_bits * 1e3:8.2f} ms   "
          f"{t_numpy / t_bits:6.1f}x faster than NumPy (target >= 3x)")
    print(f"  spalib, reference signs (signs='mtme')        {t_ref * 1e3:8.2f} ms   {t_numpy / t_ref:6.1f}x")
    print(f"  spalib, normal limit (no resampling)           {t_normal * 1e3:8.2f} ms   {t_numpy / t_normal:6.1f}x")
    per_pvalue = t_bits / N_PAIRS
    print(f"one p-value: scipy.stats.permutation_test {t_scipy * 1e3:.2f} ms, spalib {per_pvalue * 1e6:.2f} us: "
          f"{t_scipy / per_pvalue:,.0f}x (target >= 5,000x)")


if __name__ == "__main__":
    main()

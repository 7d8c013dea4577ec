"""The full WMT23 ranking end to end: 3 language pairs, every standard-reference metric, SPA and PA,
1,000 PERM-BOTH draws per metric pair, SPA from K = 1,000 shared sign patterns, 95% bootstrap
intervals, the averaged ranking.

Prints the time of each part and, per PERM-BOTH draw of one metric pair, spalib's time beside a
NumPy draw the way mt-metrics-eval computes it (both hybrids' and the human p-value matrices
recomputed by float32 matrix products), and their ratio.

    python benchmarks/bench_rank.py                      # WMT's early stopping (blocks of 100)
    python benchmarks/bench_rank.py --no-early-stopping  # all 1,000 draws for every pair
"""

from __future__ import annotations

import argparse
import timeit

import numpy as np
from bench_compare_metrics import numpy_seconds_per_draw, timed

import _setup  # noqa: F401  (first: the threading layer)
import spalib
from spalib import data

LPS = ("en-de", "he-en", "zh-en")


def print_product_floor(tasks, ranking, spa_resamples=1000, block=100):
    """The floor of the SPA draws: each is a float32 product of (systems x segments) swapped
    differences with the (segments x K) sign bits.  Prints its FLOPs over every draw made and the
    time they take at the rate this machine's BLAS reaches on one block of zh-en's shape.
    """
    flops = 0
    for lp, task in tasks.items():
        n_systems, n_segments = task.human.shape
        draws = int(ranking.comparisons[(lp, "spa")].draws.to_numpy().sum())
        flops += 2 * draws * n_systems * 8 * ((n_segments + 7) // 8) * spa_resamples
    n_systems, n_segments = tasks["zh-en"].human.shape
    rng = np.random.default_rng(0)
    moved = rng.random((block * n_systems, 8 * ((n_segments + 7) // 8)), dtype=np.float32)
    bits = rng.integers(0, 2, size=(spa_resamples, moved.shape[1])).astype(np.float32)
    seconds = min(timeit.repeat(lambda: moved @ bits.T, number=1, repeat=10))
    rate = 2 * moved.shape[0] * moved.shape[1] * spa_resamples / seconds
    print(f"  the SPA draws' sign products alone: {flops / 1e12:.1f} TFLOP, {flops / rate:.0f} s at the "
          f"{rate / 1e9:.0f} GFLOP/s this machine's BLAS reaches on a block of zh-en's shape")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-early-stopping", action="store_true")
    args = parser.parse_args()
    stopping = None if args.no_early_stopping else spalib.WMT_EARLY_STOPPING

    tasks, t_load = timed("load WMT23 en-de, he-en, zh-en (segment_task)",
                          lambda: {lp: data.segment_task(data.load_mtme("wmt23", lp), basenames=True) for lp in LPS})
    for lp, task in tasks.items():
        print(f"    {lp}: {task.human.shape[0]} systems, {task.human.shape[1]} segments, {len(task.metrics)} metrics")
    few = {lp: (t.human, {m: t.metrics[m] for m in ("BLEU", "COMET")}) for lp, t in tasks.items()}
    spalib.rank_metrics(few, n_resamples=5, spa_resamples=10, interval_resamples=5, rng=4, signs="mtme")  # compile

    ranking, t_rank = timed("rank_metrics: SPA and PA, k = 1,000, K = 1,000, intervals, average",
                            lambda: spalib.rank_metrics(tasks, meta_metrics=("spa", "pa"), n_resamples=1000,
                                                        spa_resamples=1000, rng=4, signs="mtme",
                                                        early_stopping=stopping, progress=True))
    spa_draws = sum(int(ranking.comparisons[(lp, "spa")].draws.to_numpy().sum()) for lp in LPS)
    print(f"  total {t_load + t_rank:.1f} s (issue 21's goal: 60 s); {spa_draws:,} SPA PERM-BOTH draws "
          f"({'WMT early stopping' if stopping else 'no early stopping'})")

    print_product_floor(tasks, ranking)
    task = tasks["en-de"]
    h, a, b = task.human.to_numpy(), *(m.to_numpy() for m in list(task.metrics.values())[:2])
    per_draw_numpy = numpy_seconds_per_draw(h, a, b)
    two = {"en-de": (task.human, dict(list(task.metrics.items())[:2]))}
    _, t_pair = timed("spalib, 1,000 SPA draws of one en-de pair",
                      lambda: spalib.rank_metrics(two, meta_metrics="spa", n_resamples=1000, rng=4, signs="mtme",
                                                  interval_resamples=0))
    print(f"per draw: NumPy {1e3 * per_draw_numpy:.2f} ms, spalib {1e3 * t_pair / 1000:.3f} ms "
          f"-> {per_draw_numpy / (t_pair / 1000):.0f}x")
    print(ranking.to_string("text")[:1200])


if __name__ == "__main__":
    main()

"""Significance of metric differences for one language pair: WMT23 en-de, 25 metrics, 12 systems,
460 segments, 300 metric pairs, 1,000 PERM-BOTH draws per pair, SPA with K = 1,000.

Times spalib's compare_metrics with SPA from permutation p-values (all draws, and with WMT's
early stopping) and from their normal limit (and PA), and one PERM-BOTH draw the way
mt-metrics-eval computes it (NumPy: both hybrids' and the human p-value matrices recomputed by
float32 matmul in every draw), and prints the ratios.
"""

from __future__ import annotations

import time
import timeit

import numpy as np

import _setup  # noqa: F401  (first: the threading layer)
import spalib
from spalib import data
from mtme_reference import reference_pvalues

K = 1000


def numpy_perm_both_draw(human, a, b, rng):
    swap = rng.random(a.shape) < 0.5
    a2, b2 = np.where(swap, b, a), np.where(swap, a, b)
    upper = np.triu_indices(len(human), 1)
    ph = reference_pvalues(human, 4, K)[upper]
    return (1 - np.mean(np.abs(ph - reference_pvalues(a2, 4, K)[upper])),
            1 - np.mean(np.abs(ph - reference_pvalues(b2, 4, K)[upper])))


def numpy_seconds_per_draw(human, a, b, n_draws=20, repeats=5):
    """The median over ``repeats`` runs of ``n_draws`` NumPy draws, per draw (one run varies
    by a factor of two with what the machine did just before).
    """
    rng = np.random.default_rng(0)
    runs = [run / n_draws for run in timeit.repeat(lambda: numpy_perm_both_draw(human, a, b, rng),
                                                   number=n_draws, repeat=repeats)]
    seconds = float(np.median(runs))
    print(f"  NumPy, mt-metrics-eval style: {repeats} runs of {n_draws} draws of one pair, median "
          f"{1e3 * seconds:.2f} ms a draw (runs {1e3 * min(runs):.2f}-{1e3 * max(runs):.2f} ms)", flush=True)
    return seconds


def timed(label, fn):
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    print(f"  {label:58s} {seconds:8.2f} s", flush=True)
    return result, seconds


def main():
    task = data.segment_task(data.load_mtme("wmt23", "en-de"))
    human, metrics = task.human, task.metrics
    n_pairs = len(metrics) * (len(metrics) - 1) // 2
    print(f"WMT23 en-de: {len(metrics)} metrics ({n_pairs} pairs), {human.shape[0]} systems, "
          f"{human.shape[1]} segments, 1,000 draws per pair")
    few = dict(list(metrics.items())[:3])
    for kw in (dict(meta_metric="pa"), dict(spa_method="normal"), dict(spa_method="permutation")):
        spalib.compare_metrics(human, few, rng=4, signs="mtme", n_resamples=10, **kw)  # compile before timing

    _, t_pa = timed("spalib PA", lambda: spalib.compare_metrics(human, metrics, meta_metric="pa", rng=4, signs="mtme"))
    _, t_normal = timed("spalib SPA, normal-limit p-values", lambda: spalib.compare_metrics(
        human, metrics, spa_method="normal", rng=4, signs="mtme"))
    _, t_perm = timed("spalib SPA, permutation p-values (K = 1,000)", lambda: spalib.compare_metrics(
        human, metrics, spa_method="permutation", rng=4, signs="mtme"))
    stopped, t_stopped = timed("the same with WMT's early stopping", lambda: spalib.compare_metrics(
        human, metrics, spa_method="permutation", rng=4, signs="mtme", early_stopping=spalib.WMT_EARLY_STOPPING))

    h, a, b = human.to_numpy(), *(m.to_numpy() for m in list(metrics.values())[:2])
    per_draw_numpy = numpy_seconds_per_draw(h, a, b)
    total_draws = n_pairs * 1000
    print(f"per draw: NumPy {per_draw_numpy * 1e3:.2f} ms; spalib permutation {t_perm / total_draws * 1e3:.3f} ms "
          f"({per_draw_numpy * total_draws / t_perm:,.0f}x), normal {t_normal / total_draws * 1e3:.4f} ms "
          f"({per_draw_numpy * total_draws / t_normal:,.0f}x)")
    stopped_draws = int(stopped.draws.to_numpy().sum())
    print(f"with WMT's early stopping: {stopped_draws:,} draws, spalib {t_stopped:.1f} s; NumPy would take "
          f"~{per_draw_numpy * stopped_draws / 60:,.0f} min")
    print(f"whole language pair: NumPy would take ~{per_draw_numpy * total_draws / 60:,.0f} min; "
          f"spalib {t_perm:.0f} s (permutation), {t_normal:.0f} s (normal), {t_pa:.1f} s (PA); "
          f"permutation / normal = {t_perm / t_normal:.1f}")


if __name__ == "__main__":
    main()

"""The simulation lab's jitted replication loops against plain loops of the same tests.

Two tests, each over many simulated test sets (the settings of the chapter "Do the tests keep
their promises?"):

- the paired permutation test of one system pair (100 segments, 1,000 sign patterns):
  ``spalib.pair_test_pvalues`` against a NumPy loop (random signs, one product per replication)
  and against ``spalib.pairwise_pvalues`` called once per replication;
- the PERM-BOTH test of two metrics' pairwise accuracy (6 systems, 100 segments, 200 draws):
  ``spalib.metric_test_pvalues`` against a NumPy loop (swap masks, hybrid system means, PA of
  every draw at once) and against ``spalib.compare_metrics`` called once per replication.

Prints replications per second for each, the ratios, and each loop's size at 0.05 (the same
test on the same data, so the sizes agree within Monte-Carlo error).  Timings are best of 3
after a warm-up call (numba compiles once).

    .venv/bin/python benchmarks/bench_simulation.py [--replications N]
"""

from __future__ import annotations

import _setup  # noqa: F401  (threading layer)
import argparse
import time

import numpy as np

import spalib
from spalib import MetricModel
from spalib._core.meta import zscored


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def numpy_pair_test(diffs, n_resamples, rng):
    out = np.empty(len(diffs))
    for r, d in enumerate(diffs):
        signs = rng.integers(0, 2, size=(n_resamples, d.size)) * 2.0 - 1.0
        out[r] = np.mean(signs @ d >= d.sum() - 1e-11 * np.abs(d).sum())
    return out


def numpy_pa_test(sim, n_resamples, rng):
    """Two-sided PERM-BOTH test of PA by NumPy, one replication at a time."""
    out = np.empty(sim.human.shape[0])
    i, j = np.triu_indices(sim.human.shape[1], 1)
    for r in range(sim.human.shape[0]):
        human_sign = np.sign(sim.human[r].mean(axis=1)[i] - sim.human[r].mean(axis=1)[j])
        a, b = (zscored(sim.metrics[n][r]) for n in ("a", "b"))

        def pa(sums, human_sign=human_sign):
            return np.mean(np.sign(sums[..., i] - sums[..., j]) == human_sign, axis=-1)
        delta = pa(a.sum(axis=1)) - pa(b.sum(axis=1))
        swap = rng.integers(0, 2, size=(n_resamples,) + a.shape).astype(bool)
        null = pa(np.where(swap, b, a).sum(axis=2)) - pa(np.where(swap, a, b).sum(axis=2))
        out[r] = np.mean(np.abs(null) >= abs(delta))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=2000)
    args = parser.parse_args()
    n = args.replications
    rng = np.random.default_rng(1)

    pair = spalib.simulate_replications([0.0, 0.0], 100, {"m": MetricModel()}, n, rng=rng)
    diffs = pair.human[:, 0] - pair.human[:, 1]
    spalib.pair_test_pvalues(diffs[:10], n_resamples=10, rng=0)            # compile
    lab_s, lab_p = best_of(lambda: spalib.pair_test_pvalues(diffs, n_resamples=1000, rng=2)["ge"])
    numpy_s, numpy_p = best_of(lambda: numpy_pair_test(diffs, 1000, np.random.default_rng(3)))
    lib_s, lib_p = best_of(lambda: np.array([spalib.pairwise_pvalues(pair.human[r], n_resamples=1000, rng=r)[0, 1]
                                             for r in range(n)]), repeat=1)
    print(f"pair test, {n} replications x 1,000 sign patterns x 100 segments")
    for label, seconds, p in (("lab (numba)", lab_s, lab_p), ("NumPy loop", numpy_s, numpy_p),
                              ("pairwise_pvalues loop", lib_s, lib_p)):
        print(f"  {label:24s} {n / seconds:10,.0f} replications/s   size at 0.05: {np.mean(p <= 0.05):.4f}")
    print(f"  ratio: {numpy_s / lab_s:.1f}x the NumPy loop, {lib_s / lab_s:.1f}x the library loop")

    twins = {"a": MetricModel(), "b": MetricModel()}
    sim = spalib.simulate_replications(np.linspace(0, 0.5, 6), 100, twins, n, rng=rng)
    kw = dict(meta_metric="pa", permutation="both", alternative="two-sided", n_resamples=200)
    spalib.metric_test_pvalues(sim, "a", "b", **(kw | dict(n_resamples=5)), rng=0)  # compile
    lab_s, lab_p = best_of(lambda: spalib.metric_test_pvalues(sim, "a", "b", **kw, rng=4)["pvalue"])
    numpy_s, numpy_p = best_of(lambda: numpy_pa_test(sim, 200, np.random.default_rng(5)), repeat=1)
    m = min(n, 300)                                                       # the library loop is slow
    lib_s, lib_p = best_of(lambda: np.array([spalib.compare_metrics(
        sim.task(r).human, sim.task(r).metrics, meta_metric="pa", n_resamples=200, rng=r,
        alternative="two-sided").pvalues.iloc[0, 1] for r in range(m)]), repeat=1)
    print(f"PERM-BOTH test of PA, 6 systems x 100 segments, 200 draws ({m} replications for compare_metrics)")
    for label, count, seconds, p in (("lab (numba)", n, lab_s, lab_p), ("NumPy loop", n, numpy_s, numpy_p),
                                     ("compare_metrics loop", m, lib_s, lib_p)):
        print(f"  {label:24s} {count / seconds:10,.0f} replications/s   size at 0.05: {np.mean(p <= 0.05):.4f}")
    print(f"  ratio: {numpy_s / lab_s:.1f}x the NumPy loop, {(lib_s / m) / (lab_s / n):.1f}x the library loop")


if __name__ == "__main__":
    main()

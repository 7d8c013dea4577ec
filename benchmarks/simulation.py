"""The three slow runs of ``chapters/simulation.md``, stored so that the book builds fast: the
size table of two equally good metrics (the twins), the two-sided tests of a less and a more noisy
metric, and WMT's early stopping.

The procedure is the chapter's, cell for cell and draw for draw: one generator seeded with the
chapter's seed, drawn in the chapter's order (the cells before these runs are replayed first, as
the chapter runs them), the same library calls with the same settings.  What is stored, one value
per simulated test set:

- ``simulation_twins.csv``: a row per case (ρ, statistic, alternative, scheme) of the chapter's
  size table, 2,000 test sets each; ``extreme`` holds each test set's count of the 200 draws at
  least as extreme as the observed difference (p = extreme / draws), ``seconds`` the whole
  table's time;
- ``simulation_better.csv``: a row per test set of the noisier pair's 2,000; ``delta pa`` and
  ``delta spa`` are metric a's score minus b's (the same under every scheme), the other columns
  the two-sided test's extreme counts of 200 draws per statistic and scheme;
- ``simulation_early_stopping.csv``: a row per run (all 1,000 draws, WMT early stopping) on the
  same 1,000 test sets; ``extreme`` and ``draws`` hold each test set's count and draws used.

    python benchmarks/simulation.py      # writes the three files in spalib/data/results/

Each test set draws its swaps from a stream of its own, keyed by the test's seed (one draw from
the generator, whatever the number of test sets) and the test set's place, so a run on the first
``n`` test sets gives exactly the first ``n`` values of the full run.  The chapter reruns the first
100 of every case; ``tests/test_stored_simulation.py`` reruns the first 300.
"""

from __future__ import annotations

import dataclasses
import os
import time

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import spalib
from spalib import MetricModel

RESULTS = _setup.RESULTS
OUT_TWINS = os.path.join(RESULTS, "simulation_twins.csv")
OUT_BETTER = os.path.join(RESULTS, "simulation_better.csv")
OUT_EARLY_STOPPING = os.path.join(RESULTS, "simulation_early_stopping.csv")

SEED, R = 20261123, 2000                        # the chapter's seed and replications
PAIR_L, PAIR_K = 100, 1000                      # its section on one system pair
DELTAS, LENGTHS, POWER_R, POWER_K = [0, 0.05, 0.1, 0.15, 0.2, 0.3], [50, 100, 200], 1000, 500
CMP_Q, CMP_L, CMP_R, CMP_K, RHOS = np.linspace(0, 0.5, 6), 100, R, 200, (0.0, 0.9)
SCHEMES, STATS, ALTERNATIVES = ("inputs", "systems", "both"), ("pa", "spa"), ("greater", "two-sided")
ES_R, ES_K = R // 2, 1000
ES_RUNS = (("all draws", None), ("WMT early stopping", spalib.WMT_EARLY_STOPPING))


def chapter_generator() -> np.random.Generator:
    """The chapter's generator as its size table of the twins finds it: every draw of the cells
    before (a model whose truth we choose, one system pair, the library's pair test, power).
    """
    rng = np.random.default_rng(SEED)
    quality = pd.Series([0.0, 0.1, 0.2, 0.3], index=["A", "B", "C", "D"])
    models = {"fair": MetricModel(noise_sd=0.5), "biased": MetricModel(noise_sd=0.5, bias=(0.0, 0.0, 0.25, 0.0))}
    task = spalib.simulate_task(quality, 200, models, rng=rng)
    spalib.compare_metrics(task.human, task.metrics, meta_metric="pa", n_resamples=200, rng=rng)
    null_pair = spalib.simulate_replications([0.0, 0.0], PAIR_L, {"m": MetricModel()}, R, rng=rng)
    spalib.pair_test_pvalues(null_pair.human[:, 0] - null_pair.human[:, 1], n_resamples=PAIR_K, rng=rng)
    for r in range(R):
        spalib.pairwise_pvalues(null_pair.human[r], n_resamples=PAIR_K, rng=rng)
    for length in LENGTHS:
        for delta in DELTAS:
            sim = spalib.simulate_replications([delta, 0.0], length, {"m": MetricModel()}, POWER_R, rng=rng)
            spalib.pair_test_pvalues(sim.human[:, 0] - sim.human[:, 1], n_resamples=POWER_K, rng=rng)
    return rng


def first_sets(sim, n_sets=None):
    """The first ``n_sets`` test sets of a simulation (all of them for None), as the chapter takes them."""
    if n_sets is None:
        return sim
    return dataclasses.replace(sim, human=sim.human[:n_sets], metrics={k: v[:n_sets] for k, v in sim.metrics.items()})


def extreme(pvalue, draws) -> np.ndarray:
    """The count of extreme draws behind each p-value (``p = extreme / draws``), checked exact."""
    count = np.rint(np.asarray(pvalue) * np.asarray(draws)).astype(np.int64)
    assert np.array_equal(count / np.asarray(draws), np.asarray(pvalue))   # bit for bit
    return count


def joined(values) -> str:
    """An array as one CSV field: its values separated by spaces."""
    return " ".join(map(str, values))


def twins(rng, n_sets=None) -> pd.DataFrame:
    """The size table: one row per case, ``extreme`` the counts of the first ``n_sets`` test sets."""
    rows = []
    for rho in RHOS:
        pair = {name: MetricModel(error_correlation=rho) for name in "ab"}
        sim = first_sets(spalib.simulate_replications(CMP_Q, CMP_L, pair, CMP_R, rng=rng), n_sets)
        for stat in STATS:
            for scheme in SCHEMES:
                p = spalib.metric_test_pvalues(sim, "a", "b", meta_metric=stat, permutation=scheme,
                                               alternative=ALTERNATIVES, n_resamples=CMP_K, rng=rng)
                for alternative in ALTERNATIVES:
                    pvalue = p["pvalue_" + alternative.replace("-", "_")]
                    rows.append({"ρ": rho, "statistic": stat, "alternative": alternative,
                                 "scheme": f"PERM-{scheme.upper()}", "test sets": len(p), "draws": CMP_K,
                                 "extreme": joined(extreme(pvalue, p["draws"]))})
                assert (p["draws"] == CMP_K).all()
    return pd.DataFrame(rows)


def better(rng, n_sets=None) -> pd.DataFrame:
    """The two-sided tests of metric a (noise SD 0.5) against b (1.0): one row per test set."""
    pair = {"a": MetricModel(noise_sd=0.5), "b": MetricModel(noise_sd=1.0)}
    sim = first_sets(spalib.simulate_replications(CMP_Q, CMP_L, pair, CMP_R, rng=rng), n_sets)
    columns = {}
    for stat in STATS:
        for scheme in SCHEMES:
            out = spalib.metric_test_pvalues(sim, "a", "b", meta_metric=stat, permutation=scheme,
                                             alternative="two-sided", n_resamples=CMP_K, rng=rng)
            delta = columns.setdefault(f"delta {stat}", out["delta"].to_numpy())
            assert np.array_equal(delta, out["delta"].to_numpy())   # Δ does not depend on the scheme
            assert (out["draws"] == CMP_K).all()
            columns[f"{stat} {scheme}"] = extreme(out["pvalue"], out["draws"])
    return pd.DataFrame(columns)


def early_stopping(rng, n_sets=None) -> pd.DataFrame:
    """WMT's one-sided SPA test of the twins, with all draws and with early stopping: one row per run."""
    pair = {"a": MetricModel(), "b": MetricModel()}
    sim = first_sets(spalib.simulate_replications(CMP_Q, CMP_L, pair, ES_R, rng=rng), n_sets)
    rows = []
    for label, stopping in ES_RUNS:
        start = time.process_time()
        out = spalib.metric_test_pvalues(sim, "a", "b", meta_metric="spa", n_resamples=ES_K,
                                         early_stopping=stopping, rng=rng)
        rows.append({"run": label, "test sets": len(out), "seconds": round(time.process_time() - start, 1),
                     "extreme": joined(extreme(out["pvalue"], out["draws"])), "draws": joined(out["draws"])})
    return pd.DataFrame(rows)


def runs(n_sets=None):
    """The three runs in the chapter's order, on the first ``n_sets`` test sets, and the twins' seconds."""
    rng = chapter_generator()
    start = time.process_time()
    table = twins(rng, n_sets)
    seconds = round(time.process_time() - start, 1)
    return table, better(rng, n_sets), early_stopping(rng, n_sets), seconds


def main():
    table, pair, stopping, seconds = runs()
    table.insert(table.columns.get_loc("extreme"), "seconds", seconds)
    table.to_csv(OUT_TWINS, index=False)
    pair.to_csv(OUT_BETTER, index=False)
    stopping.to_csv(OUT_EARLY_STOPPING, index=False)
    stored = pd.read_csv(OUT_BETTER)
    for name in pair:                                     # the CSV holds every value exactly
        assert np.array_equal(stored[name].to_numpy(), pair[name].to_numpy()), name
    for path in (OUT_TWINS, OUT_BETTER, OUT_EARLY_STOPPING):
        print(f"{os.path.relpath(path)}: {os.path.getsize(path) / 1000:.0f} kB")
    print(f"twins {seconds} s; early stopping {stopping['seconds'].tolist()} s")


if __name__ == "__main__":
    main()

"""SPA's Table 1 at the chapter's seed, and the chapter's simulation: the two runs that
``chapters/spa_table1.md`` reads from ``spalib/data/results/`` instead of computing them while the
book builds.

Table 1, as the chapter computes it: in each of the four language pairs, every pair of metrics
tested with PA and with SPA (PERM-INPUTS, two-sided, k = 1,000 draws, seed 4, SPA's inner p-values
from the normal approximation), and each metric's SPA from 1,000 permutations (seed 4,
mt-metrics-eval's signs) for the count of distinct SPA values.  It writes

- ``spa_table1.csv``: the table's row for each language pair, and the seconds it took (CPU
  seconds: one thread's time when run with ``NUMBA_NUM_THREADS=1``);
- ``spa_table1_<test set>_<lp>_<meta-metric>.json``: each language pair's PA and SPA comparison
  (:class:`spalib.MetricComparison`, ``save``: all but the null draws), e.g.
  ``spa_table1_wmt23_he-en_spa.json``;
- ``spa_table1_distinct_spa.csv``: the distinct SPA values on each seed of ``table1_seeds.csv``;
- ``spa_table1_simulation.csv``: the simulation of two metrics (the chapter's "More significant
  pairs, a better meta-metric?"): one row per simulated test set, one column of two-sided
  p-values per row of the chapter's table and meta-metric.  The four rows draw in turn from one
  Generator seeded with the chapter's ``SEED``.

    NUMBA_NUM_THREADS=1 python benchmarks/spa_table1.py     # writes the files above

The chapter recomputes WMT23 he-en (and its seed-4 distinct SPA values) and the simulation's first
row and checks them against the files; ``tests/test_stored_spa_table1.py`` reruns WMT23 en-de,
seed 1's distinct SPA values and the simulation's first two rows.  A rerun's comparisons are checked
against the stored ones with ``MetricComparison.with_draws_of`` (refused unless bit for bit).
"""

from __future__ import annotations

import argparse
import itertools
import os
import time

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import spalib
from spalib import data

RESULTS = _setup.RESULTS
OUT = {name: os.path.join(RESULTS, f"spa_table1{name}.csv")
       for name in ("", "_distinct_spa", "_simulation")}
LANGUAGE_PAIRS = [("wmt22", "zh-en"), ("wmt23", "en-de"), ("wmt23", "he-en"), ("wmt23", "zh-en")]
SEED = 20240416          # the chapter's
REF_SEED = 4             # the chapter's seed of Table 1
SPA_PERMUTATIONS = 1000  # the inner p-values of the SPA scores
STATISTICS = ("pa", "spa")
SIM_SYSTEMS, SIM_SEGMENTS, SIM_R, SIM_DRAWS = 6, 100, 2000, 200
TRUTHS = {"equal": {"a": spalib.MetricModel(),
                    "b": spalib.MetricModel()},
          "a better": {"a": spalib.MetricModel(noise_sd=0.5),
                       "b": spalib.MetricModel()}}


def load_task(key):
    """One language pair's humans and metrics, as the chapter loads them."""
    evalset = data.load_mtme(*key)
    return data.segment_task(evalset, exclude_metrics=("GEMBA-GPT4",))


def compare(task, statistic, alternative="two-sided"):
    """The chapter's outer test of every pair of metrics."""
    return spalib.compare_metrics(
        task.human, task.metrics, meta_metric=statistic, spa_method="normal",
        permutation="inputs", alternative=alternative, n_resamples=1000, rng=REF_SEED)


def distinct(values):
    return pd.Series(values).round(10).nunique()


def table1_row(task, comparisons):
    """The chapter's row of Table 1 for one language pair."""
    spa = [spalib.soft_pairwise_accuracy(
               task.human, f, n_resamples=SPA_PERMUTATIONS, rng=REF_SEED,
               signs="mtme").statistic for f in task.metrics.values()]
    pa = [spalib.pairwise_accuracy(task.human.mean(axis=1), f.mean(axis=1))
          for f in task.metrics.values()]
    row = {"systems": len(task.human), "metrics": len(task.metrics),
           "distinct PA": distinct(pa), "distinct SPA": distinct(spa)}
    for stat, c in comparisons.items():
        row[f"significant {stat.upper()}"] = c.n_significant
        row[f"clusters {stat.upper()}"] = int(c.ranks.max())
    return row


def comparison_path(key, stat):
    """Where one language pair's comparison is stored:
    ``spa_table1_<test set>_<lp>_<meta-metric>.json``.
    """
    return os.path.join(RESULTS, f"spa_table1_{key[0]}_{key[1]}_{stat}.json")


def language_pair(key):
    """One language pair's Table 1 run: its row (with the seconds it took) and its comparisons
    (``{"pa": MetricComparison, "spa": ...}``).
    """
    start = time.process_time()
    task = load_task(key)
    comparisons = {stat: compare(task, stat) for stat in STATISTICS}
    row = table1_row(task, comparisons)
    seconds = time.process_time() - start
    return {"test set": key[0], "lp": key[1], **row, "seconds": seconds}, comparisons


def distinct_spa(task, seed):
    """The number of distinct SPA values with SPA's permutations seeded by ``seed`` (the
    chapter's count over the seeds of ``table1_seeds.csv``).
    """
    return distinct([spalib.soft_pairwise_accuracy(task.human, f, rng=int(seed),
                                                   signs="mtme").statistic
                     for f in task.metrics.values()])


def distinct_spa_table(tasks, seeds=None):
    """The distinct SPA values for each row of ``table1_seeds.csv`` (its seeds and language
    pairs, in its order), or only for ``seeds``.
    """
    rows = pd.read_csv(data.book_table("results/table1_seeds.csv"))[["seed", "test set", "lp"]]
    if seeds is not None:
        rows = rows[rows["seed"].isin(seeds)].reset_index(drop=True)
    rows["distinct SPA"] = [distinct_spa(tasks[t, lp], seed) for seed, t, lp in rows.to_numpy()]
    return rows


def simulation(n_rows=4):
    """The chapter's simulation: the two-sided p-value of each simulated test set, one column per
    row of its table (systems, truth) and meta-metric.  The rows draw in turn from one Generator,
    so the first ``n_rows`` rows are those of the full run.
    """
    sim_rng = np.random.default_rng(SEED)
    columns = {}
    rows = itertools.product((SIM_SYSTEMS, 2 * SIM_SYSTEMS), TRUTHS.items())
    for n, (truth, models) in itertools.islice(rows, n_rows):
        quality = np.linspace(0, 0.5, n)   # true system qualities
        sim = spalib.simulate_replications(
            quality, SIM_SEGMENTS, models, SIM_R, rng=sim_rng)
        for stat in STATISTICS:
            p = spalib.metric_test_pvalues(
                sim, "a", "b", meta_metric=stat, permutation="inputs",
                alternative="two-sided", n_resamples=SIM_DRAWS, rng=sim_rng)
            columns[simulation_column(n, truth, stat)] = p["pvalue"].to_numpy()
    return pd.DataFrame(columns)


def simulation_column(n, truth, stat):
    """The stored column of the simulation's row (``n`` systems, ``truth``) and meta-metric."""
    return f"{n} systems {truth} {stat.upper()}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    runs = _setup.timed_runs(language_pair, LANGUAGE_PAIRS, label="language pair")
    for key, (_, comparisons) in zip(LANGUAGE_PAIRS, runs):
        for stat, c in comparisons.items():
            _setup.save_comparison(c, comparison_path(key, stat))
    table = pd.DataFrame([row for row, _ in runs])
    table.to_csv(OUT[""], index=False)
    print(table.to_string(index=False), flush=True)
    tasks = {key: load_task(key) for key in LANGUAGE_PAIRS}
    distinct_spa_table(tasks).to_csv(OUT["_distinct_spa"], index=False)
    start = time.perf_counter()
    sim = simulation()
    sim.to_csv(OUT["_simulation"], index=False)
    print(f"simulation: {time.perf_counter() - start:.0f} s")
    print((sim <= 0.05).mean().round(4).to_string())


if __name__ == "__main__":
    main()

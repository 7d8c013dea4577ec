"""The slow runs of ``chapters/spa_procedures.md``, stored so that the book builds in minutes.

The runs, on WMT23 en-de with the chapter's seed 4, as the chapter calls them (its ``run``: two-sided,
z-scored metrics, 1,000 draws, SPA's signs as mt-metrics-eval draws them): PERM-INPUTS and PERM-BOTH,
each for PA and for SPA with normal-approximation p-values inside the test; and PERM-INPUTS for SPA
with permuted p-values inside the test and WMT's early stopping.  It writes

- ``spa_procedures_<run>.json``: each run's :class:`spalib.MetricComparison` (``save``: all but the
  null draws), e.g. ``spa_procedures_inputs_spa.json``;
- ``spa_procedures_<run>_one_sided.json``: the two SPA runs of 1,000 draws recounted one-sided
  (``recount(alternative="greater")``), as the chapter counts them (PA's it recounts itself);
- ``spa_procedures_inputs_spa_extreme.csv``: for PERM-INPUTS SPA, which of each pair's draws were
  extreme (``|Δ*| >= |Δ|``), as hex (``np.packbits``, draw 1 the highest bit of the first byte), for
  the chapter's exercise on early stopping;

and, in ``spa_procedures_seeds.csv``, the chapter's two small seed sweeps: the two-sided and one-sided
counts of significant pairs of PERM-BOTH PA on seeds 5 to 8, and WMT23 he-en's PA clusters by the
paper's wording (a metric opens a cluster if any earlier one differs) on seeds 1, 2, 3, 5 and 4.

    python benchmarks/spa_procedures.py      # writes spalib/data/results/spa_procedures_*

The chapter reruns PA (both schemes, all pairs), one pair of the permuted-SPA run, seed 5 of the
PERM-BOTH sweep and seed 4 of he-en's, and checks them against these files;
``tests/test_stored_spa_procedures.py`` reruns SPA on three metrics, seed 8 and he-en's seed 1.
A pair's draws depend only on the seed and its two metrics, so a run on a few metrics gives those
pairs' numbers in the full run (``MetricComparison.with_draws_of`` checks them).
"""

from __future__ import annotations

import os
import time

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import spalib
from spalib import data

RESULTS = _setup.RESULTS
REF_SEED = 4
RUNS = {  # name: (permutation, meta-metric, settings), in the order the chapter runs them
    "inputs pa": ("inputs", "pa", {"spa_method": "normal"}),
    "inputs spa": ("inputs", "spa", {"spa_method": "normal"}),
    "both pa": ("both", "pa", {"spa_method": "normal"}),
    "both spa": ("both", "spa", {"spa_method": "normal"}),
    "inputs spa permutation": ("inputs", "spa", {"spa_method": "permutation",
                                                 "early_stopping": spalib.WMT_EARLY_STOPPING}),
}
ONE_SIDED = ("inputs spa", "both spa")  # the stored runs the chapter counts one-sided
WITH_EXTREME = "inputs spa"             # the stored run whose draws the chapter's exercise reads
BOTH_PA_SEEDS = [5, 6, 7, 8]            # the chapter's REF_SEED + 1 to REF_SEED + 4
HEEN_SEEDS = [1, 2, 3, 5, REF_SEED]     # the chapter's rule seeds, then REF_SEED


def path(name: str, suffix: str = ".json") -> str:
    """Where ``name`` (a run, or a run and what of it) is stored: ``spa_procedures_<name>``."""
    return os.path.join(RESULTS, f"spa_procedures_{name.replace(' ', '_')}{suffix}")


def load_task(lp: str = "en-de"):
    """WMT23 ``lp`` as the chapter loads it."""
    return data.segment_task(data.load_mtme("wmt23", lp))


def run(task, name: str, metrics: list | None = None) -> spalib.MetricComparison:
    """The run ``name`` of :data:`RUNS` (``metrics``: only those, for a slice), as the chapter's ``run``."""
    permutation, statistic, settings = RUNS[name]
    chosen = task.metrics if metrics is None else {m: task.metrics[m] for m in metrics}
    return spalib.compare_metrics(task.human, chosen, meta_metric=statistic, permutation=permutation,
                                  alternative="two-sided", rng=REF_SEED, signs="mtme", **settings)


def extreme_table(c: spalib.MetricComparison) -> pd.DataFrame:
    """Each pair's draws, marked where ``|Δ*| >= |Δ|`` (p = marks / draws), packed to hex."""
    rows = []
    for (a, b), null in c.null_distributions.items():
        flags = np.abs(null) >= abs(c.scores[a] - c.scores[b])
        assert flags.sum() / null.size == c.pvalues.loc[a, b]      # the test's own count
        rows.append({"better": a, "worse": b, "extreme draws": np.packbits(flags).tobytes().hex()})
    return pd.DataFrame(rows)


def both_pa_counts(task, seed: int) -> list[dict]:
    """PERM-BOTH PA's significant pairs, two-sided and one-sided (from the same draws), on ``seed``."""
    c = spalib.compare_metrics(task.human, task.metrics, meta_metric="pa", permutation="both",
                               alternative="two-sided", rng=seed, signs="mtme")
    return [{"quantity": "PERM-BOTH PA two-sided significant", "seed": seed, "value": c.n_significant},
            {"quantity": "PERM-BOTH PA one-sided significant", "seed": seed,
             "value": c.recount(alternative="greater").n_significant}]


def literal_clusters(task, seed: int, statistic: str = "pa") -> int:
    """Clusters by the paper's wording, each pair tested alone and only when the count needs it."""
    order = list(spalib.compare_metrics(task.human, task.metrics, meta_metric=statistic,
                                        n_resamples=0).scores.index)

    def pvalue(i, j):
        pair = {n: task.metrics[n] for n in (order[i], order[j])}
        c = spalib.compare_metrics(task.human, pair, meta_metric=statistic, permutation="inputs",
                                   alternative="two-sided", rng=seed, signs="mtme", spa_method="normal")
        return np.nanmin(c.pvalues.to_numpy())

    return 1 + sum(any(pvalue(i, j) <= 0.05 for i in range(j)) for j in range(1, len(order)))


def heen_row(task, seed: int) -> dict:
    return {"quantity": "he-en paper's-wording clusters PA", "seed": seed, "value": literal_clusters(task, seed)}


def write_csv(table: pd.DataFrame, file: str) -> None:
    table.to_csv(file, index=False)
    pd.testing.assert_frame_equal(pd.read_csv(file), table, check_exact=True)
    print(f"{os.path.basename(file)}: {len(table)} rows, {os.path.getsize(file) / 1000:.0f} kB")


def main():
    task = load_task()
    for name in RUNS:
        start = time.perf_counter()
        c = run(task, name)
        print(f"{name}: {time.perf_counter() - start:.0f} s, {c.n_significant} significant", flush=True)
        _setup.save_comparison(c, path(name))
        if name in ONE_SIDED:
            _setup.save_comparison(c.recount(alternative="greater"), path(name + " one sided"))
        if name == WITH_EXTREME:
            write_csv(extreme_table(c), path(name + " extreme", ".csv"))
    seeds = [row for rows in _setup.timed_runs(lambda s: both_pa_counts(task, s), BOTH_PA_SEEDS) for row in rows]
    heen = load_task("he-en")
    seeds += _setup.timed_runs(lambda s: heen_row(heen, s), HEEN_SEEDS, label="he-en seed")
    write_csv(pd.DataFrame(seeds), path("seeds", ".csv"))


if __name__ == "__main__":
    main()

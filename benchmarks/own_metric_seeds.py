"""The ensemble of ``chapters/own_metric.md`` against its parts, at the chapters' ranking's own seed
and on five more: the runs that ``own_metric.md`` (do the verdicts hold?) and ``own_metric_verdict.md`` (does
the Holm pass hold?) set beside their ranking's own.

The ensemble is the mean of z-scored COMET and CometKiwi, written to a score file per language pair
and added to WMT23 en-de, he-en and zh-en as the chapter adds it (reference-free task, basenames).
A pair's draws depend only on the seed and the pair, so ranking the ensemble and its two parts
alone gives the verdicts of the chapters' full ranking (both chapters check the file's rows at
their ranking's own seed against their ranking): meta-metrics SPA, PA and acc-t, 1,000 draws,
WMT's early stopping, no intervals.  The seeds are the ranking's own seed plus 0 to 5; that seed
is the one a Generator seeded with the chapters' ``SEED`` gives (``spalib.rank_metrics`` draws it
first).

    python benchmarks/own_metric_seeds.py     # writes spalib/data/results/own_metric_seeds.csv

``tests/test_stored_results.py`` reruns the second seed and checks it against the file (the
chapters check the first).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import spalib
from spalib import data
from spalib._core.engine import root_seed

OUT = os.path.join(_setup.RESULTS, "own_metric_seeds.csv")
SEED = 20231206          # the chapters'
LPS = ("en-de", "he-en", "zh-en")
NEW, PARTS = "COMET+Kiwi", ["COMET", "CometKiwi[noref]"]
STATS, DRAWS = ("spa", "pa", "acc_eq"), 1000
SEEDS = [root_seed(np.random.default_rng(SEED)) + k for k in range(6)]
COLUMNS = ["task", "meta_metric", "baseline", "verdict", "p-value", "extreme draws", "draws"]


def ensemble_tasks(folder: Path, metrics=(NEW, *PARTS)) -> dict:
    """Each language pair's humans and ``metrics`` (None: WMT's baselines and the ensemble, the
    chapters' ranking), the ensemble added as the chapters add it.
    """
    tasks = {}
    for lp in LPS:
        es = data.load_mtme("wmt23", lp)
        parts = [es.seg_scores(f"COMET-{es.std_ref}"), es.seg_scores("CometKiwi-src")]
        z = [(p - np.nanmean(p.to_numpy())) / np.nanstd(p.to_numpy()) for p in parts]
        data.write_seg_score_file(sum(z) / 2, folder / f"{lp}.seg.score")
        task = data.segment_task(es, reference_free=True, basenames=True,
                                 extra_metrics={NEW: folder / f"{lp}.seg.score"})
        keep = set(es.meta.baseline_metrics) | {NEW}
        tasks[lp] = (task.human, {m: f for m, f in task.metrics.items()
                                  if (m in metrics if metrics else m.removesuffix("[noref]") in keep)})
    return tasks


def versus(tasks: dict, seed: int) -> pd.DataFrame:
    """The ensemble against each part in every column, the ranking drawn with ``seed``."""
    ranking = spalib.rank_metrics(tasks, meta_metrics=STATS, n_resamples=DRAWS, rng=seed,
                                  interval_resamples=0, early_stopping=spalib.WMT_EARLY_STOPPING)
    return ranking.versus(NEW, PARTS)[COLUMNS].assign(seed=seed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tasks = ensemble_tasks(Path(folder))
        frames = _setup.timed_runs(lambda seed: versus(tasks, seed), SEEDS)
    table = pd.concat(frames, ignore_index=True)
    table.to_csv(OUT, index=False)
    print(table.pivot_table(index=["task", "meta_metric", "baseline"], columns="seed",
                            values="verdict", aggfunc="first").to_string())


if __name__ == "__main__":
    main()

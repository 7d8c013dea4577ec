"""The WMT23 ranking of the own-metric chapters, stored: ``chapters/own_metric.md`` and
``chapters/own_metric_verdict.md`` read it instead of spending about 40 s each on it.

WMT's baselines and the ensemble (the mean of z-scored COMET and CometKiwi) on WMT23 en-de,
he-en and zh-en, ranked by SPA, PA and acc-t with 1,000 draws per pair, WMT's early stopping and
1,000-sample intervals, the ``rng`` a Generator seeded with the chapters' ``SEED``: the chapters'
own call.  Each chapter ranks the ensemble and its two parts again with that call and checks
their rows against the file (``MetricRanking.with_draws_of``), which lends the stored ranking
those pairs' draws; ``tests/test_stored_results.py`` does the same for three other metrics.

The two other averages that ``own_metric.md`` sets beside the table's, which need every pair's
draws, are stored beside it: half the weight on each level (system, segment), and WMT24's (SPA and
acc-t only).

    python benchmarks/own_metric_ranking.py     # writes spalib/data/results/own_metric_*.json
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

import _setup  # first: the threading layer
import spalib
from own_metric_seeds import SEED, STATS, DRAWS, ensemble_tasks

RESULTS = _setup.RESULTS


def ranking(tasks: dict) -> spalib.MetricRanking:
    """The chapters' call on ``tasks``."""
    return spalib.rank_metrics(tasks, meta_metrics=STATS, n_resamples=DRAWS, rng=np.random.default_rng(SEED),
                               interval_resamples=DRAWS, early_stopping=spalib.WMT_EARLY_STOPPING)


def other_averages(result: spalib.MetricRanking) -> dict:
    """The averages by level and WMT24's, from ``result``'s columns (the chapter's calls)."""
    columns = {f"{lp} {s}": c for (lp, s), c in result.comparisons.items()}
    levels = {t: 2.0 if t.endswith("acc_eq") else 1.0 for t in columns}   # half per level
    return {"by_level": spalib.average_comparisons(columns, weights=levels),
            "wmt24": spalib.average_comparisons({t: c for t, c in columns.items() if not t.endswith(" pa")})}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tasks = ensemble_tasks(Path(folder), metrics=None)
        start = time.perf_counter()
        result = ranking(tasks)
    print(f"ranked {len(next(iter(tasks.values()))[1])} metrics in {time.perf_counter() - start:.1f} s")
    result.save(os.path.join(RESULTS, "own_metric_ranking.json"))
    for name, average in other_averages(result).items():
        average.save(os.path.join(RESULTS, f"own_metric_average_{name}.json"))
    print(result.to_string("text"))


if __name__ == "__main__":
    main()

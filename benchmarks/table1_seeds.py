"""SPA's Table 1 by the paper's procedure, over several seeds: the seed-to-seed spread that the
reproduction ledger of ``chapters/spa_table1.md`` uses as its Monte-Carlo tolerance.

The procedure (``chapters/spa_table1.md``): PERM-INPUTS, two-sided (|Δ*| >= |Δ|, p <= 0.05),
metrics z-scored, k = 1,000 draws, no early stopping, PA from segment means, SPA from
normal-limit p-values inside the test, greedy clusters.  For each seed and language pair it
writes the significant PA and SPA pairs and the PA and SPA clusters, and the same under the
one-sided test (the draws are shared: only the counting differs).

    python benchmarks/table1_seeds.py              # seeds 1-7, writes spalib/data/results/table1_seeds.csv
    python benchmarks/table1_seeds.py --permutation-spa --seeds 1 2 3 4 5
        # WMT23 en-de with SPA from 1,000 permutations inside the test (the paper's SPA), no early
        # stopping: spalib/data/results/table1_permutation_spa.csv
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

import _setup  # noqa: F401  (first: the threading layer)
import spalib
from spalib import data

LANGUAGE_PAIRS = [("wmt22", "zh-en"), ("wmt23", "en-de"), ("wmt23", "he-en"), ("wmt23", "zh-en")]
RESULTS = os.path.join(os.path.dirname(__file__), "..", "spalib", "data", "results")   # shipped
OUT = os.path.join(RESULTS, "table1_seeds.csv")
OUT_PERMUTATION = os.path.join(RESULTS, "table1_permutation_spa.csv")


def one_sided_counts(comparison):
    """Significant pairs and clusters of the one-sided test, from the same stored draws."""
    order = list(comparison.scores.index)
    p = np.full((len(order), len(order)), np.nan)
    for (better, worse), null in comparison.null_distributions.items():
        delta = comparison.scores[better] - comparison.scores[worse]
        p[order.index(better), order.index(worse)] = np.mean(null >= delta)
    return int((p <= 0.05).sum()), int(spalib.significance_ranks(p).max())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(1, 8)))
    parser.add_argument("--permutation-spa", action="store_true",
                        help="WMT23 en-de only, SPA from 1,000 permutations inside the test")
    args = parser.parse_args()
    if args.permutation_spa:
        return permutation_spa(args.seeds)
    tasks = {key: data.segment_task(data.load_mtme(*key), exclude_metrics=("GEMBA-GPT4",))
             for key in LANGUAGE_PAIRS}
    rows = []
    for seed in args.seeds:
        start = time.perf_counter()
        for (test_set, lp), task in tasks.items():
            row = {"seed": seed, "test set": test_set, "lp": lp}
            for statistic in ("pa", "spa"):
                c = spalib.compare_metrics(task.human, task.metrics, statistic=statistic, spa_method="normal",
                                           permutation="inputs", alternative="two-sided", n_resamples=1000,
                                           rng=seed, signs="mtme")
                name = statistic.upper()
                row[f"significant {name}"] = c.n_significant
                row[f"clusters {name}"] = int(c.ranks.max())
                row[f"one-sided significant {name}"], row[f"one-sided clusters {name}"] = one_sided_counts(c)
            rows.append(row)
        print(f"seed {seed}: {time.perf_counter() - start:.0f} s", flush=True)
    table = pd.DataFrame(rows)
    table.to_csv(OUT, index=False)
    print(table.to_string(index=False))
    print(table.groupby(["test set", "lp"]).agg(["min", "max", "std"]).round(2).T.to_string())


def permutation_spa(seeds):
    task = data.segment_task(data.load_mtme("wmt23", "en-de"))
    rows = []
    for seed in seeds:
        start = time.perf_counter()
        c = spalib.compare_metrics(task.human, task.metrics, statistic="spa", spa_method="permutation",
                                   permutation="inputs", alternative="two-sided", n_resamples=1000,
                                   rng=seed, signs="mtme")
        rows.append({"seed": seed, "test set": "wmt23", "lp": "en-de", "significant SPA": c.n_significant,
                     "clusters SPA": int(c.ranks.max())})
        print(f"seed {seed}: {time.perf_counter() - start:.0f} s, {rows[-1]}", flush=True)
    pd.DataFrame(rows).to_csv(OUT_PERMUTATION, index=False)


if __name__ == "__main__":
    main()

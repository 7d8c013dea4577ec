"""SPA's Table 1 by the paper's procedure, over several seeds: the seed-to-seed spread that the
reproduction ledger of ``chapters/spa_table1.md`` uses as its Monte-Carlo tolerance.

The procedure (``chapters/spa_table1.md``): PERM-INPUTS, two-sided (|Δ*| >= |Δ|, p <= 0.05),
metrics z-scored, k = 1,000 draws, no early stopping, PA from segment means, SPA from
normal-approximation p-values inside the test, greedy clusters.  For each seed and language pair it
writes the significant PA and SPA pairs and the PA and SPA clusters, and the same under the
one-sided test (the draws are shared: only the counting differs).

    python benchmarks/table1_seeds.py              # seeds 1-7, writes spalib/data/results/table1_seeds.csv
    python benchmarks/table1_seeds.py --permutation-spa --seeds 1 2 3 4 5
        # WMT23 en-de with SPA from 1,000 permutations inside the test (the paper's SPA), no early
        # stopping: spalib/data/results/table1_permutation_spa.csv
    python benchmarks/table1_seeds.py --tie-rules
        # WMT23's PA tests recounted under four rules for draws that tie |Δ| (chapters/
        # spa_table1_ties.md): spalib/data/results/table1_tie_rules.csv
    python benchmarks/table1_seeds.py --toolkit
        # WMT23 en-de by mt-metrics-eval's settings: PERM-BOTH, one-sided, SPA from permutations,
        # WMT's early stopping: spalib/data/results/table1_toolkit_spa.csv

The chapters recompute seed 4 and check it against these files.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import spalib
from spalib import data

LANGUAGE_PAIRS = [("wmt22", "zh-en"), ("wmt23", "en-de"), ("wmt23", "he-en"), ("wmt23", "zh-en")]
RESULTS = _setup.RESULTS
OUT = os.path.join(RESULTS, "table1_seeds.csv")
OUT_PERMUTATION = os.path.join(RESULTS, "table1_permutation_spa.csv")
OUT_TIE_RULES = os.path.join(RESULTS, "table1_tie_rules.csv")
OUT_TOOLKIT = os.path.join(RESULTS, "table1_toolkit_spa.csv")
TIE_RULES = ("plain", "conservative", "mid-p", "never")
"""How a draw with |Δ*| = |Δ| counts: as a floating-point ``>=`` decides (spalib's rule), always,
as one half, never."""


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
    parser.add_argument("--tie-rules", action="store_true",
                        help="WMT23's two-sided PA tests recounted under four tie rules")
    parser.add_argument("--toolkit", action="store_true",
                        help="WMT23 en-de by mt-metrics-eval's settings (PERM-BOTH, SPA from "
                             "permutations, early stopping)")
    args = parser.parse_args()
    if args.permutation_spa:
        return permutation_spa(args.seeds)
    if args.tie_rules:
        return tie_rules(args.seeds)
    if args.toolkit:
        return toolkit(args.seeds)
    tasks = {key: data.segment_task(data.load_mtme(*key), exclude_metrics=("GEMBA-GPT4",))
             for key in LANGUAGE_PAIRS}
    rows = []
    for seed in args.seeds:
        start = time.perf_counter()
        for (test_set, lp), task in tasks.items():
            row = {"seed": seed, "test set": test_set, "lp": lp}
            for statistic in ("pa", "spa"):
                c = spalib.compare_metrics(task.human, task.metrics, meta_metric=statistic, spa_method="normal",
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


def permutation_spa_row(task, seed):
    """WMT23 en-de's significant SPA pairs and clusters with permuted inner p-values, one seed."""
    c = spalib.compare_metrics(task.human, task.metrics, meta_metric="spa", spa_method="permutation",
                               permutation="inputs", alternative="two-sided", n_resamples=1000,
                               rng=seed, signs="mtme")
    return {"seed": seed, "test set": "wmt23", "lp": "en-de", "significant SPA": c.n_significant,
            "clusters SPA": int(c.ranks.max())}


def permutation_spa(seeds):
    task = data.segment_task(data.load_mtme("wmt23", "en-de"))
    rows = []
    for seed in seeds:
        start = time.perf_counter()
        rows.append(permutation_spa_row(task, seed))
        print(f"seed {seed}: {time.perf_counter() - start:.0f} s, {rows[-1]}", flush=True)
    pd.DataFrame(rows).to_csv(OUT_PERMUTATION, index=False)


def tie_rule_counts(comparison, n_systems):
    """Significant pairs of a two-sided PA test under each of :data:`TIE_RULES`: a PA difference
    is a whole number of system pairs, so |Δ*| = |Δ| is decided on those whole numbers.
    """
    n_pairs, counts = n_systems * (n_systems - 1) // 2, dict.fromkeys(TIE_RULES, 0)
    for (a, b), null in comparison.null_distributions.items():
        delta = abs(comparison.scores[a] - comparison.scores[b])
        in_pairs, observed = np.abs(np.rint(null * n_pairs)), round(delta * n_pairs)
        tied, beyond = np.mean(in_pairs == observed), np.mean(in_pairs > observed)
        p = {"plain": np.mean(np.abs(null) >= delta), "conservative": beyond + tied,
             "mid-p": beyond + tied / 2, "never": beyond}
        for rule in TIE_RULES:
            counts[rule] += int(p[rule] <= 0.05)
    return counts


def tie_rules(seeds):
    tasks = {lp: data.segment_task(data.load_mtme("wmt23", lp)) for lp in ("en-de", "he-en", "zh-en")}
    rows = []
    for seed in seeds:
        for lp, task in tasks.items():
            c = spalib.compare_metrics(task.human, task.metrics, meta_metric="pa", permutation="inputs",
                                       alternative="two-sided", rng=seed, signs="mtme")
            rows.append({"seed": seed, "test set": "wmt23", "lp": lp} | tie_rule_counts(c, len(task.human)))
        print(f"seed {seed}: {rows[-3:]}", flush=True)
    pd.DataFrame(rows).to_csv(OUT_TIE_RULES, index=False)


def toolkit(seeds):
    task = data.segment_task(data.load_mtme("wmt23", "en-de"))
    rows = []
    for seed in seeds:
        start = time.perf_counter()
        c = spalib.compare_metrics(task.human, task.metrics, meta_metric="spa", permutation="both", rng=seed,
                                   signs="mtme", early_stopping=spalib.WMT_EARLY_STOPPING)
        rows.append({"seed": seed, "test set": "wmt23", "lp": "en-de", "significant SPA": c.n_significant,
                     "clusters SPA": int(c.ranks.max())})
        print(f"seed {seed}: {time.perf_counter() - start:.0f} s, {rows[-1]}", flush=True)
    pd.DataFrame(rows).to_csv(OUT_TOOLKIT, index=False)


if __name__ == "__main__":
    main()

"""The paper's Figures 2 and 3 as ``chapters/spa.md`` draws them, on the chapter's own draw and on
four more seeds: the runs that chapter reads instead of computing them on every build.

Figure 2 (leaving systems out): WMT22 zh-en and WMT23 en-de, he-en and zh-en, GEMBA-GPT4 left out;
every metric's SPA with the toolkit's signs (seed 4, 1,000 permutations) and PA from means.  For
every size from 4 systems to all but one, 50 random subsets of the systems; on each, Pearson r
between the metrics' scores on the subset and on all systems, for SPA and for PA.  The subsets
draw in turn from one Generator, pair after pair; scoring draws nothing, so a pair's subsets can
be drawn without being scored and the later pairs still get theirs.
Figure 3 (fewer segments): WMT23 en-de, MetricX-23 and XCOMET-Ensemble; 100 bootstrap samples of
n segments for n = 25, 50, 100, 200, 300 and all, each with its own sign table, shared by the
humans and both metrics; the 2.5% and 97.5% quantiles of SPA and PA over the samples.

Run 0 is the chapter's own draw: its Generator (seed 20240415) after the draws for its first real
pair of systems, then Figure 2's subsets, then Figure 3's bootstrap, in the chapter's order.  Runs
1-4 are fresh Generators seeded 1-4 (the chapter's ``EXTRA_SEEDS``), one for Figure 2 and another
for Figure 3.

    python benchmarks/spa.py     # writes, in spalib/data/results/,
        # spa_ablation.csv        run 0's r for every subset (the figure's run)
        # spa_ablation_seeds.csv  runs 1-4 summarized by ``summarize``: mean r and wins
        # spa_bootstrap.csv       the intervals of runs 0-4

The chapter scores the en-de subsets of run 0 and of seed 1 and reruns run 0's bootstrap, and
checks them against these files; ``tests/test_stored_spa.py`` checks run 0's he-en subsets and
seed 2's summary and intervals.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from scipy import stats

import _setup  # first: the threading layer
import spalib
from spalib import data

RESULTS = _setup.RESULTS
OUT_ABLATION = os.path.join(RESULTS, "spa_ablation.csv")
OUT_SEEDS = os.path.join(RESULTS, "spa_ablation_seeds.csv")
OUT_BOOTSTRAP = os.path.join(RESULTS, "spa_bootstrap.csv")
SEED = 20240415          # the chapter's
N_RESAMPLES = 1000
REF_SEED = 4             # mt-metrics-eval's seed for SPA
EXTRA_SEEDS = [1, 2, 3, 4]
LANGUAGE_PAIRS = [("wmt22", "zh-en"), ("wmt23", "en-de"), ("wmt23", "he-en"), ("wmt23", "zh-en")]
N_SUBSETS = 50
MIN_SYSTEMS = 4
N_BOOT = 100
FIG3_METRICS = ("MetricX-23-refA", "XCOMET-Ensemble-refA")
FIG3_TASK = ("wmt23", "en-de")


def chapter_generator() -> np.random.Generator:
    """The chapter's Generator as its Figure 2 cell finds it: seeded with ``SEED``, then the draws
    for WMT23 en-de's two best systems (the signs by hand, spalib's p-value, SciPy's).
    """
    rng = np.random.default_rng(SEED)
    human = data.segment_task(data.load_mtme("wmt23", "en-de")).human
    top = human.mean(axis=1).sort_values(ascending=False).index[:2]
    d = (human.loc[top[0]] - human.loc[top[1]]).to_numpy()
    rng.choice([-1.0, 1.0], size=(N_RESAMPLES, d.size))
    spalib.pairwise_pvalues(human.loc[list(top)], n_resamples=N_RESAMPLES, rng=rng)
    stats.permutation_test((human.loc[top[0]], human.loc[top[1]]),
                           lambda a, b, axis: np.sum(a - b, axis=axis),
                           vectorized=True, permutation_type="samples",
                           alternative="greater", n_resamples=N_RESAMPLES, rng=rng)
    return rng


def load_tasks() -> dict:
    return {key: data.segment_task(data.load_mtme(*key), exclude_metrics=("GEMBA-GPT4",))
            for key in LANGUAGE_PAIRS}


def prepare(tasks: dict) -> dict:
    """Per language pair: SPA results, p-value matrices, means, scores on all systems."""
    prepared = {}
    for (test_set, lp), t in tasks.items():
        results = [spalib.soft_pairwise_accuracy(t.human, f, rng=REF_SEED, signs="mtme")
                   for f in t.metrics.values()]
        ph = results[0].human_pvalues                        # the same for every metric
        pm = np.stack([r.metric_pvalues for r in results])
        hs = t.human.mean(axis=1).to_numpy()
        ms = np.stack([f.mean(axis=1).to_numpy() for f in t.metrics.values()])
        full_spa = np.array([r.statistic for r in results])
        full_pa = np.array([spalib.pairwise_accuracy(hs, x) for x in ms])
        prepared[test_set, lp] = results, ph, pm, hs, ms, full_spa, full_pa
    return prepared


def subset_spa(ph, pm, keep):
    """SPA of every metric on the systems `keep`, from the full p-value matrices."""
    i, j = np.triu_indices(len(keep), 1)
    return 1 - np.mean(np.abs(ph[keep[i], keep[j]] - pm[:, keep[i], keep[j]]), axis=1)


def ablate(prepared: dict, rng, scored=None) -> pd.DataFrame:
    """Figure 2: every language pair's subsets drawn from ``rng`` in turn; those of the pairs in
    ``scored`` (None: all) scored, one row per subset and meta-metric.
    """
    scored = tuple(prepared) if scored is None else scored
    rows = []
    for (test_set, lp), (_, ph, pm, hs, ms, full_spa, full_pa) in prepared.items():
        for k in range(MIN_SYSTEMS, len(hs)):
            for _ in range(N_SUBSETS):
                keep = np.sort(rng.choice(len(hs), size=k, replace=False))
                if (test_set, lp) not in scored:
                    continue          # drawn, so that later pairs get the same subsets
                spa = subset_spa(ph, pm, keep)
                pa = np.array([spalib.pairwise_accuracy(hs[keep], x[keep]) for x in ms])
                for name, sub, full in (("SPA", spa, full_spa), ("PA", pa, full_pa)):
                    with warnings.catch_warnings():   # r of a near-constant subset: as is
                        warnings.simplefilter("ignore", stats.ConstantInputWarning)
                        r = stats.pearsonr(sub, full)[0] if np.std(sub) > 0 else np.nan
                    rows.append({"set": f"{test_set} {lp}", "systems": k,
                                 "meta-metric": name, "r": r})
    return pd.DataFrame(rows)


def summarize(run: pd.DataFrame) -> pd.DataFrame:
    """Per language pair, for each number of systems and for all ("all"): the mean r of SPA and
    PA (undefined r left out), and of the subsets where both are defined, those where SPA's r is
    higher.  The chapter has the same function.
    """
    pair = run["r"].to_numpy().reshape(-1, 2)               # per subset: SPA's r, PA's r
    both = ~np.isnan(pair).any(axis=1)
    subsets = run.iloc[::2][["set", "systems"]].assign(
        **{"SPA higher": both & (pair[:, 0] > pair[:, 1]), "both defined": both})
    parts = []
    for keys in (["set", "systems"], ["set"]):
        mean_r = run.groupby([*keys, "meta-metric"])["r"].mean().unstack()
        counts = subsets.groupby(keys)[["SPA higher", "both defined"]].sum()
        parts.append(mean_r.join(counts).reset_index())
    sizes, overall = parts
    table = pd.concat([sizes.astype({"systems": str}), overall.assign(systems="all")])
    table = table.sort_values("set", kind="stable").reset_index(drop=True)
    return table[["set", "systems", "SPA", "PA", "SPA higher", "both defined"]]


def bootstrap(t, rng) -> pd.DataFrame:
    """Figure 3: 95% intervals of PA and SPA over N_BOOT resamples of n segments, for each n."""
    sizes = [25, 50, 100, 200, 300, len(t.human.columns)]   # segments per system
    rows = []
    for n_seg in sizes:
        for _ in range(N_BOOT):
            cols = rng.choice(t.human.shape[1], size=n_seg, replace=True)
            signs = spalib.draw_signs(N_RESAMPLES, n_seg, rng=rng)
            hsub = t.human.to_numpy()[:, cols]
            ph = spalib.pairwise_pvalues(hsub, signs=signs)   # shared by both metrics
            for name in FIG3_METRICS:
                msub = t.metrics[name].to_numpy()[:, cols]
                pm = spalib.pairwise_pvalues(msub, signs=signs)
                pa = spalib.pairwise_accuracy(hsub.mean(axis=1), msub.mean(axis=1))
                rows.append({"metric": name, "segments": n_seg,
                             "SPA": spalib.spa_from_pvalues(ph, pm), "PA": pa})
    boot = pd.DataFrame(rows).melt(id_vars=["metric", "segments"],
                                   var_name="meta-metric", value_name="value")
    by_cell = boot.groupby(["metric", "meta-metric", "segments"])["value"]
    return by_cell.quantile([0.025, 0.975]).unstack()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    start = time.perf_counter()
    tasks = load_tasks()
    prepared = prepare(tasks)
    rng = chapter_generator()
    ablation = ablate(prepared, rng)                         # run 0: the chapter's draw
    intervals = {0: bootstrap(tasks[FIG3_TASK], rng)}       # the same Generator, next
    print(f"run 0: {time.perf_counter() - start:.0f} s", flush=True)

    def extra(seed):
        summary = summarize(ablate(prepared, np.random.default_rng(seed)))
        intervals[seed] = bootstrap(tasks[FIG3_TASK], np.random.default_rng(seed))
        return summary.assign(seed=seed)

    seeds = pd.concat(_setup.timed_runs(extra, EXTRA_SEEDS), ignore_index=True)
    ablation.to_csv(OUT_ABLATION, index=False)
    seeds[["seed", *seeds.columns[:-1]]].to_csv(OUT_SEEDS, index=False)
    boot = pd.concat({run: iv.reset_index() for run, iv in intervals.items()}, names=["run"])
    boot.reset_index("run").to_csv(OUT_BOOTSTRAP, index=False)
    print(f"all runs: {time.perf_counter() - start:.0f} s")
    print(seeds[seeds["systems"] == "all"].to_string(index=False))


if __name__ == "__main__":
    main()

"""The bootstrap runs of ``chapters/wei_jia_annotators.md`` too slow for the chapter: the curves of
its Figure 2, the agreement of its Figure 3, and two 10,000-trial majorities of the previous chapter.

Everything is drawn as the chapter draws it, from the previous chapter's generator
(``np.random.default_rng(20210801)``): a bootstrap takes one 64-bit number from it per trial, so
each run starts at a known place in the stream, and ``stream(position)`` (the chapter's) gives the
generator there.

- Figure 2 (``CURVE``): at each size n of 10, 25, 50, 100, ..., 700 judgements per system, the
  humans' n, then the perfect annotator's int(r n) (r of the year), 2,000 trials each: the error
  against the label trials' majority; from position 80,000.  The chapter's zh-en curves (not
  stored) follow, then Figure 3.
- Figure 3 (``AGREEMENT``): BLEU and chrF on all pairs, then BERTScore, BLEURT-20 and COMET-22 on
  WMT22 zh-en, each at 25, 50, ..., 800 resampled judgement rows per system, 1,000 trials each:
  the share of trials x pairs whose order is the metric's order on all its rows.
- Majorities (``MAJORITY``): each pair's share of 10,000 trials that put its first system ahead,
  for the label bootstrap on the near-tied pairs (from position 0) and for BLEU on every WMT22 zh-en
  pair (its trials in the previous chapter's Table 1, from position 20,000); each drawn in full for
  those pairs' systems only, which gives them the full run's draws.

    python benchmarks/wei_jia_annotators.py
        # writes spalib/data/results/wei_jia_annotators_curve.csv, ..._agreement.csv and
        # ..._majority.csv (about 30 s on one thread)

The chapter draws the first point of each figure again, and the majorities of the near-tied pairs
of WMT22 zh-en, and checks them against these files; ``tests/test_stored_wei_jia_annotators.py``
reruns other points and pairs.
"""

from __future__ import annotations

import os
import time
from types import SimpleNamespace

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import spalib
from spalib import data

RESULTS = _setup.RESULTS
CURVE = os.path.join(RESULTS, "wei_jia_annotators_curve.csv")
AGREEMENT = os.path.join(RESULTS, "wei_jia_annotators_agreement.csv")
MAJORITY = os.path.join(RESULTS, "wei_jia_annotators_majority.csv")

SEED = 20210801          # the previous chapter's
N_TRIALS = 10_000        # its bootstrap trials for Table 1
N_CURVE = 2000           # trials per point of Figure 2, and the label trials
N_SIZES = 1000           # trials per point of Figure 3
KEYS = ["year", "lp", "system"]
OUTPUT = ["lp", "system", "sid"]
SIZES = np.array([10, 25, 50, *range(100, 701, 100)])
ESTIMATORS = ("human", "perfect annotator")
ROW_SIZES = [25, 50, 100, 200, 400, 800]
ROWS = "judgement rows per system"
NEURAL = ("BERTScore", "BLEURT-20", "COMET-22")
TOP = np.iinfo(np.uint64).max
CLOSE = 0.05             # a near-tie: a share of the label trials this close to 1/2
PAIR = ["year", "lp", "first", "second"]
CURVE_START = 8 * N_TRIALS                                     # the chapter's Figure 2
ZH_CURVE_START = CURVE_START + len(SIZES) * len(ESTIMATORS) * N_CURVE   # its zh-en curves
AGREEMENT_START = ZH_CURVE_START + len(SIZES) * len(ESTIMATORS) * N_CURVE   # its Figure 3
BLEU_START = 2 * N_TRIALS                                      # BLEU's trials in Table 1


def stream(position: int) -> np.random.Generator:
    """The previous chapter's generator after ``position`` bootstrap trials."""
    generator = np.random.default_rng(SEED)
    generator.integers(0, TOP, size=position, dtype=np.uint64, endpoint=True)
    return generator


def inputs() -> SimpleNamespace:
    """The chapter's data, pairs, label trials, efficiency ratios and full-data orders."""
    da = data.load_wmt_toen_da()
    judgements = da.judgements
    keys, raw = judgements[KEYS], judgements["raw"]
    systems = keys.drop_duplicates()
    pairs = spalib.system_pairs(systems, within=["year", "lp"])
    zh = judgements[(judgements["year"] == 2022) & (judgements["lp"] == "zh-en")]
    zh_pairs = pairs[((pairs["year"] == 2022) & (pairs["lp"] == "zh-en")).to_numpy()]
    stats = {m: data.prepare_statistics(m, da=da)[judgements["output"]] for m in ("bleu", "chrf")}
    zh_eval = data.load_mtme("wmt22", "zh-en")
    zh_scores = {}
    for name in NEURAL:
        seg = zh_eval.seg_scores(f"{name}-refA")
        zh_scores[name] = seg.to_numpy()[seg.index.get_indexer(zh["system"]), zh["sid"].to_numpy() - 1]
    label_boot = spalib.bootstrap_system_scores(raw, keys, n_resamples=N_CURVE, rng=stream(0))
    ratio = {}
    for year in (2021, 2022):
        rows = judgements[judgements["year"] == year]
        ratio[year] = spalib.perfect_annotator(rows["raw"], rows[OUTPUT]).ratio
    main = {}
    for m, name in (("bleu", "BLEU"), ("chrf", "chrF")):
        full = spalib.bootstrap_system_scores(stats[m], keys, metric=m, n_resamples=1, rng=0)
        main[name] = full.observed_predictions(pairs)
    for name, values in zh_scores.items():
        full = spalib.bootstrap_system_scores(values, zh[KEYS], n_resamples=1, rng=0)
        main[f"{name} (zh-en)"] = full.observed_predictions(zh_pairs)
    return SimpleNamespace(judgements=judgements, keys=keys, raw=raw, pairs=pairs, zh=zh,
                           zh_pairs=zh_pairs, stats=stats, zh_scores=zh_scores,
                           labels=label_boot.predictions(pairs), ratio=ratio, main=main,
                           system_year=systems.set_index(KEYS, drop=False)["year"])


def curve_point(inp: SimpleNamespace, n, estimator: str, rng) -> dict:
    """One point of Figure 2: the error against the labels' majority of ``n`` judgements per
    system (``n`` perfect ones: int(r n) crowd ones, r of the year), ``N_CURVE`` trials.
    """
    perfect = {k: int(n * inp.ratio[y]) for k, y in inp.system_year.items()}
    per_system = n if estimator == "human" else perfect
    boot = spalib.bootstrap_system_scores(inp.raw, inp.keys, sample_size=per_system,
                                          n_resamples=N_CURVE, rng=rng)
    d = spalib.decompose_pairwise_error(boot.predictions(inp.pairs), inp.labels, no_bias=True)
    return {"judgements per system": n, "estimator": estimator, "error against true labels": d.variance}


def curve(inp: SimpleNamespace) -> pd.DataFrame:
    """Figure 2: every size, the humans then the perfect annotator, from one generator."""
    rng = stream(CURVE_START)
    return pd.DataFrame([curve_point(inp, n, estimator, rng) for n in SIZES for estimator in ESTIMATORS])


def metric_runs(inp: SimpleNamespace) -> list:
    """Figure 3's metrics in the chapter's order: (label, values, rows, metric, pairs)."""
    runs = [(name, inp.stats[m], inp.keys, m, inp.pairs) for m, name in (("bleu", "BLEU"), ("chrf", "chrF"))]
    runs += [(f"{name} (zh-en)", values, inp.zh[KEYS], "mean", inp.zh_pairs)
             for name, values in inp.zh_scores.items()]
    return runs


def agreement_point(inp: SimpleNamespace, run: tuple, m: int, rng) -> dict:
    """One point of Figure 3: how often a metric's order on ``m`` resampled rows per system is its
    order on all its rows, over ``N_SIZES`` trials and every pair.
    """
    label, values, rows, metric, pair_list = run
    boot = spalib.bootstrap_system_scores(values, rows, metric=metric, sample_size=m,
                                          n_resamples=N_SIZES, rng=rng)
    same = boot.predictions(pair_list) == inp.main[label]   # trials x pairs, matched by pair
    return {"metric": label, ROWS: m, "agreement": same.to_numpy().mean()}


def agreement(inp: SimpleNamespace) -> pd.DataFrame:
    """Figure 3: every metric, then every size, from one generator."""
    rng = stream(AGREEMENT_START)
    return pd.DataFrame([agreement_point(inp, run, m, rng) for run in metric_runs(inp) for m in ROW_SIZES])


def redraw(inp: SimpleNamespace, values, position: int, pair_list: pd.DataFrame, metric="mean") -> pd.Series:
    """Each pair's share of the previous chapter's 10,000 trials from ``position`` that put its
    first system ahead: the chapter's ``replay``, in full for the systems of ``pair_list``, from one
    placeholder row (never read) for each other system.
    """
    keep = {(y, lp, s) for y, lp, a, b in pair_list[PAIR].itertuples(index=False) for s in (a, b)}
    systems = pd.MultiIndex.from_frame(inp.keys)
    take = systems.isin(list(keep)) | ~systems.duplicated()   # same systems, same order
    boot = spalib.bootstrap_system_scores(values[take], inp.keys[take], metric=metric,
                                          n_resamples=N_TRIALS, rng=stream(position))
    return boot.predictions(pair_list).mean(axis=0)


def near_pairs(inp: SimpleNamespace) -> pd.DataFrame:
    """The pairs whose first ``N_CURVE`` label trials split within ``CLOSE`` of a half."""
    return inp.pairs[((inp.labels.mean(axis=0) - 0.5).abs() < CLOSE).to_numpy()]


def majority(inp: SimpleNamespace) -> pd.DataFrame:
    """The label bootstrap's share on the near-tied pairs (its trials from position 0), then
    BLEU's on every WMT22 zh-en pair (its Table 1 trials, from position 20,000).
    """
    runs = {"labels": redraw(inp, inp.raw, 0, near_pairs(inp)),
            "BLEU": redraw(inp, inp.stats["bleu"], BLEU_START, inp.zh_pairs, metric="bleu")}
    return pd.concat([share.rename("share").reset_index().assign(run=run)
                      for run, share in runs.items()], ignore_index=True)[["run", *PAIR, "share"]]


def write(table: pd.DataFrame, path: str) -> None:
    """Write ``table`` and check that reading it back gives it exactly."""
    table.to_csv(path, index=False)
    pd.testing.assert_frame_equal(pd.read_csv(path), table, check_exact=True)
    print(f"{os.path.basename(path)}: {len(table)} rows, {os.path.getsize(path):,} bytes", flush=True)


def main():
    start = time.perf_counter()
    inp = inputs()
    print(f"inputs: {time.perf_counter() - start:.0f} s", flush=True)
    for run, path in ((curve, CURVE), (agreement, AGREEMENT), (majority, MAJORITY)):
        start = time.perf_counter()
        write(run(inp), path)
        print(f"{run.__name__}: {time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()

"""Wei & Jia's Table 1 on all WMT21+22 to-English pairs: 10,000 bootstrap trials each of the human
labels, a second human estimator, corpus BLEU and corpus chrF (234,309 judgement rows, 147
systems, 839 pairs), then the decomposition of every row.

spalib: four calls of ``bootstrap_system_scores`` (numba) and the decompositions, timed in full.
Baseline: the same work the way the authors' notebooks do it, trial by trial in pandas
(``groupby(...).sample(frac=1, replace=True)`` for the human and for the metric, sums of the
sacrebleu statistics per system, sacrebleu's formula per system), timed on a few trials and scaled
to 10,000; and a faster NumPy variant of the baseline (integer draws per system, no pandas).
The sacrebleu statistics are extracted once beforehand (cached) and are not part of either time.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sacrebleu.metrics import BLEU, CHRF

import _setup  # noqa: F401  (first: the threading layer)
import spalib
from spalib import data

N_TRIALS = 10_000
BASELINE_TRIALS = 3


def spalib_table1(raw, stats, key, pairs, rng):
    labels = spalib.bootstrap_system_scores(raw, key, n_resamples=N_TRIALS, rng=rng).predictions(pairs)
    human = spalib.bootstrap_system_scores(raw, key, n_resamples=N_TRIALS, rng=rng).predictions(pairs)
    rows = [spalib.decompose_pairwise_error(human, labels, no_bias=True)]
    for metric, values in stats.items():
        boot = spalib.bootstrap_system_scores(values, key, metric=metric, n_resamples=N_TRIALS, rng=rng)
        rows.append(spalib.decompose_pairwise_error(boot.predictions(pairs), labels))
    return rows


def pandas_trial(frame, stats_columns, scorers, seed):
    """One trial as the notebooks do it: resample rows per system with pandas for the labels, the
    human estimator and the metric.
    """
    groups = frame.groupby("key")
    labels, human = (groups.sample(frac=1, replace=True, random_state=seed + k).groupby("key")["raw"].mean()
                     for k in (0, 1))
    metric = groups.sample(frac=1, replace=True, random_state=seed + 2)
    sums = metric.groupby("key")[stats_columns].sum()
    scores = {name: [scorer._compute_score_from_stats(list(row)).score for row in sums[cols].to_numpy()]
              for name, (scorer, cols) in scorers.items()}
    return labels, human, scores


def numpy_trial(raw, stats, starts, scorers, rng):
    """One trial with NumPy draws per system (no pandas), sacrebleu's formula per system."""
    labels, human, scores = [], [], {name: [] for name in stats}
    for lo, hi in zip(starts[:-1], starts[1:]):
        labels.append(raw[lo + rng.integers(0, hi - lo, hi - lo)].mean())
        human.append(raw[lo + rng.integers(0, hi - lo, hi - lo)].mean())
        rows = lo + rng.integers(0, hi - lo, hi - lo)
        for name, values in stats.items():
            scores[name].append(scorers[name]._compute_score_from_stats(list(values[rows].sum(axis=0))).score)
    return labels, human, scores


def main():
    da = data.load_wmt_toen_da()
    j = da.judgements
    keys = j[["year", "lp", "system"]]
    stats = {m: data.prepare_statistics(m, da=da)[j["output"]] for m in ("bleu", "chrf")}
    systems = keys.drop_duplicates().sort_values(list(keys.columns))
    pairs = spalib.system_pairs(systems, within=["year", "lp"])
    print(f"WMT21+22 to-English: {len(j):,} judgements, {len(systems)} systems, {len(pairs)} pairs, "
          f"{N_TRIALS:,} trials of human labels, human, BLEU and chrF")
    raw = j["raw"].to_numpy()
    first = keys.iloc[:5000]  # compile, on the pairs of the first rows' systems
    spalib_table1(raw[:5000], {m: s[:5000] for m, s in stats.items()}, first,
                  spalib.system_pairs(first.drop_duplicates(), within=["year", "lp"]).iloc[:1], 0)

    start = time.perf_counter()
    spalib_table1(raw, stats, keys, pairs, np.random.default_rng(0))
    t_spalib = time.perf_counter() - start
    print(f"  spalib (numba), 10,000 trials, all rows                 {t_spalib:9.1f} s", flush=True)

    frame = pd.DataFrame(np.column_stack([stats["bleu"], stats["chrf"]]),
                         columns=[f"b{i}" for i in range(10)] + [f"c{i}" for i in range(18)])
    frame["raw"], frame["key"] = raw, pd.MultiIndex.from_frame(keys).factorize()[0]  # one id per system
    scorers = {"bleu": (BLEU(), [f"b{i}" for i in range(10)]), "chrf": (CHRF(), [f"c{i}" for i in range(18)])}
    start = time.perf_counter()
    for seed in range(BASELINE_TRIALS):
        pandas_trial(frame, [c for _, cols in scorers.values() for c in cols], scorers, seed)
    t_pandas = (time.perf_counter() - start) / BASELINE_TRIALS * N_TRIALS
    print(f"  pandas per trial (the notebooks' way), scaled from {BASELINE_TRIALS}     {t_pandas:9.0f} s", flush=True)

    codes = pd.MultiIndex.from_frame(keys).factorize(sort=True)[0]
    order = np.argsort(codes, kind="stable")
    starts = np.concatenate([[0], np.cumsum(np.bincount(codes))])
    sorted_stats = {m: s[order] for m, s in stats.items()}
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for _ in range(BASELINE_TRIALS):
        numpy_trial(raw[order], sorted_stats, starts, {"bleu": BLEU(), "chrf": CHRF()}, rng)
    t_numpy = (time.perf_counter() - start) / BASELINE_TRIALS * N_TRIALS
    print(f"  NumPy per trial, scaled from {BASELINE_TRIALS}                          {t_numpy:9.0f} s", flush=True)
    print(f"speed-up: {t_pandas / t_spalib:.0f}x over the pandas baseline (goal >= 100x), "
          f"{t_numpy / t_spalib:.0f}x over the NumPy baseline")


if __name__ == "__main__":
    main()

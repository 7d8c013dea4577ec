"""The slow runs of ``chapters/summeval.md``, stored so that the chapter reads them.

Each run is the chapter's own call, with its seed (``SEED``) and in its order of random draws:

- ``spalib/data/results/summeval_table1.csv``: the error table (the paper's Table 1) on each of
  the five seeds spawned from ``SeedSequence(SEED)``: 10,000 bootstrap trials of the expert
  judgements for the labels, another for the Human row, one for each of ROUGE, METEOR and
  BERTScore, all drawn in that order from the seed's Generator, and each predictor's error split
  in the authors' notebook order (columns ``seed``, the spawned seed's place; ``row``; error,
  bias, prediction scatter, label scatter);
- ``spalib/data/results/summeval_ranking.json``: the ranking of the ten metrics and the crowd
  against the experts' relevance ratings, by SPA and PA (``spalib.rank_metrics``, ``rng=SEED``);
- ``spalib/data/results/summeval_seeds.csv``: the four more seeds of the best metric against each
  other one, one PERM-BOTH test per pair with its own Generator ``[seed, k]`` (``k``: the other
  metric's place), by SPA and PA: each test's p-value and draw count;
- ``spalib/data/results/summeval_by_crowd.json``: exercise 2's ranking of the ten metrics by SPA
  against the crowd's relevance ratings (no intervals);
- ``spalib/data/results/summeval_seconds.csv``: the seconds each run took (its CPU time).

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/summeval.py

Under a minute.  One thread each, so that the seconds it stores are one core's, as the book's.

Each error-table seed draws from a Generator of its own; each pair of metrics in a ranking draws
from a stream keyed by the seed and the pair.  So the chapter recomputes the first seed, ranks two
metrics and the crowd again, reruns each statistic's more-seed test with the largest p-value and
two metrics of exercise 2, and checks them against these files; ``tests/test_stored_summeval.py`` reruns other slices.
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
OUT_TABLE1 = os.path.join(RESULTS, "summeval_table1.csv")
OUT_RANKING = os.path.join(RESULTS, "summeval_ranking.json")
OUT_SEEDS = os.path.join(RESULTS, "summeval_seeds.csv")
OUT_BY_CROWD = os.path.join(RESULTS, "summeval_by_crowd.json")
OUT_SECONDS = os.path.join(RESULTS, "summeval_seconds.csv")
SEED = 20210802            # the chapter's
N_SEEDS = 5                # the error table's seeds, spawned from SEED
EXTRA_SEEDS = range(1, 5)  # the chapter's four more seeds
T1_TRIALS = 10_000
KEY = ["document", "system"]
METRICS = {"ROUGE": "rouge-4/f1", "METEOR": "METEOR", "BERTScore": "bertscore/f1"}
CANDIDATES = {"ROUGE-1": "rouge-1/f1", "ROUGE-2": "rouge-2/f1",
              "ROUGE-4": "rouge-4/f1", "ROUGE-L": "rouge-l/f1",
              "METEOR": "METEOR", "BERTScore": "bertscore/f1",
              "MoverScore": "MoverScore", "S3": "s3/pyr",
              "QAEval": "qa-eval/f1", "BEwTE": "BEwTE/f1"}
STATS = ("spa", "pa")
T1_COLUMNS = ["error", "bias", "prediction scatter", "label scatter"]


class Book:
    """The chapter's data: the expert judgements with the metric scores and the system pairs (the
    error table), the experts' relevance by system and document and the metrics' (the ranking).
    """

    def __init__(self):
        summeval = data.load_summeval()
        self.rows = summeval.ratings("expert").join(summeval.metric_table(), on=KEY)
        self.pairs = spalib.system_pairs(sorted(self.rows["system"].unique()))
        expert = summeval.ratings("expert", "relevance")
        self.human = expert.groupby(KEY)["score"].mean().unstack("document")
        crowd = summeval.ratings("crowd", "relevance")
        table = summeval.metric_table(list(CANDIDATES.values()))
        self.metrics = {name: table[col].unstack("document") for name, col in CANDIDATES.items()}
        self.metrics["crowd"] = crowd.groupby(KEY)["score"].mean().unstack("document")


def predictions(book, rng, metrics=METRICS, n_trials=T1_TRIALS):
    """The labels and every estimator's predictions, from one bootstrap each (the chapter's)."""
    def predict(column):
        boot = spalib.bootstrap_system_scores(book.rows[column], book.rows[["system"]],
                                              n_resamples=n_trials, rng=rng)
        return boot.predictions(book.pairs)
    labels = predict("score")
    optimal = (labels.mean(axis=0) > 0.5).astype(np.int8)
    predictors = {"Optimal": (optimal, True), "Human": (predict("score"), True)}
    for name, column in metrics.items():
        predictors[name] = (predict(column), False)
    return labels, predictors


def decomposition(labels, predictors, notebook_order=True):
    """Table 1's rows: each predictor's error split into the toy's terms (the chapter's)."""
    out = {}
    for name, (pred, unbiased) in predictors.items():
        d = spalib.decompose_pairwise_error(pred, labels, no_bias=unbiased, notebook_order=notebook_order)
        pred_s, label_s = (d.noise, d.variance)[::1 if notebook_order else -1]
        out[name] = {"error": d.error, "bias": d.bias, "prediction scatter": pred_s, "label scatter": label_s}
    return pd.DataFrame(out).T


def table1_run(book, k):
    """The error table on the ``k``-th seed spawned from ``SEED`` (0: the chapter's first)."""
    seed = np.random.SeedSequence(SEED).spawn(N_SEEDS)[k]
    return decomposition(*predictions(book, np.random.default_rng(seed)))


def table1_rows(run, k):
    """One seed's table as rows of the stored file."""
    return run.rename_axis("row").reset_index().assign(seed=k)[["seed", "row", *T1_COLUMNS]]


def ranking(book, names=None):
    """The chapter's ranking against the experts' relevance (of ``names`` only, if given)."""
    metrics = book.metrics if names is None else {m: book.metrics[m] for m in names}
    return spalib.rank_metrics({"SummEval": (book.human, metrics)}, meta_metrics=STATS, rng=SEED)


def more_seed_tests(book, best, seed, stat, ks=None):
    """The best metric against each other one (or the ``ks``-th others), one test per pair with
    the Generator ``[seed, k]``, as the chapter's four more seeds: one row per test.
    """
    others = [m for m in book.metrics if m != best]
    rows = []
    for k, m in enumerate(others):
        if ks is not None and k not in ks:
            continue
        test = spalib.compare_metrics(book.human, {best: book.metrics[best], m: book.metrics[m]},
                                      meta_metric=stat, rng=np.random.default_rng([seed, k]))
        rows.append({"seed": seed, "statistic": stat, "k": k, "metric": m,
                     "pvalue": test.pvalues.loc[best, m], "draws": test.draws.loc[best, m]})
    return pd.DataFrame(rows)


def by_crowd(book, names=None):
    """Exercise 2: the ten metrics (or ``names``) ranked by SPA against the crowd's relevance."""
    automatic = {k: v for k, v in book.metrics.items() if k != "crowd" and (names is None or k in names)}
    return spalib.rank_metrics({"crowd": (book.metrics["crowd"], automatic)}, meta_metrics="spa", rng=SEED,
                               interval_resamples=0)


def timed(run, *args):
    start = time.process_time()
    result = run(*args)
    return result, time.process_time() - start


def written(path, frame):
    """Write ``frame`` as CSV and check that it reads back exactly, as the chapter reads it."""
    frame.to_csv(path, index=False)
    back = pd.read_csv(path)
    pd.testing.assert_frame_equal(back, frame, check_exact=True, check_dtype=False)
    print(f"{os.path.basename(path)}: {os.path.getsize(path) / 1000:.1f} kB", flush=True)


def main():
    book = Book()
    seconds = {}
    runs, seconds["table1"] = timed(lambda: [table1_run(book, k) for k in range(N_SEEDS)])
    print(f"the error table's {N_SEEDS} seeds: {seconds['table1']:.1f} s", flush=True)
    result, seconds["ranking"] = timed(ranking, book)
    print(f"the ranking: {seconds['ranking']:.1f} s", flush=True)
    best = result.comparisons["SummEval", "spa"].scores.idxmax()
    tests, seconds["seeds"] = timed(lambda: pd.concat(
        [more_seed_tests(book, best, seed, stat) for seed in EXTRA_SEEDS for stat in STATS],
        ignore_index=True))
    print(f"the four more seeds' tests: {seconds['seeds']:.1f} s", flush=True)
    crowd_result, seconds["by_crowd"] = timed(by_crowd, book)
    print(f"exercise 2's ranking: {seconds['by_crowd']:.1f} s", flush=True)

    written(OUT_TABLE1, pd.concat([table1_rows(run, k) for k, run in enumerate(runs)], ignore_index=True))
    written(OUT_SEEDS, tests)
    written(OUT_SECONDS, pd.DataFrame({"run": list(seconds), "seconds": list(seconds.values())}))
    for path, stored in ((OUT_RANKING, result), (OUT_BY_CROWD, crowd_result)):
        stored.save(path)
        print(f"{os.path.basename(path)}: {os.path.getsize(path) / 1000:.1f} kB", flush=True)
    print((sum(runs) / len(runs)).round(4).to_string())
    print(result.table().round(3).to_string())


if __name__ == "__main__":
    main()

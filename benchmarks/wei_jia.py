"""Wei & Jia's Table 1 on the WMT21-22 to-English data, run as ``chapters/wei_jia.md`` runs it: the
bootstraps too slow for the chapter, stored so that it reads them.

The procedure (``chapters/wei_jia.md``, Table 1): one generator seeded with the chapter's ``SEED``
gives, in this order, 10,000 trials of a bootstrap of each system's judged rows for the labels,
another for a second human sample, one for each of BLEU, chrF and TER (their corpus score on the
resampled rows), and one for each of BERTScore, BLEURT-20 and COMET-22 on the WMT22 zh-en rows
(their segment scores); each predictor's error is decomposed against the labels.  The worker
bootstrap (generators ``[SEED, 1]`` and ``[SEED, 1, k]``) keeps the first 1,000 trials of the
metrics' row bootstraps; the zh-en counts on more seeds draw all their bootstraps afresh from
``[SEED, 2, k]``.  It writes

- ``spalib/data/results/wei_jia_tables.csv``: decomposition tables (error, c0_noise, bias, c1_var),
  one row per predictor: ``Table 1`` (all pairs) and ``Table 1, notebook order`` (the authors'
  order of the inputs); ``WMT21 cs-en`` to ``WMT22 zh-en``, each language pair's pairs (zh-en with
  the neural metrics); ``workers``; with ``seed`` 0 for the chapter's run and 1-4 for the worker
  bootstrap's and zh-en's four more seeds, and the ``seconds`` each run took (CPU seconds, one
  thread: ``Table 1``'s for its five bootstraps, zh-en's seed 0 for the three neural ones);
- ``spalib/data/results/wei_jia_pairs.csv``: the run pair by pair: y*, the label noise, the share
  of the first 2,000 label trials that prefer the first system, the standard deviation of the pair's
  difference over the label trials, each predictor's terms (``ErrorDecomposition``'s pair_error,
  pair_bias, pair_variance and c0) and each metric's share of trials where it and the label both
  stray from their majorities, its share of trials that prefer the first system and its order on the
  rows as given;
- ``spalib/data/results/wei_jia_systems.csv``: each system's standard deviation over the label
  trials;
- ``spalib/data/results/wei_jia_neural_shares.csv``: each neural metric's share of trials
  preferring the first system of each WMT22 zh-en pair.

    NUMBA_NUM_THREADS=1 python benchmarks/wei_jia.py     # about a minute and a half

Trial t draws each system's rows from a stream keyed by the trial's seed and the system's place in
sorted order, so the systems that sort first get the same trials when bootstrapped alone, and the
generator moves on by the same draws.  The chapter bootstraps WMT21 cs-en alone and checks it
against these files (then the neural metrics' bootstraps, the worker bootstrap's human rows and
BLEU's row of zh-en's first more seed); ``tests/test_stored_wei_jia.py`` reruns WMT21 de-en (with
cs-en), the worker bootstrap's first more seed and zh-en's second.
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
OUT_TABLES = os.path.join(RESULTS, "wei_jia_tables.csv")
OUT_PAIRS = os.path.join(RESULTS, "wei_jia_pairs.csv")
OUT_SYSTEMS = os.path.join(RESULTS, "wei_jia_systems.csv")
OUT_NEURAL = os.path.join(RESULTS, "wei_jia_neural_shares.csv")
SEED = 20210801          # the chapter's
N_TRIALS = 10_000
KEYS = ["year", "lp", "system"]
METRICS = {"bleu": "BLEU", "chrf": "chrF", "ter": "TER"}
NEURAL = ("BERTScore", "BLEURT-20", "COMET-22")
MORE_SEEDS = [1, 2, 3, 4]
COLUMNS = ["error", "c0_noise", "bias", "c1_var"]


class Book:
    """The chapter's data: the DA rows, the metrics' statistics, the pairs and zh-en's rows."""

    def __init__(self):
        self.da = data.load_wmt_toen_da()
        self.judgements = self.da.judgements
        systems = self.judgements[KEYS].drop_duplicates()
        self.pairs = spalib.system_pairs(systems, within=["year", "lp"])
        self.stats_per_output = {m: data.prepare_statistics(m, da=self.da) for m in METRICS}
        zh_eval = data.load_mtme("wmt22", "zh-en")
        self.zh = self.judgements[(self.judgements["year"] == 2022) & (self.judgements["lp"] == "zh-en")]
        self.in_zh = ((self.pairs["year"] == 2022) & (self.pairs["lp"] == "zh-en")).to_numpy()
        self.zh_pairs = self.pairs[self.in_zh]
        self.zh_segment_scores = {}   # one score per zh-en judgement row, as the chapter takes it
        for name in NEURAL:
            seg = zh_eval.seg_scores(f"{name}-refA")
            sys_rows = seg.index.get_indexer(self.zh["system"])
            self.zh_segment_scores[name] = seg.to_numpy()[sys_rows, self.zh["sid"].to_numpy() - 1]

    def language_pairs(self, n):
        """The rows and pairs of the first ``n`` language pairs in the bootstraps' sorted order."""
        groups = self.judgements[["year", "lp"]].drop_duplicates().sort_values(["year", "lp"])
        first = pd.MultiIndex.from_frame(groups.iloc[:n])
        rows = pd.MultiIndex.from_frame(self.judgements[["year", "lp"]]).isin(first)
        in_pairs = pd.MultiIndex.from_frame(self.pairs[["year", "lp"]]).isin(first)
        return self.judgements[rows], self.pairs[in_pairs]


def table1_bootstraps(book, judgements, rng):
    """The chapter's five bootstraps of ``judgements``'s rows (all, or the first language pairs),
    drawn from ``rng`` in its order: the labels, the second human sample, BLEU, chrF and TER.
    """
    raw, keys = judgements["raw"], judgements[KEYS]   # scores, and their systems
    label_boot = spalib.bootstrap_system_scores(raw, keys, n_resamples=N_TRIALS, rng=rng)
    human_boot = spalib.bootstrap_system_scores(raw, keys, n_resamples=N_TRIALS, rng=rng)
    metric_boot = {METRICS[m]:
                   spalib.bootstrap_system_scores(s[judgements["output"]], keys, metric=m,
                                                  n_resamples=N_TRIALS, rng=rng)
                   for m, s in book.stats_per_output.items()}
    return label_boot, human_boot, metric_boot


def table1_predictors(label_boot, human_boot, metric_boot, pairs):
    """The labels (trials x pairs) and every predictor with its flag ``unbiased``, as the chapter."""
    labels = label_boot.predictions(pairs)
    optimal = (labels.mean(axis=0) > 0.5).astype(np.int8)
    predictors = {"Optimal": (optimal, True), "Human": (human_boot.predictions(pairs), True)}
    predictors |= {name: (boot.predictions(pairs), False) for name, boot in metric_boot.items()}
    return labels, predictors


def decomposition_table(predictors, labels, notebook_order=False):
    """The decomposition of every predictor on the pairs of ``labels`` (the chapter's function)."""
    rows = {}
    for name, (pred, unbiased) in predictors.items():
        d = spalib.decompose_pairwise_error(pred[labels.columns], labels, no_bias=unbiased,
                                            notebook_order=notebook_order)
        rows[name] = {"error": d.error, "c0_noise": d.noise, "bias": d.bias, "c1_var": d.variance}
    return pd.DataFrame(rows).T


def pair_terms(labels, predictors, label_boot, metric_boot, pairs, n_peek=2000):
    """The run pair by pair (``chapters/wei_jia.md`` has the same function)."""
    terms, labels_np = {}, labels.to_numpy()
    for name, (pred, unbiased) in predictors.items():
        d = spalib.decompose_pairwise_error(pred[labels.columns], labels,
                                            no_bias=unbiased)
        if name == "Optimal":   # the labels' own
            terms |= {"optimal": d.optimal_label, "label noise": d.raw_noise,
                      "labels 2000": labels.iloc[:n_peek].mean(axis=0).to_numpy()}
        terms |= {f"{name} error": d.pair_error, f"{name} bias": d.pair_bias,
                  f"{name} variance": d.pair_variance, f"{name} c0": d.c0}
        if not unbiased:   # a metric: trials where it and the label both stray, ...
            y = pred[labels.columns].to_numpy()
            both = (y != (y.mean(0) > 0.5)) & (labels_np != (labels_np.mean(0) > 0.5))
            terms |= {f"{name} both": both.mean(0), f"{name} share": y.mean(0),
                      f"{name} observed": metric_boot[name].observed_predictions(pairs)}
    first, second = (label_boot.systems.get_indexer(pd.MultiIndex.from_frame(
        pairs[["year", "lp", side]])) for side in ("first", "second"))
    sd = (label_boot.scores[:, first] - label_boot.scores[:, second]).std(axis=0)
    terms["label sd"] = sd   # of the pair's difference over the label trials
    return pd.DataFrame({k: np.asarray(v, float) for k, v in terms.items()},
                        index=labels.columns)


def system_sd(label_boot):
    """Each system's standard deviation over the label trials."""
    return pd.DataFrame({"label sd": label_boot.scores.std(0)}, index=label_boot.systems)


def neural_bootstraps(book, rng):
    """The neural metrics' bootstraps of the zh-en rows, drawn from ``rng`` after Table 1's."""
    return {name: spalib.bootstrap_system_scores(values, book.zh[KEYS], n_resamples=N_TRIALS, rng=rng)
            for name, values in book.zh_segment_scores.items()}


def neural_shares(book, neural) -> pd.DataFrame:
    """Each neural metric's share of trials preferring each zh-en pair's first system: what the
    chapter checks its own neural bootstraps against.
    """
    return pd.DataFrame({name: boot.predictions(book.zh_pairs).mean(axis=0).to_numpy()
                         for name, boot in neural.items()})


def worker_bootstrap(book, label_boot, generator, n_trials=1_000):
    """Human means, resampling each language pair's workers with all their rows (the chapter's)."""
    scores = np.empty((n_trials, len(label_boot.systems)))
    for (year, lp), rows in book.judgements.groupby(["year", "lp"]):
        sums = rows.pivot_table("raw", "worker", "system", aggfunc="sum", fill_value=0)
        counts = rows.pivot_table("raw", "worker", "system", aggfunc="size", fill_value=0)
        n = len(sums)
        draws = generator.multinomial(n, np.full(n, 1 / n), size=n_trials)
        where = label_boot.systems.get_indexer([(year, lp, s) for s in sums.columns])
        scores[:, where] = (draws @ sums.to_numpy()) / (draws @ counts.to_numpy())
    return spalib.SystemBootstrap(label_boot.systems, scores, label_boot.observed, lower_is_better=False)


def worker_decomposition(book, label_boot, predictors, generator):
    """Table 1 with labels and a second human sample from worker bootstraps; the metrics keep the
    first trials of their row bootstraps.
    """
    boot = worker_bootstrap(book, label_boot, generator)
    labels_w = boot.predictions(book.pairs)
    predictors_w = {
        "Optimal": ((labels_w.mean(axis=0) > 0.5).astype(np.int8), True),
        "Human": (worker_bootstrap(book, label_boot, generator).predictions(book.pairs), True)}
    predictors_w |= {name: (predictors[name][0].iloc[:len(labels_w)], False) for name in METRICS.values()}
    return decomposition_table(predictors_w, labels_w)


def zh_seed_table(book, seed):
    """zh-en's decomposition from fresh bootstraps of its rows seeded by ``[SEED, 2, seed]``."""
    seed_rng = np.random.default_rng([SEED, 2, seed])

    def boot(values, metric="mean"):
        return spalib.bootstrap_system_scores(values, book.zh[KEYS], metric=metric,
                                              n_resamples=N_TRIALS, rng=seed_rng)

    seed_labels = boot(book.zh["raw"]).predictions(book.zh_pairs)
    seed_predictors = {METRICS[m]: (boot(s[book.zh["output"]], m).predictions(book.zh_pairs), False)
                       for m, s in book.stats_per_output.items()}
    seed_predictors |= {name: (boot(values).predictions(book.zh_pairs), False)
                        for name, values in book.zh_segment_scores.items()}
    return decomposition_table(seed_predictors, seed_labels)


def as_rows(table, name, seed=0, seconds=np.nan):
    """A decomposition table as rows of the stored file."""
    return table.rename_axis("row").reset_index().assign(table=name, seed=seed, seconds=seconds)


def timed(run, *args):
    start = time.process_time()   # CPU seconds: a loaded machine does not inflate them
    result = run(*args)
    return result, time.process_time() - start


def main():
    book = Book()
    rng = np.random.default_rng(SEED)
    (label_boot, human_boot, metric_boot), seconds = timed(table1_bootstraps, book, book.judgements, rng)
    print(f"Table 1's bootstraps: {seconds:.0f} s", flush=True)
    labels, predictors = table1_predictors(label_boot, human_boot, metric_boot, book.pairs)
    tables = [as_rows(decomposition_table(predictors, labels), "Table 1", seconds=seconds),
              as_rows(decomposition_table(predictors, labels, notebook_order=True), "Table 1, notebook order")]
    neural, neural_seconds = timed(neural_bootstraps, book, rng)
    for (year, lp), group in book.pairs.groupby(["year", "lp"], sort=True):
        of_lp = labels.loc[:, book.pairs.index.isin(group.index)]
        table = decomposition_table(predictors, of_lp)
        if (year, lp) == (2022, "zh-en"):
            zh_predictors = {name: (boot.predictions(book.zh_pairs), False) for name, boot in neural.items()}
            table = pd.concat([table, decomposition_table(zh_predictors, of_lp)])
        tables.append(as_rows(table, f"WMT{year % 100} {lp}",
                              seconds=neural_seconds if lp == "zh-en" else np.nan))
    for k in [0, *MORE_SEEDS]:
        generator = np.random.default_rng([SEED, 1] if k == 0 else [SEED, 1, k])
        table, seconds = timed(worker_decomposition, book, label_boot, predictors, generator)
        tables.append(as_rows(table, "workers", seed=k, seconds=seconds))
        print(f"workers, seed {k}: {seconds:.1f} s", flush=True)
    for k in MORE_SEEDS:
        table, seconds = timed(zh_seed_table, book, k)
        tables.append(as_rows(table, "WMT22 zh-en", seed=k, seconds=seconds))
        print(f"zh-en, seed {k}: {seconds:.1f} s", flush=True)
    tables = pd.concat(tables, ignore_index=True)[["table", "seed", "row", *COLUMNS, "seconds"]]
    by_pair = pair_terms(labels, predictors, label_boot, metric_boot, book.pairs)
    written = {OUT_TABLES: tables, OUT_PAIRS: by_pair.reset_index(), OUT_SYSTEMS: system_sd(label_boot).reset_index(),
               OUT_NEURAL: neural_shares(book, neural)}
    for path, frame in written.items():
        frame.to_csv(path, index=False)
        back = pd.read_csv(path)   # as the chapter reads it: every number exactly
        pd.testing.assert_frame_equal(back, frame, check_exact=True, check_dtype=False)
        print(f"{os.path.basename(path)}: {os.path.getsize(path) / 1000:.0f} kB", flush=True)
    print(tables[tables["seed"] == 0].round(4).to_string(index=False))


if __name__ == "__main__":
    main()

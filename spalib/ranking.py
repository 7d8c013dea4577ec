"""Ranking metrics the way WMT does: per task, with confidence intervals, averaged over tasks.

:func:`rank_metrics` is the one call from segment scores (one :class:`~spalib.data.SegmentTask`
per language pair) to a table: for every task and meta-metric (SPA, PA, acc_eq) the scores, the
significance clusters of :func:`spalib.compare_metrics`, a bootstrap interval per metric
(:func:`metric_intervals`), and the WMT23/24 averaged ranking (:func:`average_comparisons`,
whose significance comes from the same PERM-BOTH draws).
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from tqdm import tqdm

from spalib._core import bootstrap, engine, meta, signs as sign_kernels, storage
from spalib._core.align import align_metrics
from spalib._core.extreme import count_extreme
from spalib._core.validation import (choice_iv, flag_iv, int_iv, labels_iv, names_iv, positive_int_iv, probability_iv,
                                     real_iv, renamed_keyword, rescaled, rng_iv, sums_iv, threading_layer)
from spalib._core.sign_matrix import signs_arguments_iv
from spalib._core.vocabulary import META_METRICS, MetaMetric, SignRecipe
from spalib.metametrics import (EarlyStopping, MetricComparison, chance_levels, compare_metrics, significance_ranks,
                                _without_test)
from spalib.rank_correlations import kendall_tau, tie_calibration
from spalib.resampling import SignMatrix

__all__ = ["metric_intervals", "average_comparisons", "rank_metrics", "AveragedComparison", "MetricRanking"]

FORMATS = ("text", "tsv", "markdown", "latex")

WRONG_REFERENCE_SHARE = 0.6
"""An added metric that scores a ranked human translation (other than the standard reference)
above every other system on at least this share of the segments is warned about: it looks scored
against that translation.  Set from the released metrics of the two test sets here that rank a
human translation (WMT23 he-en's refA, WMT22 zh-en's refB; ``tests/test_ranking.py``): the 50
scored against the standard reference put it strictly on top on at most 48% of the segments; of
the 46 scored against it, the only two that also score it do so on 73% and 100%; a simulated
metric scored against he-en's refA, on 83%.  Few real mistakes: a rule of thumb."""


class _WholeTable(pd.DataFrame):
    """A DataFrame that ``print`` shows whole: at a terminal's width pandas elides the middle
    columns, and with them :meth:`MetricRanking.versus`'s p-values.
    """

    @property
    def _constructor(self):
        return _WholeTable

    def __repr__(self) -> str:
        return self.to_string()


def _metric_intervals_iv(human, metrics, meta_metric, confidence_level, n_resamples, rng, epsilons):
    meta_metric = choice_iv(meta_metric, "meta_metric", META_METRICS)
    confidence_level = probability_iv(confidence_level, "confidence_level")
    n_resamples = positive_int_iv(n_resamples, "n_resamples")
    rng = rng_iv(rng)
    h, aligned, _ = align_metrics(human, metrics)
    names = list(aligned)
    if epsilons is not None:
        if not isinstance(epsilons, dict) or set(epsilons) != set(names):
            raise ValueError("`epsilons` must be a dict with one tie threshold per metric of `metrics`")
        epsilons = {n: real_iv(epsilons[n], f"epsilons[{n!r}]", low=0.0) for n in names}
    if meta_metric != "acc_eq":
        # SPA and PA do not change under a positive scale: keep squares and sums in range
        h, aligned = rescaled(h), {n: rescaled(m) for n, m in aligned.items()}
    return meta_metric, confidence_level, n_resamples, rng, names, h, np.stack(list(aligned.values())), epsilons


@renamed_keyword("statistic", "meta_metric")
def metric_intervals(human, metrics: dict, *, meta_metric: MetaMetric = "spa", confidence_level: float = 0.95,
                     n_resamples: int = 1000, rng=None, epsilons: dict | None = None) -> pd.DataFrame:
    """Percentile bootstrap intervals of each metric's SPA, PA or acc_eq, segments resampled.

    Parameters
    ----------
    human : DataFrame, systems x segments
        Human segment scores, complete.
    metrics : dict of name -> DataFrame
        Each metric's segment scores on the same systems and segments.
    meta_metric : {"spa", "pa", "acc_eq", "pdp", "pearson"}
        As in :func:`spalib.compare_metrics`.
    confidence_level : float
        E.g. 0.95.
    n_resamples : int
        Bootstrap samples; every metric is scored on the same samples.
    rng : None, int or Generator
        The random state of the samples.
    epsilons : dict, optional
        acc_eq's tie threshold per metric (default: calibrated on all the data, as
        :func:`spalib.compare_metrics` does); held fixed in every sample.

    Returns
    -------
    DataFrame
        Index = metric (sorted), columns ``low`` and ``high``.

    Notes
    -----
    A sample draws the test set's segments with replacement (every system keeps its output on
    a drawn segment) and recomputes the meta-metric; the interval is the ``(1 - level) / 2`` and
    ``(1 + level) / 2`` percentiles of the samples (scipy's ``method="percentile"``).  SPA is
    recomputed with normal-approximation p-values (the central-limit approximation of the
    sign-flip distribution, close to the exact p-value when there are many segments; the
    permutation p-values would cost ``K`` sign patterns per sample); PA from the samples' system totals;
    acc_eq (group-by-item) as the mean of the drawn items' accuracies at fixed thresholds, so
    its interval leaves out the variability of the calibration; PDP from the drawn segments'
    centred sums.

    References
    ----------
    Efron, B. and Tibshirani, R. (1993). An Introduction to the Bootstrap. Chapman & Hall, ch. 13.
    Koehn, P. (2004). Statistical significance tests for machine translation evaluation. EMNLP.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> human = pd.DataFrame(rng.random((4, 30)))
    >>> ci = metric_intervals(human, {"m": human + rng.random((4, 30))}, meta_metric="pa", rng=1)
    >>> bool(ci.loc["m", "low"] <= ci.loc["m", "high"])
    True
    """
    meta_metric, level, n_resamples, rng, names, human, metrics, epsilons = _metric_intervals_iv(
        human, metrics, meta_metric, confidence_level, n_resamples, rng, epsilons)
    n_segments = human.shape[1]
    draws = rng.integers(0, n_segments, size=(n_resamples, n_segments))
    offsets = n_segments * np.arange(n_resamples)[:, None]
    counts = np.bincount((draws + offsets).ravel(), minlength=n_resamples * n_segments)
    counts = counts.reshape(n_resamples, n_segments).astype(np.float64)
    if meta_metric == "spa":
        samples = bootstrap._bootstrap_spa_normal(human, metrics, counts, False)
    elif meta_metric == "pa":
        tol = max(sign_kernels.tie_tolerance(m) for m in metrics)
        metric_sums = np.stack([bootstrap._resample_sums(counts, m) for m in metrics])
        samples = bootstrap._bootstrap_pa(bootstrap._resample_sums(counts, human), metric_sums, tol)
    elif meta_metric == "pdp":
        samples = _pdp_samples(human, metrics, counts)
    elif meta_metric == "pearson":
        samples = _pearson_samples(human, metrics, counts)
    else:
        per_item = np.stack([_item_accuracies(human, m, None if epsilons is None else epsilons[n])
                             for n, m in zip(names, metrics)])
        samples = bootstrap._resample_sums(counts, per_item) / n_segments
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(samples, [tail, 100 - tail], axis=0)
    return pd.DataFrame({"low": low, "high": high}, index=pd.Index(names, name="metric"))


def _pdp_samples(human: np.ndarray, metrics: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """PDP within segments of each bootstrap sample (rows of ``counts``: how often each segment
    is drawn) and metric: each segment's centred cross and square sums, weighted by its count
    (:func:`spalib._core.meta.pdp_sums` with every system scored).
    """
    hc = human - human.mean(axis=0)
    mc = metrics - metrics.mean(axis=1, keepdims=True)
    cross = bootstrap._resample_sums(counts, np.einsum("sl,msl->ml", hc, mc))
    human_squares = bootstrap._resample_sums(counts, (hc * hc).sum(axis=0)[None, :])
    metric_squares = bootstrap._resample_sums(counts, (mc * mc).sum(axis=1))
    return cross / np.sqrt(human_squares * metric_squares)


def _pearson_samples(human: np.ndarray, metrics: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Pearson's r over all cells of each bootstrap sample and metric, from each segment's sums
    of the (globally centred) scores, squares and cross products, weighted by its count.
    """
    h = human - human.mean()
    m = metrics - metrics.mean(axis=(1, 2), keepdims=True)
    n = counts.sum(axis=1)[:, None] * human.shape[0]
    h_sum = bootstrap._resample_sums(counts, h.sum(axis=0)[None, :])
    m_sum = bootstrap._resample_sums(counts, m.sum(axis=1))
    cross = bootstrap._resample_sums(counts, np.einsum("sl,msl->ml", h, m)) - h_sum * m_sum / n
    h_squares = bootstrap._resample_sums(counts, (h * h).sum(axis=0)[None, :]) - h_sum * h_sum / n
    m_squares = bootstrap._resample_sums(counts, (m * m).sum(axis=1)) - m_sum * m_sum / n
    return cross / np.sqrt(h_squares * m_squares)


def _item_accuracies(human: np.ndarray, metric: np.ndarray, epsilon: float | None) -> np.ndarray:
    """acc_eq of every item (segment) at the metric's calibrated (or given) tie threshold."""
    if epsilon is None:
        epsilon = tie_calibration(human, metric, variant="acc_eq", grouping="item").epsilon
    return kendall_tau(human, metric, variant="acc_eq", epsilon=epsilon, grouping="item").group_statistics


@dataclass(frozen=True)
class AveragedComparison(MetricComparison):
    """:class:`~spalib.MetricComparison` of the weighted average over tasks, plus
    ``mean_task_ranks`` (the weighted mean of each metric's cluster rank in the tasks) and
    ``settings["weights"]``.
    """

    mean_task_ranks: pd.Series = None


def _average_comparisons_iv(comparisons, weights, alpha):
    if not isinstance(comparisons, dict) or not comparisons:
        raise ValueError("`comparisons` must be a non-empty dict of task name -> MetricComparison")
    for task, comparison in comparisons.items():
        if not isinstance(comparison, MetricComparison):
            raise TypeError(f"comparisons[{task!r}] must be a MetricComparison; got {type(comparison).__name__}")
        if not comparison.null_distributions and not _made_without_test(comparison):
            raise ValueError(f"comparisons[{task!r}] carries no null draws (it was not made by compare_metrics, "
                             "or it was read from a file)")
        if comparison.meta_metric not in META_METRICS:
            raise ValueError(f"comparisons[{task!r}]: cannot average meta-metric {comparison.meta_metric!r}")
    if weights is None:
        weights = {task: 1.0 for task in comparisons}
    if not isinstance(weights, dict) or set(weights) != set(comparisons):
        raise ValueError("`weights` must give one weight per task of `comparisons`")
    weights = {task: real_iv(w, f"weights[{task!r}]", low=0.0) for task, w in weights.items()}
    total = sum(weights.values())
    if total <= 0:
        raise ValueError("`weights` must not all be zero")
    names = sorted(set.intersection(*(set(c.scores.index) for c in comparisons.values())))
    if len(names) < 2:
        raise ValueError("the tasks share fewer than two metrics")
    without = [task for task, c in comparisons.items() if _made_without_test(c)]
    if without and len(without) < len(comparisons):
        raise ValueError(f"comparisons[{without[0]!r}] was made without a test (n_resamples=0) and others with "
                         "one: the average's test needs every task's draws")
    return {task: w / total for task, w in weights.items()}, names, probability_iv(alpha, "alpha")


_RANGES = {"pearson": (-1.0, 1.0), "pdp": (-1.0, 1.0)}
"""The meta-metrics whose values span more than [0, 1] (SPA, PA and acc_eq lie in it)."""


def _width(comparison) -> float:
    low, high = _RANGES.get(comparison.meta_metric, (0.0, 1.0))
    return high - low


def _made_without_test(comparison) -> bool:
    """Made with ``n_resamples=0``: scores and positions, no test."""
    return comparison.settings.get("n_resamples") == 0


def average_comparisons(comparisons: dict, *, weights: dict | None = None, alpha: float = 0.05) -> AveragedComparison:
    """The WMT23/24 averaged ranking: weighted mean scores over tasks, tested with the tasks' draws.

    Parameters
    ----------
    comparisons : dict of task name -> MetricComparison
        From :func:`spalib.compare_metrics` (any meta-metric, any mix of tasks).
    weights : dict of task name -> float, optional
        Each task's weight (default: equal, as WMT24; WMT23 gave its accuracy task more).
    alpha : float
        Significance level of the clusters (``p <= alpha``).

    Returns
    -------
    AveragedComparison
        Scores = weighted means over the tasks of the scores, rescaled to [0, 1], of the metrics
        every task has, best first;
        p-values, clusters, and the weighted mean of the per-task cluster ranks.

    Notes
    -----
    Scores are first rescaled to [0, 1], as WMT's averages do: Pearson's r and PDP ``(r + 1) / 2``;
    SPA, PA and acc_eq already lie in it.  For a pair of metrics, each task's stored PERM-BOTH (or pairs-test) draws of
    ``stat(better') - stat(worse')`` are weighted like the scores, repeated cyclically to the
    longest list (early stopping shortens some), and summed over tasks; the p-value is the share
    of summed draws at or above the observed difference of the averages (mt-metrics-eval's
    ``AverageCorrMatrix``).  Metrics missing from a task are left out of the average
    (``settings["left_out"]``).

    Summing draws assumes the tasks' nulls are independent.  Two meta-metrics of one language pair
    (SPA and PA, say) share its data, so their nulls are correlated when drawn with the same
    swaps; drawn independently (as :func:`rank_metrics` does: each meta-metric has a seed of its
    own) their sum spreads too little and the averaged p-values come out too small (the
    "Use it on your own metric" chapter measures it).  The average is sound over language pairs,
    whose data are independent.

    References
    ----------
    Freitag, M. et al. (2023). Results of WMT23 metrics shared task. WMT. Section 7.
    Freitag, M. et al. (2024). Are LLMs breaking MT metrics? Results of the WMT24 metrics shared task. WMT.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> human = pd.DataFrame(rng.random((5, 24)))
    >>> metrics = {"good": human + 0.2 * rng.random((5, 24)), "noisy": human + rng.random((5, 24))}
    >>> tasks = {t: compare_metrics(human, metrics, meta_metric="pa", n_resamples=50, rng=t) for t in (1, 2)}
    >>> average_comparisons(tasks).scores.index.tolist()
    ['good', 'noisy']
    """
    weights, names, alpha = _average_comparisons_iv(comparisons, weights, alpha)
    # each task's scores and draws rescaled to [0, 1] first, then weighted (the toolkit's AverageCorrs)
    weights = {t: w / _width(comparisons[t]) for t, w in weights.items()}
    low = {t: _RANGES.get(comparisons[t].meta_metric, (0.0, 1.0))[0] for t in weights}
    scores = {n: sum(w * (comparisons[t].scores[n] - low[t]) for t, w in weights.items()) for n in names}
    order = sorted(names, key=lambda n: (-scores[n], n))
    n = len(order)
    pvals, draws, nulls, ranks = _without_test(n)
    tolerances = {}
    tested = not _made_without_test(next(iter(comparisons.values())))
    for i, j in engine.metric_pairs(order) if tested else ():
        parts = [(w, comparisons[t].null_draws(order[i], order[j])) for t, w in weights.items()]
        length = max(len(null) for _, null in parts)
        null = sum(w * np.resize(part, length) for w, part in parts)
        observed = scores[order[i]] - scores[order[j]]
        # the draws summed in another order than the scores: a tie counts, within the terms' tolerance
        terms = np.array([[w * (comparisons[t].scores[m] - low[t]) for t, w in weights.items()
                           for m in (order[i], order[j])]])
        tolerances[(order[i], order[j])] = sign_kernels.tie_tolerance(terms)
        pvals[i, j] = count_extreme(null, observed, tolerances[(order[i], order[j])], "greater") / length
        draws[i, j] = length
        nulls[(order[i], order[j])] = null
    index = pd.Index(order, name="metric")
    weights = {t: w * _width(comparisons[t]) for t, w in weights.items()}   # the tasks' own weights again
    mean_ranks = {m: sum(w * comparisons[t].ranks[m] for t, w in weights.items()) for m in order}
    left_out = sorted(set().union(*(set(c.scores.index) for c in comparisons.values())) - set(names))
    return AveragedComparison(
        meta_metric="average", scores=pd.Series([scores[m] for m in order], index=index, name="average"),
        pvalues=pd.DataFrame(pvals, index=index, columns=order), draws=pd.DataFrame(draws, index=index, columns=order),
        ranks=pd.Series(significance_ranks(pvals, alpha) if tested else ranks, index=index, name="rank"),
        alpha=alpha, settings={"weights": weights, "left_out": left_out} | ({} if tested else {"n_resamples": 0}),
        null_distributions=nulls, tolerances=tolerances,
        mean_task_ranks=pd.Series([mean_ranks[m] for m in order], index=index, name="mean task rank"))


@dataclass(frozen=True)
class MetricRanking:
    """What :func:`rank_metrics` found.

    Attributes
    ----------
    comparisons : dict of (task, meta-metric) -> MetricComparison
    intervals : dict of (task, meta-metric) -> DataFrame
        Bootstrap ``low`` / ``high`` per metric (empty dict without intervals).
    average : AveragedComparison or None
        The averaged ranking over all (task, meta-metric) pairs; None for a single one.
    settings : dict
        The arguments that produced the ranking; ``seed`` (the int given, or the one drawn from
        a Generator: passed as ``rng`` it gives the same comparisons; each comparison's
        ``settings["seed"]`` is its own seed) and ``interval_seed`` (the intervals' stream).
    warnings : list of str
        Results that are almost surely a mistake in the input: an added metric that looks
        reversed, or seems to have been scored against the wrong reference.
    chance : DataFrame or None
        What a metric scoring at random gets in each (task, meta-metric), from
        :func:`spalib.chance_levels` (columns ``expected``, ``se``, ``how``); the text, markdown
        and LaTeX tables show it as a last row.  None with ``chance_resamples=0``.
    """

    comparisons: dict
    intervals: dict
    average: AveragedComparison | None
    settings: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    chance: pd.DataFrame | None = None

    def save(self, path) -> None:
        """Write the ranking to ``path`` as JSON: every score, p-value, draw count, rank, interval,
        setting and warning, and no null draws (as :meth:`spalib.MetricComparison.save`).

        A ranking too slow to repeat is stored once and read with :meth:`load`.  A pair's draws
        depend only on the seed and the pair, so ranking a few of its metrics again with the same
        ``rng`` gives their rows of every table, and their draws, bit for bit.
        """
        content = {"comparisons": {key: c._stored_parts() for key, c in self.comparisons.items()},
                   "intervals": self.intervals, "settings": self.settings, "warnings": self.warnings,
                   "chance": self.chance,
                   "average": None if self.average is None else self.average._stored_parts()}
        storage.write(path, "spalib.MetricRanking", content, EarlyStopping)

    @classmethod
    def load(cls, path) -> MetricRanking:
        """A ranking written by :meth:`save`, equal to it in every table and setting, bit for bit.

        Its comparisons keep no null draws, so :meth:`versus` and :meth:`spalib.MetricComparison.null_draws`
        refuse, saying how to get the draws of the pairs you need: rank those metrics again.
        """
        content = storage.read(path, "spalib.MetricRanking", EarlyStopping)
        average = content.pop("average")
        return cls(comparisons={key: MetricComparison(**parts) for key, parts in content.pop("comparisons").items()},
                   average=None if average is None else AveragedComparison(**average), **content)

    def with_draws_of(self, rerun: MetricRanking) -> MetricRanking:
        """The ranking with the null draws of ``rerun``, a ranking of some of its metrics made
        with the same call; refused unless ``rerun``'s numbers are this ranking's, bit for bit.

        A ranking read by :meth:`load` keeps no draws.  Ranking a few of its metrics again with
        the same arguments and ``rng`` gives their pairs the same draws (each pair draws from a
        stream of its own), hence the same scores, p-values, draw counts and intervals: this
        checks that, then lends the stored ranking those pairs' draws, so that :meth:`versus` and
        :meth:`spalib.MetricComparison.null_draws` answer for them.

        Parameters
        ----------
        rerun : MetricRanking
            The same call as this ranking's, on a subset of its metrics (at least two).

        Returns
        -------
        MetricRanking
            This ranking's tables and settings, with ``rerun``'s null draws.
        """
        if not isinstance(rerun, MetricRanking):
            raise TypeError(f"`rerun` must be a MetricRanking; got {type(rerun).__name__}")
        if rerun.settings != self.settings:
            differ = sorted(k for k in self.settings.keys() | rerun.settings.keys()
                            if self.settings.get(k) != rerun.settings.get(k))
            raise ValueError(f"`rerun` was made with other settings than this ranking: {', '.join(differ)}")
        if rerun.comparisons.keys() != self.comparisons.keys():
            raise ValueError("`rerun` ranks other tasks or meta-metrics than this ranking")
        comparisons = {}
        for key, stored in self.comparisons.items():
            names = list(rerun.comparisons[key].scores.index)
            try:
                comparisons[key] = stored.with_draws_of(rerun.comparisons[key])
                if key in self.intervals and not np.array_equal(self.intervals[key].loc[names].to_numpy(),
                                                              rerun.intervals[key].loc[names].to_numpy(),
                                                              equal_nan=True):
                    raise ValueError("`rerun`'s intervals differ from the stored ones")
            except ValueError as error:
                raise ValueError(f"{' '.join(key)}: {error}") from None
        average = None
        if self.average is not None:
            try:
                average = self.average.with_draws_of(rerun.average)
            except ValueError as error:
                raise ValueError(f"average: {error}") from None
        return replace(self, comparisons=comparisons, average=average)

    def versus(self, name: str, baselines) -> pd.DataFrame:
        """Is ``name`` better than each baseline?  One row per task, meta-metric and baseline.

        Parameters
        ----------
        name : str
            A metric of the ranking (e.g. yours).
        baselines : str or sequence of str
            The metrics to compare it with (e.g. ``["chrF", "BLEU"]``).

        Returns
        -------
        DataFrame
            Columns ``task``, ``meta_metric``, ``baseline``, ``score`` (of ``name``), ``baseline
            score``, ``difference``, ``p-value`` (two-sided, from the draws already made),
            ``draws`` (fewer than ``n_resamples`` where early stopping ended the test),
            ``extreme draws`` (how many draws were at least as extreme; 0 means p < 1/draws) and
            ``verdict``: "better", "worse" (p <= alpha, by the sign of the difference) or "not
            distinguishable".

        Notes
        -----
        The p-value is two-sided, ``#{draws: |Δ*| >= |Δ|} / draws``, over the stored null draws
        of the pair's significance test; a draw equal to the observed difference up to rounding
        counts as extreme.  Asking "is mine better or worse?" after seeing the scores is a
        two-sided question, hence the two-sided test.
        """
        names = list(next(iter(self.comparisons.values())).scores.index)
        baselines = names_iv(baselines, "baselines")
        if len(set(baselines)) != len(baselines):
            raise ValueError(f"`baselines` names a metric more than once: {baselines}")
        unknown = [m for m in [name, *baselines] if m not in names]
        if unknown:
            raise ValueError(f"no metric named {', '.join(map(repr, unknown))} in the ranking")
        if name in baselines or not baselines:
            raise ValueError("give baselines other than the metric itself")
        rows = []
        for (task, stat), comparison in self.comparisons.items():
            for baseline in baselines:
                delta = comparison.scores[name] - comparison.scores[baseline]
                if _made_without_test(comparison):   # n_resamples=0: no p-value, no verdict
                    rows.append({"task": task, "meta_metric": stat, "baseline": baseline,
                                 "score": comparison.scores[name], "baseline score": comparison.scores[baseline],
                                 "difference": delta, "p-value": np.nan, "draws": 0, "extreme draws": 0,
                                 "verdict": "not tested"})
                    continue
                null = comparison.null_draws(name, baseline)
                # a verdict of one's own: a draw that ties the difference counts (see _core/extreme.py)
                pair = np.array([[comparison.scores[name], comparison.scores[baseline]]])
                extreme = count_extreme(null, delta, sign_kernels.tie_tolerance(pair), "two-sided")
                p = extreme / null.size
                verdict = ("not distinguishable" if p > comparison.alpha
                           else "better" if delta > 0 else "worse")
                rows.append({"task": task, "meta_metric": stat, "baseline": baseline,
                             "score": comparison.scores[name],
                             "baseline score": comparison.scores[baseline], "difference": delta,
                             "p-value": p, "draws": null.size, "extreme draws": extreme,
                             "verdict": verdict})
        return _WholeTable(rows)

    def versus_string(self, name: str, baselines) -> str:
        """:meth:`versus` as plain text, p-values with no extreme draw shown as ``< 1/draws``."""
        table = self.versus(name, baselines)
        table["p-value"] = ["-" if d == 0 else f"< {1 / d:.2g}" if e == 0 else f"{p:.3f}"
                            for p, d, e in zip(table["p-value"], table["draws"], table["extreme draws"])]
        for column in ("score", "baseline score", "difference"):
            table[column] = [f"{v:+.4f}" if column == "difference" else f"{v:.4f}" for v in table[column]]
        alpha = next(iter(self.comparisons.values())).alpha
        return (f"{name} against baselines (two-sided test from the significance draws; verdict at "
                f"p <= {alpha}):\n" + table.drop(columns="extreme draws").to_string(index=False) + "\n")

    def table(self) -> pd.DataFrame:
        """One row per metric, best first: the averaged rank and score (several tasks), then per
        task and meta-metric the score, its interval and its significance cluster.
        """
        first = self.average if self.average is not None else next(iter(self.comparisons.values()))
        order = list(first.scores.index)
        columns = {}
        if self.average is not None:
            columns["rank"] = self.average.ranks
            columns["average"] = self.average.scores
            columns["mean task rank"] = self.average.mean_task_ranks
        for (task, stat), comparison in self.comparisons.items():
            label = f"{task} {stat}"
            columns[label] = comparison.scores
            if (task, stat) in self.intervals:
                columns[f"{label} low"] = self.intervals[(task, stat)]["low"]
                columns[f"{label} high"] = self.intervals[(task, stat)]["high"]
            columns[f"{label} rank"] = comparison.ranks
        table = pd.DataFrame(columns).reindex(order).rename_axis("metric")
        ranks = [c for c in table.columns if c == "rank" or (c.endswith(" rank") and c != "mean task rank")]
        return table.astype({c: "Int64" for c in ranks})

    def to_string(self, format: str = "text") -> str:
        """The table as ``"text"``, ``"tsv"`` (every number, for scripts; the description first, as
        ``# `` lines: ``pandas.read_csv(..., sep=TAB, comment="#")``), ``"markdown"`` or
        ``"latex"`` (a cell per task: score, [interval] and cluster rank).
        """
        format = choice_iv(format, "format", FORMATS)
        if format == "tsv":
            header = "".join(f"# {line}\n" for line in self.describe_lines())
            return header + self.table().to_csv(sep="\t", float_format="%.6g")
        display = self._display()
        if format == "text":
            return display.to_string(index=False) + "\n\n" + self.describe() + "\n"
        if format == "latex":
            return display.to_latex(index=False, escape=True)
        lines = ["| " + " | ".join(display.columns) + " |", "|" + "---|" * len(display.columns)]
        lines += ["| " + " | ".join(map(str, row)) + " |" for row in display.itertuples(index=False)]
        return "\n".join(lines) + "\n\n" + self.describe() + "\n"

    def _repr_html_(self) -> str:
        """The ``"text"`` table as an HTML table (what Jupyter shows), then :meth:`describe`."""
        from html import escape

        return (self._display().to_html(index=False, classes="metric-ranking")
                + f"\n<p>{escape(self.describe())}</p>\n")

    def _display(self) -> pd.DataFrame:
        table = self.table()
        out = pd.DataFrame({"metric": table.index})
        if self.average is not None:
            out["rank"] = table["rank"].to_numpy()
            out["average"] = [f"{v:.4f}" for v in table["average"]]
        for task, stat in self.comparisons:
            label = f"{task} {stat}"
            cells = []
            for _, row in table.iterrows():
                if pd.isna(row[label]):
                    cells.append("")
                    continue
                interval = (f" [{row[f'{label} low']:.3f}, {row[f'{label} high']:.3f}]"
                            if f"{label} low" in table else "")
                cells.append(f"{row[label]:.3f}{interval} ({row[f'{label} rank']})")
            out[f"{label} (rank)"] = cells
        if self.chance is not None:   # a reference row: what a metric scoring at random gets
            row = {column: "" for column in out.columns} | {"metric": "(chance)"}
            for (task, stat), level in self.chance["expected"].items():
                row[f"{task} {stat} (rank)"] = f"{level:.3f}"
            out = pd.concat([out, pd.DataFrame([row])], ignore_index=True)
        return out

    def describe_lines(self) -> list[str]:
        """What :meth:`describe` says, one sentence per line (the ``tsv`` format's header)."""
        s = self.settings
        stopping = s["early_stopping"]
        stop = (f" with early stopping (blocks of {stopping.block_size} draws; stop once p < "
                f"{stopping.early_min} or p > {stopping.early_max})" if stopping is not None
                else ", no early stopping")
        stats = s["meta_metrics"]
        tests = []
        if {"spa", "pa", "pdp", "pearson"} & set(stats):
            tests.append(f"PERM-BOTH, {s['n_resamples']} draws per metric pair{stop}")
        if "spa" in stats:
            tests.append(f"SPA from {s['spa_resamples']} shared sign patterns ({s['signs']})")
        if "acc_eq" in stats:
            tests.append(f"acc_eq by the pairs test, {s['n_resamples']} draws")
        parts = ([f"Significance: {'; '.join(tests)}; clusters at p <= {s['alpha']}."] if s["n_resamples"] else
                 ["Significance: none (k = 0, as mt-metrics-eval's): ranks are positions by score, not clusters."])
        if s["interval_resamples"]:
            parts.append(f"Intervals: {100 * s['confidence_level']:g}% percentile bootstrap over segments "
                         f"({s['interval_resamples']} samples; SPA with normal-approximation p-values, acc_eq at fixed "
                         "thresholds).")
        if self.chance is not None:
            how = self.chance["how"]
            simulated = sorted({stat for (_, stat), h in how.items() if h == "simulation"})
            parts.append("(chance): what a metric scoring every cell at random gets"
                         + (f" ({', '.join(simulated)} simulated, {s['chance_resamples']} random metrics; the rest "
                            "derived)." if simulated else " (derived)."))
        if self.average is not None:
            parts.append("Average: equal weight per task and meta-metric" + ("; its clusters from the summed draws."
                                                                          if s["n_resamples"] else "."))
        return parts + list(s.get("tasks", {}).values())

    def describe(self) -> str:
        """A sentence on how the table was made (the settings a reader needs to judge it)."""
        return " ".join(self.describe_lines())


def task_summary(report: dict) -> str:
    """One sentence on what a :class:`~spalib.data.SegmentTask` compares (from its ``report``).

    Parameters
    ----------
    report : dict
        ``SegmentTask.report``.

    Returns
    -------
    str
        The test set and language pair, the standard reference, the human score, the ranked
        systems and segments, and the metrics compared with those left out and why.

    Notes
    -----
    The same sentence is printed by ``spalib rank`` before ranking and ends the table's
    description, so that every table says what it ranked.

    References
    ----------
    Freitag, M. et al. (2023). Results of WMT23 metrics shared task. WMT.

    Examples
    --------
    >>> from spalib import data
    >>> print(task_summary(data.segment_task(data.load_mtme("wmt23", "en-de")).report))  # doctest: +ELLIPSIS
    wmt23 en-de: standard reference refA; human score mqm; 12 systems ranked (left out: ...
    """
    left_systems = "; ".join(f"{s}: {why}" for s, why in report["systems_dropped"].items()) or "none"
    reasons = [(report.get("metrics_reference_free_left_out", []), "reference-free"),
               (report.get("metrics_other_reference", []), f"scored against another reference than "
                                                           f"{report['standard_reference']}"),
               (report["metrics_excluded"], "not primary, or excluded by name")]
    left_metrics = "; ".join(f"{len(names)} {why}" + (f": {', '.join(names)}" if len(names) <= 5 else "")
                             for names, why in reasons if names)
    left_metrics = f"left out: {left_metrics}" if left_metrics else "none left out"
    return (f"{report['test_set']} {report['lp']}: standard reference {report['standard_reference']}; "
            f"human score {report['human']}; {report['systems']} systems ranked (left out: {left_systems}); "
            f"{report['segments_kept']} segments ({report['segments_dropped']} dropped for a missing score); "
            f"{report['metrics']} metrics compared ({left_metrics}).")


def _added_metric_warnings(task: str, human: pd.DataFrame, metrics: dict, report: dict) -> list[str]:
    """One line per added metric whose result is almost surely a mistake in its input.

    Reversed: its system-level Pearson r with the human scores is negative, or its PA is below
    0.5.  Wrong reference: it scores a system that is itself a human reference (e.g. he-en's
    refA) above every other system on at least :data:`WRONG_REFERENCE_SHARE` of the segments, as
    a metric scored against that reference would.
    """
    out = []
    human_sys = human.mean(axis=1)
    for name in report.get("extra_metrics", {}):
        frame = metrics[name]
        metric_sys = frame.mean(axis=1)
        # a correlation does not change under a positive scale: keep its squares in range
        r = float(np.corrcoef(rescaled(human_sys.to_numpy()), rescaled(metric_sys.to_numpy()))[0, 1])
        pa = meta._pairwise_agreement(human_sys.to_numpy(), metric_sys.to_numpy(), 0.0)
        accuracy = pa[0] / pa[1]
        if r < 0 or accuracy < 0.5:
            advice = (f"it was negated by --lower-is-better {name}: drop that option if larger is better"
                      if name in report.get("lower_is_better_metrics", ()) else
                      f"if smaller is better, pass --lower-is-better {name}")
            out.append(f"{task}: {name} looks reversed (system-level r = {r:.2f}, PA = {accuracy:.2f}): {advice}")
        for reference in report.get("reference_systems", []):
            share = _reference_win_share(frame, reference)
            if share >= WRONG_REFERENCE_SHARE:
                out.append(f"{task}: {name} scores {reference} above every other system on {share:.0%} of the "
                           f"segments: it seems to have been scored against {reference}; the standard reference "
                           f"of {report['test_set']} {report['lp']} is {report['standard_reference']}")
    return out


def _reference_win_share(scores: pd.DataFrame, reference: str) -> float:
    """The share of segments (columns) on which system ``reference`` scores strictly above every
    other system (rows); a tie at the top is not a win.
    """
    others = scores.drop(index=reference).max(axis=0)
    return float((scores.loc[reference] > others).mean())


def _warnings_of_added_metrics(tasks: dict) -> list[str]:
    """The warnings :func:`rank_metrics` gives about the metrics added to these tasks (see its
    Notes), without ranking: the command prints them before its first draw.
    """
    return [line for name, task in tasks.items() if hasattr(task, "report")
            for line in _added_metric_warnings(str(name), task.human, task.metrics, task.report)]


def _rank_metrics_iv(tasks, meta_metrics, n_resamples, rng, signs, spa_resamples, early_stopping, alpha,
                     interval_resamples, confidence_level, progress, executor):
    """Every argument of :func:`rank_metrics`, checked before the first draw of the first task."""
    if not isinstance(tasks, dict) or not tasks:
        raise ValueError("`tasks` must be a non-empty dict of task name -> SegmentTask (or (human, metrics))")
    labels_iv([str(name) for name in tasks], "tasks names (as strings)")
    prepared = {}
    for name, task in tasks.items():
        pair = (task.human, task.metrics) if hasattr(task, "human") and hasattr(task, "metrics") else task
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"tasks[{name!r}] must be a SegmentTask or a (human, metrics) tuple; "
                            f"got {type(task).__name__}")
        human, aligned, _ = align_metrics(*pair, minimum=2)
        if isinstance(signs, SignMatrix) and signs.n_segments != human.shape[1]:
            raise ValueError(f"`signs` cover {signs.n_segments} segments, task {name!r} has {human.shape[1]}")
        prepared[str(name)] = pair, aligned
    meta_metrics = (meta_metrics,) if isinstance(meta_metrics, str) else tuple(meta_metrics)
    if not meta_metrics:
        raise ValueError("`meta_metrics` must name at least one of spa, pa, acc_eq, pdp")
    meta_metrics = tuple(choice_iv(s, "meta_metrics", META_METRICS) for s in meta_metrics)
    for name, (_, aligned) in prepared.items():   # what compare_metrics would refuse, before any task runs
        for metric, m in aligned.items():
            sums_iv(m if "acc_eq" in meta_metrics else rescaled(m), f"tasks[{name!r}] metrics[{metric!r}]")
    prepared = {name: pair for name, (pair, _) in prepared.items()}
    if len(set(meta_metrics)) != len(meta_metrics):
        raise ValueError(f"`meta_metrics` names a meta-metric twice: {meta_metrics}")
    int_iv(n_resamples, "n_resamples", low=0)
    spa_resamples, checked_rng, signs = signs_arguments_iv(spa_resamples, rng, signs, count="spa_resamples")
    if early_stopping is not None and not isinstance(early_stopping, EarlyStopping):
        raise TypeError(f"`early_stopping` must be None or an EarlyStopping; got {early_stopping!r}")
    probability_iv(alpha, "alpha")
    interval_resamples = int_iv(interval_resamples, "interval_resamples", low=0)
    confidence_level = probability_iv(confidence_level, "confidence_level")
    flag_iv(progress, "progress")
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise TypeError(f"`executor` must be None or a concurrent.futures.Executor (anything with submit()), e.g. "
                        f"ProcessPoolExecutor() or a Dask client's get_executor(); got {executor!r}")
    _executor_iv(executor)
    # after every check: a Generator is touched only if all is well
    interval_rng = checked_rng if signs == "mtme" else checked_rng.spawn(1)[0]   # before the seed's draw
    seed = engine.root_seed(rng)
    if signs == "mtme":   # the toolkit seeds every task alike
        seeds = dict.fromkeys([(task, stat) for task in prepared for stat in meta_metrics], seed)
    else:   # a seed of its own for each (task, meta-metric): independent swaps, as WMT's runs
        seeds = {(task, stat): engine.derived_seed(seed, task, stat) for task in prepared for stat in meta_metrics}
    seeds[None] = interval_rng
    warnings = _warnings_of_added_metrics(tasks)
    summaries = {str(name): task_summary(task.report) for name, task in tasks.items() if hasattr(task, "report")}
    return prepared, meta_metrics, interval_resamples, confidence_level, seed, seeds, warnings, summaries


def _executor_iv(executor) -> None:
    """Refuse the executors the kernels cannot run under, before any work is queued."""
    if isinstance(executor, concurrent.futures.ProcessPoolExecutor):
        context = getattr(executor, "_mp_context", None)
        if context is not None and context.get_start_method() == "fork":
            raise ValueError("`executor`: a forked process cannot run numba's parallel kernels once the parent "
                             "has; use ProcessPoolExecutor(mp_context=multiprocessing.get_context('spawn'))")
    if isinstance(executor, concurrent.futures.ThreadPoolExecutor) and threading_layer() == "workqueue":
        raise ValueError("`executor`: numba's workqueue threading layer aborts the process when two threads run "
                         "its kernels at once; use a spawn ProcessPoolExecutor, or install OpenMP or TBB")


def _run_comparisons(jobs: dict, executor, progress: bool) -> dict:
    """Every job's :func:`compare_metrics`, in the jobs' order: here, or on ``executor``; on any
    exception (Ctrl-C included) the comparisons not yet started are cancelled.
    """
    if executor is None:
        return {(task, stat): compare_metrics(*args, progress=f"{task} {stat}" if progress else False, **kw)
                for (task, stat), (args, kw) in jobs.items()}
    futures = {}
    try:
        for key, (args, kw) in jobs.items():
            futures[key] = executor.submit(compare_metrics, *args, **kw)
            if not isinstance(futures[key], concurrent.futures.Future):
                raise TypeError(f"`executor`.submit must return a concurrent.futures.Future; got "
                                f"{type(futures[key]).__name__}")
        done = tqdm(concurrent.futures.as_completed(futures.values()), total=len(futures), desc="comparisons",
                    disable=not progress)
        for _ in done:
            pass
        return {key: future.result() for key, future in futures.items()}
    except BaseException:
        for future in futures.values():
            if isinstance(future, concurrent.futures.Future):
                future.cancel()
        raise


@renamed_keyword("statistics", "meta_metrics")
def rank_metrics(tasks: dict, *, meta_metrics: MetaMetric | Sequence[MetaMetric] = ("spa", "pa"),
                 n_resamples: int = 1000, rng=None, signs: SignRecipe | SignMatrix = "bits",
                 spa_resamples: int = 1000, early_stopping: EarlyStopping | None = None, alpha: float = 0.05,
                 interval_resamples: int = 1000, confidence_level: float = 0.95, chance_resamples: int = 50,
                 progress: bool = False, executor=None) -> MetricRanking:
    """Rank metrics on one or more tasks: scores, significance clusters, intervals, average.

    Parameters
    ----------
    tasks : dict of name -> SegmentTask or (human, metrics)
        E.g. ``{"en-de": spalib.data.segment_task(spalib.data.load_mtme("wmt23", "en-de"))}``.
    meta_metrics : str or sequence of {"spa", "pa", "acc_eq", "pdp", "pearson"}
        What to rank by; every (task, meta-metric) is one column of the table.
    n_resamples, signs, spa_resamples, early_stopping, alpha
        As in :func:`spalib.compare_metrics` (``n_resamples=0``: no test; ranks are positions by
        score, the average's too, as mt-metrics-eval's ``k = 0``).
    rng : None, int or Generator
        One seed for everything: each (task, meta-metric) gets an int seed of its own derived from
        it (by their names) and the intervals a stream of their own (``signs="mtme"`` needs an
        int, used by every task and meta-metric as the toolkit does).
    interval_resamples : int
        Bootstrap samples per interval (0: no intervals).
    confidence_level : float
        Of the intervals.
    chance_resamples : int
        Random metrics per task for the chance row (:func:`spalib.chance_levels`; only acc_eq's
        level is simulated, the others are derived; 0: no chance row).
    progress : bool
        Progress bars (with time estimates) over each task's metric pairs (with an ``executor``:
        one bar over the finished comparisons).
    executor : concurrent.futures.Executor, optional
        Runs the comparisons, one (task, meta-metric) each, e.g. a
        ``ProcessPoolExecutor(mp_context=multiprocessing.get_context("spawn"))`` or a Dask
        cluster's ``client.get_executor()``; the results are identical to a serial run.  A
        fork-context process pool, and a thread pool on numba's workqueue threading layer, are
        refused (numba's kernels cannot run under them); on any exception, Ctrl-C included, the
        comparisons not yet started are cancelled.

    Returns
    -------
    MetricRanking
        ``.table()``, ``.to_string(format)``, the per-task comparisons, intervals and average.

    Notes
    -----
    Each comparison is exactly :func:`spalib.compare_metrics` on that task; intervals are
    :func:`metric_intervals`; with several (task, meta-metric) pairs the average is
    :func:`average_comparisons` with equal weights.  Each metric pair of each comparison draws
    from a stream keyed by its (task, meta-metric)'s seed and the two names, so where it runs,
    and which other tasks, meta-metrics or metrics are ranked with it, do not change it; the intervals
    draw from one stream in task order, in the calling process, after the comparisons.  Metrics
    added to a
    :class:`~spalib.data.SegmentTask` (``extra_metrics``) are checked before any draw: one that
    looks reversed or scored against the wrong reference gets a line in ``warnings``.

    References
    ----------
    Freitag, M. et al. (2023). Results of WMT23 metrics shared task. WMT.
    Thompson, B. et al. (2024). Improving statistical significance in human evaluation of
    automatic metrics via Soft Pairwise Accuracy. WMT.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> human = pd.DataFrame(rng.random((4, 16)))
    >>> metrics = {"good": human + 0.1 * rng.random((4, 16)), "noisy": human + rng.random((4, 16))}
    >>> ranking = rank_metrics({"toy": (human, metrics)}, meta_metrics="pa", n_resamples=100, rng=1)
    >>> ranking.table()["toy pa rank"].tolist()
    [1, 1]
    """
    prepared, meta_metrics, interval_resamples, confidence_level, seed, seeds, warnings, summaries = _rank_metrics_iv(
        tasks, meta_metrics, n_resamples, rng, signs, spa_resamples, early_stopping, alpha, interval_resamples,
        confidence_level, progress, executor)
    chance_resamples = int_iv(chance_resamples, "chance_resamples", low=0)
    interval_rng = seeds[None]
    interval_seed = engine.describe_seed(interval_rng)   # before its first draw
    jobs = {}
    for task, (human, metrics) in prepared.items():
        for stat in meta_metrics:
            kw = {} if stat == "acc_eq" else dict(signs=signs, spa_resamples=spa_resamples,
                                                 early_stopping=early_stopping)
            jobs[(task, stat)] = (human, metrics), dict(meta_metric=stat, n_resamples=n_resamples,
                                                        rng=seeds[task, stat], alpha=alpha, **kw)
    comparisons = _run_comparisons(jobs, executor, progress)
    intervals = {}
    if interval_resamples:
        for (task, stat), comparison in comparisons.items():
            human, metrics = prepared[task]
            intervals[(task, stat)] = metric_intervals(
                human, metrics, meta_metric=stat, confidence_level=confidence_level, n_resamples=interval_resamples,
                rng=interval_rng, epsilons=comparison.settings.get("epsilons"))
    chance = None
    if chance_resamples:
        levels = {task: chance_levels(prepared[task][0], meta_metrics=meta_metrics, n_resamples=chance_resamples,
                                      spa_resamples=spa_resamples, rng=engine.derived_seed(seed, task, "chance"))
                  for task in prepared}
        chance = pd.DataFrame([levels[task].loc[stat] for task, stat in comparisons],
                              index=pd.MultiIndex.from_tuples(list(comparisons), names=["task", "meta_metric"]))
    average = None
    if len(comparisons) > 1:
        average = average_comparisons({f"{t} {s}": c for (t, s), c in comparisons.items()}, alpha=alpha)
    settings = dict(meta_metrics=meta_metrics, n_resamples=n_resamples,
                    signs=signs if isinstance(signs, str) else "prepared", spa_resamples=spa_resamples,
                    early_stopping=early_stopping, alpha=alpha, interval_resamples=interval_resamples,
                    confidence_level=confidence_level, chance_resamples=chance_resamples, tasks=summaries,
                    seed=seed, interval_seed=interval_seed)
    return MetricRanking(comparisons, intervals, average, settings, warnings, chance)

"""WMT's official rankings: mt-metrics-eval's task sets, as data, run on the one engine.

A :class:`Protocol` is the list of tasks WMT averaged to rank its metrics (mt-metrics-eval's
``tasks.WMT23()``, ``WMT24()``, ``WMT24OnWMT23()`` and ``WMT25()`` at commit 68a481a): which
meta-metric, at which level, on which language pairs, with which weight.  :func:`protocol` builds
one; change it with :func:`dataclasses.replace`.  :func:`run_protocol` reads the test set, scores
every task (each metric pair tested with PERM-BOTH, or the pairs test for acc_eq), and averages
them as :func:`spalib.average_comparisons` does (the toolkit's ``AverageCorrMatrix``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from spalib._core import engine, meta, rng as rng_kernels
from spalib._core.validation import choice_iv, flag_iv, int_iv, is_seed, names_iv, probability_iv, real_iv, rng_iv
from spalib._core.vocabulary import GROUPINGS, Grouping
from spalib.metametrics import (WMT_EARLY_STOPPING, EarlyStopping, MetricComparison, compare_metrics,
                                _tested_comparison)
from spalib.ranking import AveragedComparison, _WholeTable, average_comparisons
from spalib.data.mtme import _extra_metric, _ranked_systems, load_mtme, segment_task
from spalib.resampling import draw_signs

__all__ = ["Protocol", "ProtocolTask", "ProtocolResult", "protocol", "run_protocol", "PROTOCOLS"]

PROTOCOLS = ("wmt23", "wmt24", "wmt25")

# the language pairs of each task set, and those whose human translations are ranked as systems
_LPS = {"wmt23": ("en-de", "he-en", "zh-en"), "wmt24": ("en-de", "en-es", "ja-zh"),
        "wmt25": ("cs-de_DE", "cs-uk_UA", "en-ar_EG", "en-bho_IN", "en-cs_CZ", "en-et_EE", "en-is_IS", "en-it_IT",
                  "en-ja_JP", "en-ko_KR", "en-mas_KE", "en-ru_RU", "en-sr_Cyrl_RS", "en-uk_UA", "en-zh_CN",
                  "ja-zh_CN")}
_HUMAN_LPS = {"wmt23": {"en-he", "he-en"}, "wmt24": {"en-de"}, "wmt25": set()}


@dataclass(frozen=True)
class ProtocolTask:
    """One task of a protocol.

    Attributes
    ----------
    lps : tuple of str
        Its language pairs: one, or several for a pooled pairwise accuracy.
    level : {"sys", "seg"}
        ``"sys"``: system scores (the stored ``.sys.score`` files; SPA from segment scores);
        ``"seg"``: segment scores, the (system, segment) cells with a human score.
    meta_metric : {"pa", "pearson", "acc_eq", "spa"}
        Pairwise accuracy (at ``sys``, pooled over ``lps``), Pearson's r (all cells, no grouping),
        acc_eq with a calibrated tie threshold grouped by item, or SPA.
    weight : float
        Its share of the average (a protocol's weights sum to 1).
    human_systems : bool
        Rank the human translations other than the standard reference as systems.
    grouping : {"none", "item", "system"}
        Of a segment-level Pearson task: all cells (WMT23's), or the mean over segments or systems.
    """

    lps: tuple[str, ...]
    level: Literal["sys", "seg"]
    meta_metric: Literal["pa", "pearson", "acc_eq", "spa"]
    weight: float
    human_systems: bool = False
    grouping: Grouping = "none"

    @property
    def name(self) -> str:
        """E.g. ``"en-de seg pearson"`` (``"en-de seg pearson by item"`` when grouped)."""
        grouped = f" by {self.grouping}" if self.grouping != "none" else ""
        return f"{','.join(self.lps)} {self.level} {self.meta_metric}{grouped}"


@dataclass(frozen=True)
class Protocol:
    """A WMT ranking protocol: its tasks, test set and the metrics it ranks.

    Attributes
    ----------
    name : str
    test_set : str
        The mt-metrics-eval test set it runs on.
    tasks : tuple of ProtocolTask
    primary_only : bool
        Rank only the primary submissions and baselines.
    early_stopping : EarlyStopping or None
        Of the PERM-BOTH tests (WMT's: blocks of 100 draws, stop once p < 0.02 or p > 0.5).
    """

    name: str
    test_set: str
    tasks: tuple[ProtocolTask, ...]
    primary_only: bool = True
    early_stopping: EarlyStopping | None = WMT_EARLY_STOPPING

    @property
    def lps(self) -> list[str]:
        """Every language pair a task uses, sorted."""
        return sorted({lp for task in self.tasks for lp in task.lps})

    def table(self) -> pd.DataFrame:
        """One row per task: its name, language pairs, level, meta-metric, weight, human systems."""
        return pd.DataFrame([{"task": t.name, "lps": ",".join(t.lps), "level": t.level,
                              "meta_metric": t.meta_metric, "weight": t.weight, "human_systems": t.human_systems}
                             for t in self.tasks])


def protocol(name: str, *, test_set: str | None = None, lps=None) -> Protocol:
    """The task set WMT ranked its metrics by, as mt-metrics-eval defines it.

    Parameters
    ----------
    name : {"wmt23", "wmt24", "wmt25"}
        ``"wmt23"``: system-level pairwise accuracy pooled over the language pairs (weight: one
        per language pair), and for each language pair system- and segment-level Pearson and
        segment-level acc_eq by item (weight 1 each).  ``"wmt24"`` and ``"wmt25"``: for each language
        pair system-level SPA and segment-level acc_eq by item, equal weights.
    test_set : str, optional
        The test set to run it on (default: the protocol's own).  ``protocol("wmt24",
        test_set="wmt23")`` is mt-metrics-eval's ``WMT24OnWMT23()``.
    lps : str or iterable of str, optional
        The language pairs (default: the test set's official ones).

    Returns
    -------
    Protocol

    Notes
    -----
    Human translations other than the standard reference are ranked as systems where the task set
    does (WMT23: en-he and he-en; WMT24: en-de); weights are normalised to sum to 1.  Each task is
    that of ``tasks.py`` at mt-metrics-eval commit 68a481a: ``KendallWithTiesOpt`` with
    ``avg_by="item"``, ``perm_test="pairs"`` and ``sample_rate=1.0`` is acc_eq by item with every
    pair of the calibration (:func:`spalib.tie_calibration`); ``pce`` is SPA.

    References
    ----------
    Freitag, M. et al. (2023). Results of WMT23 metrics shared task. WMT.
    Freitag, M. et al. (2024). Are LLMs breaking MT metrics? Results of the WMT24 metrics shared task. WMT.

    Examples
    --------
    >>> [t.name for t in protocol("wmt24", test_set="wmt23").tasks][:2]
    ['en-de sys spa', 'en-de seg acc_eq']
    """
    name = choice_iv(name, "name", PROTOCOLS)
    if test_set is None:
        test_set = name
    if not isinstance(test_set, str):
        raise TypeError(f"`test_set` must be a str; got {test_set!r}")
    own = name if test_set == name else test_set if test_set in _LPS else None
    if lps is None:
        if own is None:
            raise ValueError(f"`lps`: no default language pairs for protocol {name!r} on {test_set!r}; give them")
        lps = _LPS[own]
    lps = sorted(names_iv(lps, "lps"))
    if not lps or len(set(lps)) != len(lps):
        raise ValueError(f"`lps` must name at least one language pair, each once; got {lps}")
    human = _HUMAN_LPS[own] if own is not None else set()
    if name == "wmt23":
        tasks = [ProtocolTask(tuple(lps), "sys", "pa", len(lps), bool(human & set(lps)))]
        for lp in lps:
            tasks += [ProtocolTask((lp,), level, stat, 1.0, lp in human)
                      for level, stat in (("sys", "pearson"), ("seg", "pearson"), ("seg", "acc_eq"))]
    else:
        tasks = [ProtocolTask((lp,), level, stat, 1.0, lp in human)
                 for lp in lps for level, stat in (("sys", "spa"), ("seg", "acc_eq"))]
    total = sum(t.weight for t in tasks)
    tasks = tuple(dataclasses.replace(t, weight=t.weight / total) for t in tasks)
    label = name if test_set == name else f"{name} on {test_set}"
    if own is not None and lps != sorted(_LPS[own]):   # not the official table: say so in its name
        label += f" ({', '.join(lps)} only)"
    return Protocol(label, test_set, tasks)


@dataclass(frozen=True)
class ProtocolResult:
    """What :func:`run_protocol` found.

    Attributes
    ----------
    protocol : Protocol
    comparisons : dict of task name -> MetricComparison
        Each task's scores, p-values and clusters (no test with ``n_resamples=0``).
    average : AveragedComparison
        The weighted average of the metrics every task ranks, with its clusters from the tasks'
        summed draws, and ``mean_task_ranks`` (the toolkit's ``AverageRanks``).
    settings : dict
        ``n_resamples``, ``seed``, ``alpha``, ``added`` (the metrics the caller added), and per
        language pair what was left out (``inputs``).
    """

    protocol: Protocol
    comparisons: dict
    average: AveragedComparison
    settings: dict = field(default_factory=dict)

    def table(self) -> pd.DataFrame:
        """One row per averaged metric, best first: the average and its rank (cluster, or position
        without a test), the mean task rank, then each task's score and rank.
        """
        avg = self.average
        columns = {"average": avg.scores, "rank": avg.ranks, "mean task rank": avg.mean_task_ranks}
        for task, comparison in self.comparisons.items():
            columns[task] = comparison.scores.reindex(avg.scores.index)
            columns[f"{task} rank"] = comparison.ranks.reindex(avg.scores.index)
        return _WholeTable(columns)

    def place(self, metric: str) -> str:
        """Where ``metric`` lands in the averaged table, in one sentence."""
        avg = self.average
        if metric not in avg.scores.index:
            raise KeyError(f"{metric!r} is not in the average; its metrics: {', '.join(avg.scores.index)}")
        position = list(avg.scores.index).index(metric) + 1
        tested = not avg.pvalues.isna().all().all()
        cluster = (f", in significance cluster {int(avg.ranks[metric])} of {int(avg.ranks.max())}" if tested else "")
        return (f"{metric}: {position} of {len(avg.scores)} by the {self.protocol.name} average "
                f"({avg.scores[metric]:.4f}){cluster}.")

    def to_string(self) -> str:
        """The averaged table as text, with how it was made."""
        s = self.settings
        test = (f"PERM-BOTH (acc_eq: the pairs test), {s['n_resamples']} draws per metric pair, seed {s['seed']}; "
                f"clusters at p <= {s['alpha']}" if s["n_resamples"] else
                "no significance test (k = 0): ranks are positions by the average")
        lines = [f"Protocol {self.protocol.name}: {len(self.protocol.tasks)} tasks on {self.protocol.test_set} "
                 f"({', '.join(self.protocol.lps)}); {test}.", ""]
        table = self.table()
        shown = table[["average", "rank", "mean task rank"]].copy()
        for task in self.comparisons:
            shown[task] = table[task]
        lines.append(shown.to_string(float_format=lambda v: f"{v:.4f}"))
        return "\n".join(lines) + "\n"


def _protocol_iv(proto, n_resamples, rng, extra_metrics, lower_is_better_metrics, alpha, progress):
    if not isinstance(proto, Protocol):
        raise TypeError(f"`protocol` must be a Protocol (from spalib.protocol); got {type(proto).__name__}")
    if not proto.tasks:
        raise ValueError("`protocol` has no tasks")
    for task in proto.tasks:
        if not isinstance(task, ProtocolTask):
            raise TypeError(f"`protocol.tasks` must hold ProtocolTask; got {type(task).__name__}")
        choice_iv(task.level, f"task {task.name!r} level", ("sys", "seg"))
        choice_iv(task.meta_metric, f"task {task.name!r} meta_metric", ("pa", "pearson", "acc_eq", "spa"))
        real_iv(task.weight, f"task {task.name!r} weight", low=0.0)
        if len(task.lps) > 1 and (task.meta_metric, task.level) != ("pa", "sys"):
            raise ValueError(f"task {task.name!r}: only system-level pairwise accuracy pools language pairs")
        if (task.meta_metric, task.level) in {("pa", "seg"), ("acc_eq", "sys"), ("spa", "seg")}:
            raise ValueError(f"task {task.name!r}: {task.meta_metric} is not a {task.level}-level meta-metric here")
        choice_iv(task.grouping, f"task {task.name!r} grouping", GROUPINGS)
        if task.grouping != "none" and (task.meta_metric, task.level) != ("pearson", "seg"):
            raise ValueError(f"task {task.name!r}: only a segment-level Pearson task is grouped")
    n_resamples = int_iv(n_resamples, "n_resamples", low=0)
    checked = rng_iv(rng)
    if extra_metrics is None:
        extra_metrics = {}
    if not isinstance(extra_metrics, dict) or not all(isinstance(v, dict) for v in extra_metrics.values()):
        raise TypeError("`extra_metrics` must be a dict of language pair -> {name: path or DataFrame}")
    unknown = sorted(set(extra_metrics) - set(proto.lps))
    if unknown:
        raise ValueError(f"extra_metrics: language pair(s) {', '.join(unknown)} are not in the protocol "
                         f"({', '.join(proto.lps)})")
    added = sorted({name for sources in extra_metrics.values() for name in sources})
    missing = [(name, lp) for name in added for lp in proto.lps if name not in extra_metrics.get(lp, {})]
    if missing:
        raise ValueError(f"extra_metrics: {missing[0][0]!r} has no scores for {missing[0][1]}; the average ranks "
                         "only metrics every task scores")
    negated = names_iv(lower_is_better_metrics, "lower_is_better_metrics")
    alpha = probability_iv(alpha, "alpha")
    flag_iv(progress, "progress")
    # an int seed is kept as given (it names the run); a Generator gives one, drawn last
    return n_resamples, engine.root_seed(rng if is_seed(rng) else checked), extra_metrics, negated, added, alpha


def run_protocol(protocol: Protocol, *, n_resamples: int = 1000, rng=None, extra_metrics: dict | None = None,
                 lower_is_better_metrics=(), root=None, alpha: float = 0.05,
                 progress: bool = False) -> ProtocolResult:
    """Run a WMT ranking protocol on its test set: every task's scores and significance, averaged.

    Parameters
    ----------
    protocol : Protocol
        From :func:`spalib.protocol`.
    n_resamples : int
        PERM-BOTH draws (acc_eq: pairs-test draws) per metric pair and task (mt-metrics-eval's
        ``k``); 0: no test, ranks are positions by score (the task sets' default ``k = 0``).
    rng : None, int or Generator
        One seed for everything: each task gets an int seed of its own derived from it by name.
    extra_metrics : dict of lp -> {name: path or DataFrame}, optional
        Your metrics, scored on every language pair of the protocol (as for
        :func:`spalib.data.segment_task`).  A system's score is the mean of its segment scores.
    lower_is_better_metrics : str or iterable of str
        Metrics (yours or released ones, by file name) whose scores are negated first.
    root : path, optional
        The ``mt-metrics-eval-v2`` folder (default: under ``SPALIB_DATA``).
    alpha : float
        The clusters' significance level (``p <= alpha``).
    progress : bool
        Progress bars over each task's metric pairs.

    Returns
    -------
    ProtocolResult

    Notes
    -----
    The inputs are mt-metrics-eval's: systems with a human score other than the standard reference
    and the outlier systems (human translations only where the task says), metrics scored
    against the standard reference or none (the primary ones and baselines, unless the protocol
    says otherwise), named by base name (``"CometKiwi[noref]"`` for a reference-free one).
    System-level tasks use the stored system scores (the humans' and each metric's); segment-level
    ones, and SPA, the segments every ranked system has a human score, and every metric a
    score, for (WMT23's unrated segments are unrated for every system; a segment your metric
    leaves unscored is dropped for every metric, where the toolkit would drop only its cells).
    Pooled pairwise accuracy sums the agreeing system pairs of every language pair over all their
    pairs; its PERM-BOTH draws swap whole systems of the metrics z-scored over all language pairs
    together, as the toolkit does.  SPA's own p-values use mt-metrics-eval's signs for seed 4
    (``pce.py``'s fixed seed), whatever ``rng``.  Pearson tasks are rescaled from [-1, 1] to
    [0, 1] before averaging, as the toolkit's ``AverageCorrs``.  Unlike the toolkit, the acc_eq
    pairs tests run every draw: the toolkit checks its early stopping only at the end of a block
    whose last draw was extreme (``PairwisePermutationSigDiff``), so its draw counts, and hence
    p-values, can differ.

    References
    ----------
    Freitag, M. et al. (2023). Results of WMT23 metrics shared task. WMT.
    Deutsch, D., Dror, R. and Roth, D. (2021). A statistical analysis of summarization evaluation
    metrics using resampling methods. TACL.

    Examples
    --------
    >>> result = run_protocol(protocol("wmt23"), n_resamples=0)   # scores and positions, no test
    >>> result.average.scores.index[0], round(float(result.average.scores.iloc[0]), 3)
    ('XCOMET-Ensemble', 0.825)
    """
    n_resamples, seed, extra_metrics, negated, added, alpha = _protocol_iv(
        protocol, n_resamples, rng, extra_metrics, lower_is_better_metrics, alpha, progress)
    sets = {lp: load_mtme(protocol.test_set, lp, root) for lp in protocol.lps}
    known = set(added).union(*(es.metric_names for es in sets.values()))
    unknown = sorted(set(negated) - known)
    if unknown:
        raise ValueError(f"lower_is_better_metrics: no metric named {', '.join(unknown)} (give added metrics by "
                         "name, released ones by file name, e.g. 'BLEU-refA')")
    inputs = _Inputs(sets, protocol.primary_only, extra_metrics, negated)
    comparisons = {}
    for task in protocol.tasks:
        task_seed = engine.derived_seed(seed, task.name)
        label = task.name if progress else False
        if task.meta_metric == "pa":
            human, metrics = inputs.system_scores(task)
            comparisons[task.name] = _pooled_accuracy(human, metrics, n_resamples, task_seed,
                                                      protocol.early_stopping, alpha, label)
            continue
        if task.level == "sys" and task.meta_metric == "pearson":
            human, metrics = inputs.system_scores(task)
            lp = task.lps[0]
            human, metrics = human[lp].to_frame(), {n: m[lp].to_frame() for n, m in metrics.items()}
        else:
            human, metrics = inputs.segment_scores(task)
        kw = dict(meta_metric=task.meta_metric, n_resamples=n_resamples, rng=task_seed, alpha=alpha, progress=label)
        if task.meta_metric == "pearson":
            kw["grouping"] = task.grouping
        if task.meta_metric != "acc_eq":
            kw["early_stopping"] = protocol.early_stopping
        if task.meta_metric == "spa":
            kw["signs"] = draw_signs(1000, human.shape[1], signs="mtme", rng=4)
        comparisons[task.name] = compare_metrics(human, metrics, **kw)
    average = average_comparisons(comparisons, weights={t.name: t.weight for t in protocol.tasks}, alpha=alpha)
    settings = dict(n_resamples=n_resamples, seed=seed, alpha=alpha, added=added, inputs=inputs.reports)
    return ProtocolResult(protocol, comparisons, average, settings)


class _Inputs:
    """The scores each task ranks, read once per language pair and choice of systems."""

    def __init__(self, sets, primary_only, extra_metrics, negated):
        self.sets, self.primary_only, self.extra, self.negated = sets, primary_only, extra_metrics, negated
        self.tasks, self.reports = {}, {}

    def segment_task(self, lp, human_systems):
        key = (lp, human_systems)
        if key not in self.tasks:
            es = self.sets[lp]
            own = set(self.extra.get(lp, {})) | {m for m in es.metric_names if m in self.negated}
            task = segment_task(es, reference_free=True, primary_only=self.primary_only,
                                     extra_metrics=self.extra.get(lp), include_human_systems=human_systems,
                                     lower_is_better_metrics=sorted(own & set(self.negated)), basenames=True)
            self.tasks[key] = task
            self.reports[lp] = task.report
        return self.tasks[key]

    def segment_scores(self, task):
        found = self.segment_task(task.lps[0], task.human_systems)
        return found.human, found.metrics

    def system_scores(self, task):
        """Human and metric system scores, each a Series indexed by (lp, system)."""
        human, metrics = [], {}
        for lp in task.lps:
            es = self.sets[lp]
            gold = es.sys_scores(es.meta.sys_gold)
            systems, _ = _ranked_systems(es, gold.to_frame(), es.meta.sys_gold, task.human_systems)
            human.append(gold[systems])
            for file_name in es.std_metric_names(level="sys"):
                base = es.metric_basename(file_name)
                if self.primary_only and base not in es.meta.primary_metrics:
                    continue
                shown = f"{base}[noref]" if es.is_reference_free(file_name) else base
                scores = es.sys_scores(file_name)[systems]
                metrics.setdefault(shown, []).append(-scores if file_name in self.negated else scores)
            for name in self.extra.get(lp, {}):   # a system's score: the mean of its segment scores
                frame, _ = _extra_metric(es, name, self.extra[lp][name], systems)
                scores = frame.mean(axis=1)
                metrics.setdefault(name, []).append(-scores if name in self.negated else scores)
        keys = pd.MultiIndex.from_tuples([(lp, s) for lp, h in zip(task.lps, human) for s in h.index],
                                         names=["lp", "system"])
        complete = {n: pd.Series(np.concatenate([p.to_numpy() for p in parts]), index=keys)
                    for n, parts in metrics.items() if len(parts) == len(task.lps)}
        return pd.Series(np.concatenate([h.to_numpy() for h in human]), index=keys), complete


class _PooledAccuracy:
    """Pairwise accuracy of system scores pooled over language pairs, for the engine: the agreeing
    pairs of every language pair over all their pairs; a draw swaps whole systems of the two
    metrics, z-scored over every language pair together (mt-metrics-eval's
    ``CompareMetricsWithGlobalAccuracy``).
    """

    def __init__(self, human: pd.Series, metrics: dict):
        lp_codes = pd.factorize(human.index.get_level_values("lp"))[0]
        i, j = np.triu_indices(len(human), 1)
        h = human.to_numpy()
        keep = (lp_codes[i] == lp_codes[j]) & ~np.isnan(h[i]) & ~np.isnan(h[j])
        self.i, self.j = i[keep], j[keep]
        self.human_signs = np.sign(h[self.i] - h[self.j])
        self.n_systems = len(human)
        self.raw = {n: m.to_numpy() for n, m in metrics.items()}
        self.metrics = {n: meta.zscored(m) for n, m in self.raw.items()}
        self.scores = {n: float(self._accuracy(m[None, :])[0]) for n, m in self.raw.items()}

    def _accuracy(self, rows: np.ndarray) -> np.ndarray:
        return (np.sign(rows[:, self.i] - rows[:, self.j]) == self.human_signs).mean(axis=1)

    def pair(self, better, worse):
        a, b = self.metrics[worse], self.metrics[better]

        def draw(key, first, size):
            swaps = rng_kernels.swap_masks(key, first, size, 0, self.n_systems, 1)[:, :, 0] & 1
            moved = swaps * (b - a)
            return self._accuracy(b - moved) - self._accuracy(a + moved)
        return self.scores[better] - self.scores[worse], 0.0, draw


def _pooled_accuracy(human, metrics, n_resamples, seed, early_stopping, alpha, label) -> MetricComparison:
    if len(metrics) < 2:
        raise ValueError("pooled pairwise accuracy: fewer than two metrics score every language pair")
    return _tested_comparison(_PooledAccuracy(human, metrics), "pa", n_resamples=n_resamples, seed=seed,
                             alternative="greater", early_stopping=early_stopping, alpha=alpha, progress=label,
                             settings=dict(permutation="both", pooled=True))

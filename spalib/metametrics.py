"""Meta-metrics: pairwise accuracy, Soft Pairwise Accuracy, and the significance of their
differences between metrics (PERM-BOTH, greedy significance clusters).

References: Kocmi et al. (2021) for pairwise accuracy; Thompson et al. (2024) for SPA;
Deutsch et al. (2021) for PERM-BOTH; mt-metrics-eval ``stats.py`` for the conventions.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from spalib._core import engine, meta, perm_both, rank_kernels, rng as rng_kernels, signs as sign_kernels, storage
from spalib._core.align import align_matrices, align_metrics, align_vectors
from spalib._core.sign_matrix import signs_arguments_iv
from spalib._core.extreme import count_extreme
from spalib._core.validation import (choice_iv, flag_iv, int_iv, positive_int_iv, probability_iv, real_array_iv,
                                     real_iv, renamed_keyword, rescaled, sums_iv)
from spalib._core.vocabulary import (ALTERNATIVES, GROUPINGS, META_METRICS, PVALUE_METHODS, SCHEMES, SPA_METHODS, TIES,
                                     Alternative, Grouping, MetaMetric, PValueMethod, Scheme, SignRecipe, SpaMethod,
                                     Ties)
from spalib.rank_correlations import kendall_tau, tie_calibration
from spalib.resampling import SignMatrix, draw_signs, pairwise_pvalues

__all__ = ["pairwise_accuracy", "soft_pairwise_accuracy", "spa_from_pvalues", "chance_levels", "compare_metrics",
           "significance_ranks", "MetricComparison", "SoftPairwiseAccuracyResult", "EarlyStopping",
           "WMT_EARLY_STOPPING"]

# --- the two meta-metrics ------------------------------------------------------------------------

def pairwise_accuracy(human, metric) -> float:
    """Share of system pairs that the metric orders as the humans do.

    Parameters
    ----------
    human, metric : array_like or Series
        System-level scores (higher = better), in the same system order, or two Series aligned by
        system name.  NaN marks a missing human score; inf is an error.

    Returns
    -------
    float
        Agreeing pairs / pairs with both human scores.

    Notes
    -----
    A pair agrees when ``sign(h_a - h_b) == sign(m_a - m_b)`` with ``sign(0) = 0``: a tie on
    both sides agrees, a tie on one side only does not.  Pairs with a missing human score are
    skipped, as in mt-metrics-eval.

    References
    ----------
    Kocmi, T. et al. (2021). To ship or not to ship: an extensive evaluation of automatic metrics
    for machine translation. WMT.

    Examples
    --------
    >>> pairwise_accuracy([1, 2, 3, 3, 4], [1, 1, 2, 1, 2])
    0.5
    """
    h, m = align_vectors(human, metric)
    agree, pairs = meta._pairwise_agreement(h, m, 0.0)
    if pairs == 0:
        raise ValueError("no system pair has human scores for both systems")
    return agree / pairs


def pairwise_difference_pearson(human, metric, *, grouping: Grouping = "item") -> float:
    """Pairwise difference Pearson (PDP): Pearson's r between the human and the metric score
    differences of every pair of systems on the same segment.

    Parameters
    ----------
    human, metric : DataFrame or array_like, systems x segments
        Segment scores.  NaN in ``human`` marks a missing score: the pairs with it are left out;
        the metric's scores are complete.
    grouping : {"item", "none", "system"}
        Which pairs of cells: the systems of each segment (PDP as proposed; mt-metrics-eval's
        ``average_by="item"``), all cells (``"none"``: Pearson's r of the scores themselves), or
        the segments of each system.

    Returns
    -------
    float
        NaN when the human or the metric scores are constant within every group
        (mt-metrics-eval returns 0 there).

    Notes
    -----
    mt-metrics-eval correlates the differences of every ordered pair of cells of a group (both
    orders, and each cell with itself), whose mean is 0; its value is therefore
    ``sum d^h d^m / sqrt(sum (d^h)^2 sum (d^m)^2)`` over the pairs ``i < j``.  Over a group of
    ``n`` cells ``sum_{i<j} (h_i - h_j)(m_i - m_j) = n sum_i (h_i - mean h)(m_i - mean m)``, so
    the sums take one pass over the centred scores rather than one per pair.  Unlike acc_eq, PDP
    uses the size of every difference, not only its sign, and needs no tie threshold; like any
    Pearson correlation it is sensitive to extreme scores.

    References
    ----------
    DiIanni, C. and Deutsch, D. (2025). Don't sweat the small stuff: segment-level meta-evaluation
    based on pairwise difference correlation. EMNLP.

    Examples
    --------
    >>> human = [[1, 2, 3], [4, 5, 6]]           # 2 systems x 3 segments
    >>> metric = [[2, 1, 4], [3, 3, 7]]
    >>> round(pairwise_difference_pearson(human, metric), 3)
    0.926
    >>> round(pairwise_difference_pearson(human, metric, grouping="none"), 3)   # Pearson's r
    0.776
    """
    grouping = choice_iv(grouping, "grouping", GROUPINGS)
    h, m, _ = align_matrices(human, metric, missing_human=True)
    if grouping == "none":
        h, m = h.reshape(-1, 1), m.reshape(-1, 1)
    elif grouping == "system":
        h, m = np.ascontiguousarray(h.T), np.ascontiguousarray(m.T)
    return float(meta.pdp_of_columns(rescaled(h), rescaled(m)))


@dataclass(frozen=True)
class SoftPairwiseAccuracyResult:
    """Soft Pairwise Accuracy and the two p-value matrices it compares.

    Attributes
    ----------
    statistic : float
        ``1 - mean_{i<j} |P^h[i, j] - P^m[i, j]|``.
    human_pvalues, metric_pvalues : ndarray, shape (S, S)
        The paired permutation p-values (upper triangle; NaN elsewhere), systems in sorted order
        when the inputs were DataFrames.
    systems : list
        The system labels (or positions) of the rows and columns.
    """

    statistic: float
    human_pvalues: np.ndarray
    metric_pvalues: np.ndarray
    systems: list

    def subset(self, systems) -> SoftPairwiseAccuracyResult:
        """SPA over the pairs of some of the systems, from the p-values already computed.

        Parameters
        ----------
        systems : sequence
            At least two of :attr:`systems` (labels, or positions for array input).

        Returns
        -------
        SoftPairwiseAccuracyResult
            The same p-values restricted to those systems (kept in the order of :attr:`systems`)
            and their SPA, :func:`spa_from_pvalues`.
        """
        if systems is None or isinstance(systems, str) or not np.iterable(systems):
            raise TypeError(f"`systems` must be a sequence of at least two systems; got {systems!r}")
        wanted = list(systems)
        unknown = [s for s in wanted if s not in self.systems]
        if unknown:
            raise ValueError(f"`systems` names systems the result does not have: {unknown[:5]}")
        if len(set(wanted)) != len(wanted) or len(wanted) < 2:
            raise ValueError("`systems` must name at least two different systems")
        keep = [i for i, s in enumerate(self.systems) if s in set(wanted)]
        human, metric = self.human_pvalues[np.ix_(keep, keep)], self.metric_pvalues[np.ix_(keep, keep)]
        return SoftPairwiseAccuracyResult(spa_from_pvalues(human, metric), human, metric,
                                          [self.systems[i] for i in keep])


def spa_from_pvalues(human_pvalues, metric_pvalues) -> float:
    """Soft Pairwise Accuracy from the human and the metric p-value matrices.

    Parameters
    ----------
    human_pvalues, metric_pvalues : array_like, shape (S, S)
        ``P[i, j]`` (``i < j``): the p-value that system ``i`` is better than system ``j``, as
        :func:`spalib.pairwise_pvalues` returns them; only the upper triangles are read, and
        they must be p-values (in [0, 1], no NaN).

    Returns
    -------
    float
        ``1 - mean_{i<j} |P^h[i, j] - P^m[i, j]|``.

    Notes
    -----
    The mean is numpy's (pairwise summation), so that SPA equals mt-metrics-eval's to the last
    bit for the same p-values.  :meth:`SoftPairwiseAccuracyResult.subset` restricts a result to
    some of its systems with it.

    References
    ----------
    Thompson, B. et al. (2024). Improving statistical significance in human evaluation of
    automatic metrics via Soft Pairwise Accuracy. WMT. Equation 1.

    Examples
    --------
    >>> human = [[np.nan, 0.01, 0.20], [np.nan, np.nan, 0.40], [np.nan] * 3]
    >>> metric = [[np.nan, 0.05, 0.10], [np.nan, np.nan, 0.90], [np.nan] * 3]
    >>> round(spa_from_pvalues(human, metric), 4)
    0.7867
    """
    uppers = []
    for name, matrix in (("human_pvalues", human_pvalues), ("metric_pvalues", metric_pvalues)):
        p = real_array_iv(matrix, name, allow_nan=True, ndim=2)
        if p.shape[0] != p.shape[1] or p.shape[0] < 2:
            raise ValueError(f"`{name}` must be a square matrix of at least 2 systems; got shape {p.shape}")
        upper = p[np.triu_indices(p.shape[0], 1)]
        if np.isnan(upper).any() or (upper < 0).any() or (upper > 1).any():
            raise ValueError(f"`{name}` must hold p-values in [0, 1] above the diagonal")
        uppers.append(upper)
    if uppers[0].shape != uppers[1].shape:
        raise ValueError("`human_pvalues` and `metric_pvalues` cover different numbers of systems")
    return float(meta.spa_of_uppers(*uppers))


def soft_pairwise_accuracy(human, metric, *, n_resamples: int = 1000, rng=None,
                           signs: SignRecipe | SignMatrix = "bits", method: PValueMethod = "permutation",
                           ties: Ties = "ge") -> SoftPairwiseAccuracyResult:
    """Soft Pairwise Accuracy: how closely the metric's p-values follow the humans'.

    Parameters
    ----------
    human, metric : DataFrame or array_like, systems x segments
        Complete segment scores.  DataFrames are aligned by system name (and must have the same
        segment columns); systems are put in sorted order, so that the result does not depend on
        the order they were listed in.
    n_resamples : int
        Sign patterns ``K`` of the permutation p-values.
    rng : None, int or numpy.random.Generator
        The random state of the signs.
    signs : {"bits", "mtme"} or SignMatrix
        The sign recipe (:data:`spalib.resampling.SIGN_RECIPES`): ``"mtme"`` with an int seed
        gives mt-metrics-eval's SPA for that seed (its default is 4).  One sign matrix serves
        both the human and the metric p-values.
    method : {"permutation", "normal", "exact"}
        How the p-values are computed (:func:`spalib.pairwise_pvalues`).  Every argument is
        checked whatever the method uses of it.
    ties : {"ge", "mid"}
        Null values equal to the observed one count fully, or one half.

    Returns
    -------
    SoftPairwiseAccuracyResult

    Notes
    -----
    ``SPA = 1 - mean_{i<j} |P^h[i, j] - P^m[i, j]|`` over the ``S(S-1)/2`` system pairs
    (:func:`spa_from_pvalues`).

    References
    ----------
    Thompson, B. et al. (2024). Improving statistical significance in human evaluation of
    automatic metrics via Soft Pairwise Accuracy. WMT. Equation 1.

    Examples
    --------
    >>> soft_pairwise_accuracy([[1, 2, 3], [2, 3, 4]], [[2, 2, 4], [1, 3, 5]], rng=4, signs="mtme").statistic
    0.872
    """
    method = choice_iv(method, "method", PVALUE_METHODS)
    ties = choice_iv(ties, "ties", TIES)
    n_resamples, rng, signs = signs_arguments_iv(n_resamples, rng, signs)
    h, m, systems = align_matrices(human, metric)
    if method == "permutation" and not isinstance(signs, SignMatrix):
        signs = draw_signs(n_resamples, h.shape[1], rng=rng, signs=signs)
    # the other methods draw no signs (the recipe was checked above all the same)
    kw = dict(method=method, ties=ties, signs=signs if method == "permutation" else "bits", rng=None)
    ph, pm = pairwise_pvalues(h, **kw), pairwise_pvalues(m, **kw)
    upper = np.triu_indices(h.shape[0], 1)
    return SoftPairwiseAccuracyResult(float(meta.spa_of_uppers(ph[upper], pm[upper])), ph, pm, systems)


def chance_levels(human, *, meta_metrics=None, n_resamples: int = 200, spa_resamples: int = 1000,
                  rng=None) -> pd.DataFrame:
    """What a metric that scores at random gets on these human scores: the chance level of PA,
    SPA, acc_eq (tie-calibrated, grouped by item), PDP (within segments) and Pearson's r (all cells).

    Parameters
    ----------
    human : DataFrame or array_like, systems x segments
        Complete segment scores, as for :func:`compare_metrics`.
    meta_metrics : str or sequence of str, optional
        The meta-metrics to give (default: all); the random metrics drawn are the same either way.
    n_resamples : int
        Random metrics simulated: each scores every (system, segment) cell with an independent
        standard normal draw.
    spa_resamples : int
        Sign patterns of SPA's p-values, shared by the humans and each random metric.
    rng : None, int or numpy.random.Generator
        The random state of the signs and the random metrics.

    Returns
    -------
    DataFrame
        One row per meta-metric (``pa``, ``spa``, ``acc_eq``, ``pdp``, ``pearson``; the index is named
        ``meta_metric``):
        ``expected`` (derived where it can be, else the simulated mean), ``simulated`` (the mean
        over the random metrics), ``se`` (its Monte-Carlo standard error) and ``how`` the
        expected value was found.

    Notes
    -----
    PA, exactly: a random metric's system scores are exchangeable and never tie, so it orders
    each pair of systems either way with probability 1/2 and never agrees on a human tie:
    ``E[PA] = (1 - t) / 2``, with ``t`` the share of system pairs the humans tie (the PA of a
    constant metric).  SPA, in the limit of many sign patterns: a random metric's p-value for a
    pair is uniform on [0, 1], and ``E|p - U| = (p**2 + (1 - p)**2) / 2``, so
    ``E[SPA] = 1 - mean_{i<j} (p_ij**2 + (1 - p_ij)**2) / 2`` with the humans' p-values ``p_ij``.
    acc_eq with tie calibration has no closed form here (the threshold is chosen on the random
    scores themselves): it is simulated.  PDP and Pearson's r, exactly: a random metric and its
    negation are equally likely and have opposite correlations, so both expect 0.

    References
    ----------
    google-research/mt-metrics-eval issue #14 (what a random metric scores).
    Thompson, B. et al. (2024). Improving statistical significance in human evaluation of
    automatic metrics via Soft Pairwise Accuracy. WMT.
    Deutsch, D., Foster, G. and Freitag, M. (2023). Ties matter. EMNLP.

    Examples
    --------
    >>> human = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])   # two systems tie
    >>> levels = chance_levels(human, n_resamples=50, rng=0)
    >>> round(float(levels.loc["pa", "expected"]), 4), levels.loc["pa", "how"]
    (0.3333, 'exact')
    """
    wanted = META_METRICS if meta_metrics is None else (
        (meta_metrics,) if isinstance(meta_metrics, str) else tuple(meta_metrics))
    wanted = [choice_iv(m, "meta_metrics", META_METRICS) for m in wanted]
    n_resamples = positive_int_iv(n_resamples, "n_resamples")
    spa_resamples, rng, _ = signs_arguments_iv(spa_resamples, rng, "bits", count="spa_resamples")
    h, _, _ = align_matrices(human, human)
    human_sys = h.mean(axis=1)
    signs = draw_signs(spa_resamples, h.shape[1], rng=rng)
    human_pvalues = pairwise_pvalues(h, signs=signs)   # once, for every random metric too
    p_h = human_pvalues[np.triu_indices(h.shape[0], 1)]
    expected = {"pa": float((1 - pairwise_accuracy(human_sys, np.zeros_like(human_sys))) / 2),
                "spa": 1 - float(np.mean((p_h ** 2 + (1 - p_h) ** 2) / 2)), "pdp": 0.0, "pearson": 0.0}
    one_group = np.zeros(h.size, dtype=np.int64)   # Pearson's r over all cells
    score = {"pa": lambda m: pairwise_accuracy(human_sys, m.mean(axis=1)),
             "spa": lambda m: spa_from_pvalues(human_pvalues, pairwise_pvalues(m, signs=signs)),
             "acc_eq": lambda m: tie_calibration(h, m).statistic,
             "pdp": lambda m: pairwise_difference_pearson(h, m),
             "pearson": lambda m: meta.grouped_pearson(h.ravel(), m.ravel(), one_group, 1)}
    draws = {stat: [] for stat in score if stat in wanted}
    for _ in range(n_resamples):
        m = rng.standard_normal(h.shape)
        for stat in draws:
            draws[stat].append(score[stat](m))
    rows = {}
    for stat, values in draws.items():
        simulated = float(np.mean(values))
        se = float(np.std(values, ddof=1) / np.sqrt(n_resamples)) if n_resamples > 1 else np.nan
        rows[stat] = {"expected": expected.get(stat, simulated), "simulated": simulated, "se": se,
                      "how": {"pa": "exact", "spa": "uniform p-values", "pdp": "exact", "pearson": "exact"}.get(
                          stat, "simulation")}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("meta_metric")


# --- significance of metric differences ----------------------------------------------------------

def _without_test(n_metrics: int) -> tuple[np.ndarray, np.ndarray, dict, np.ndarray]:
    """No significance test (``n_resamples=0``, mt-metrics-eval's ``k = 0``): no p-values (NaN), no
    draws, and ranks that are the metrics' positions by score, as the toolkit's ranks are then.
    """
    n = n_metrics
    return np.full((n, n), np.nan), np.zeros((n, n), dtype=int), {}, np.arange(1, n + 1)


def significance_ranks(pvalues, alpha: float = 0.05) -> np.ndarray:
    """Greedy significance-cluster ranks (mt-metrics-eval ``AssignRanks``).

    Parameters
    ----------
    pvalues : array_like, shape (n, n)
        ``pvalues[i, j]`` (``i < j``, metrics sorted best first) is the p-value that metric ``i``
        is better than ``j``; the rest is ignored.
    alpha : float
        Significance level (``p <= alpha`` is significant, as the toolkit assigns ranks).

    Returns
    -------
    ndarray of int
        Rank 1 for the first cluster.

    Notes
    -----
    Walking down the list, metric ``i`` opens a new cluster (rank + 1) when
    ``p[r, i] <= alpha`` for some metric ``r`` since the current cluster began.

    References
    ----------
    Freitag, M. et al. (2023). Results of WMT23 metrics shared task. WMT. (mt-metrics-eval
    ``stats.AssignRanks``.)

    Examples
    --------
    >>> M = np.full((5, 5), np.nan)
    >>> M[0, 1:] = [0.30, 0.01, 0.001, 0.0]; M[1, 2:] = [0.20, 0.04, 0.0]
    >>> M[2, 3:] = [0.5, 0.03]; M[3, 4] = 0.06
    >>> significance_ranks(M).tolist()
    [1, 1, 2, 2, 3]
    """
    p = real_array_iv(pvalues, "pvalues", allow_nan=True, ndim=2)
    if p.shape[0] != p.shape[1]:
        raise ValueError(f"`pvalues` must be a square matrix; got shape {p.shape}")
    upper = p[np.triu_indices(p.shape[0], 1)]
    if np.isnan(upper).any() or (upper < 0).any() or (upper > 1).any():
        raise ValueError("`pvalues` must hold p-values in [0, 1] above the diagonal")
    alpha = probability_iv(alpha, "alpha")
    ranks = np.empty(p.shape[0], dtype=int)
    rank, start = 1, 0
    for i in range(p.shape[0]):
        if any(p[r, i] <= alpha for r in range(start, i)):
            rank += 1
            start = i
        ranks[i] = rank
    return ranks


@dataclass(frozen=True)
class EarlyStopping:
    """mt-metrics-eval's early stopping of a PERM-BOTH test.

    After every ``block_size`` draws the test stops if the running p-value is below
    ``early_min`` or above ``early_max``.  WMT's runs use :data:`WMT_EARLY_STOPPING`.
    """

    block_size: int = 100
    early_min: float = 0.02
    early_max: float = 0.5

    def __post_init__(self):
        positive_int_iv(self.block_size, "block_size")
        low = real_iv(self.early_min, "early_min", low=0.0, high=1.0)
        high = real_iv(self.early_max, "early_max", low=0.0, high=1.0)
        if not low < high:
            raise ValueError(f"`early_min` must be below `early_max`; got {low} and {high}")


WMT_EARLY_STOPPING = EarlyStopping(100, 0.02, 0.5)
"""The early stopping of the WMT metrics-task runs (block 100, stop below 0.02 or above 0.5)."""

_DRAWS_PER_BLOCK = 100   # PERM-BOTH draws per block without early stopping: bounds the memory


def _same_settings(fresh: dict, stored: dict) -> bool:
    """A rerun's settings are the stored ones; a setting per metric (acc_eq's ``epsilons``) is
    compared for the rerun's metrics.
    """
    if fresh.keys() != stored.keys():
        return False
    for key, value in fresh.items():
        kept = stored[key]
        if isinstance(value, dict) and isinstance(kept, dict) and value.keys() <= kept.keys():
            kept = {name: kept[name] for name in value}
        if value != kept:
            return False
    return True


@dataclass(frozen=True)
class MetricComparison:
    """What :func:`compare_metrics` found.

    Attributes
    ----------
    meta_metric : str
        ``"spa"``, ``"pa"`` or ``"acc_eq"`` (``"average"`` for :func:`spalib.average_comparisons`).
    scores : Series
        Each metric's meta-metric, best first (ties broken by name).
    pvalues : DataFrame
        ``pvalues.iloc[i, j]`` (``i < j``): PERM-BOTH p-value that the row metric is better than
        the column metric; NaN elsewhere.
    draws : DataFrame
        Number of PERM-BOTH draws used for each pair (fewer than ``n_resamples`` where early
        stopping ended the test).
    ranks : Series
        Greedy significance-cluster rank of each metric (``p <= alpha``).
    alpha : float
        The significance level of the ranks.
    settings : dict
        The arguments that produced the comparison, and ``"seed"``: the int every random stream
        derives from (the ``rng`` given, or the one drawn from it); ``rng=settings["seed"]``
        reproduces the comparison.
    null_distributions : dict
        ``null_distributions[(better, worse)]``: the draws of ``stat(better') - stat(worse')``
        behind ``pvalues`` (what :func:`spalib.average_comparisons` combines across tasks).
    tolerances : dict
        ``tolerances[(better, worse)]``: how far short of the observed difference a draw may fall
        and still reach it: 0 (plain floating point) in the PERM tests of PA and SPA, the tie
        tolerance in acc_eq's pairs test and in averages (``spalib/_core/extreme.py``).
    """

    meta_metric: str
    scores: pd.Series
    pvalues: pd.DataFrame
    draws: pd.DataFrame
    ranks: pd.Series
    alpha: float
    settings: dict = field(default_factory=dict)
    null_distributions: dict = field(default_factory=dict, repr=False)
    tolerances: dict = field(default_factory=dict, repr=False)

    @property
    def significance_clusters(self) -> list[list[str]]:
        """The metrics grouped by rank, best cluster first."""
        return [list(group.index) for _, group in self.ranks.groupby(self.ranks, sort=True)]

    @property
    def n_significant(self) -> int:
        """Number of metric pairs whose difference is significant (``p <= alpha``)."""
        return int((self.pvalues.to_numpy() <= self.alpha).sum())

    def null_draws(self, first: str, second: str) -> np.ndarray:
        """The stored draws of ``stat(first') - stat(second')`` under the null, either way round.

        The pair was tested best first; asked the other way round, the draws change sign.
        A comparison made without a test (``n_resamples=0``) has no draws: refused.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> human = rng.random((4, 16))
        >>> c = compare_metrics(human, {"a": human + rng.random((4, 16)), "b": rng.random((4, 16))},
        ...                     meta_metric="pa", n_resamples=20, rng=1)
        >>> bool((c.null_draws("a", "b") == -c.null_draws("b", "a")).all())
        True
        """
        for name in (first, second):
            if name not in self.scores.index:
                raise ValueError(f"no metric named {name!r} in the comparison")
        if first == second:
            raise ValueError("give two different metrics")
        if (first, second) in self.null_distributions:
            return self.null_distributions[(first, second)]
        if (second, first) in self.null_distributions:
            return -self.null_distributions[(second, first)]
        raise ValueError(self._no_draws())

    def _no_draws(self) -> str:
        """Why there are no draws to read: no test was made, or the comparison was read from a file."""
        if self.settings.get("n_resamples") == 0:
            return "the comparison was made without a test (n_resamples=0): it has no draws"
        return ("the comparison was read from a file, which keeps no draws: a pair's draws depend only on the "
                "seed and its two metrics, so rerunning those metrics with rng=settings['seed'] gives them")

    def with_draws_of(self, rerun: MetricComparison) -> MetricComparison:
        """The comparison with the null draws of ``rerun``, the same test on some of its metrics;
        refused unless ``rerun``'s scores, p-values and draw counts are this one's, bit for bit.

        A comparison read by :meth:`load` keeps no draws.  Each pair of metrics draws from a
        random stream of its own, keyed by the seed and the pair, so the same call on a few of the
        metrics gives their pairs the same draws; this checks the numbers and lends those draws.

        Parameters
        ----------
        rerun : MetricComparison
            The same call (the same settings and seed) on a subset of this comparison's metrics.

        Returns
        -------
        MetricComparison
            This comparison's numbers and settings, with ``rerun``'s null draws.
        """
        if not isinstance(rerun, MetricComparison):
            raise TypeError(f"`rerun` must be a MetricComparison; got {type(rerun).__name__}")
        names = list(rerun.scores.index)
        unknown = [m for m in names if m not in self.scores.index]
        if unknown:
            raise ValueError(f"`rerun` compares metrics the stored comparison lacks: {', '.join(map(repr, unknown))}")
        if not _same_settings(rerun.settings, self.settings):
            raise ValueError("`rerun` was made with other settings or another seed")
        for part in ("scores", "pvalues", "draws"):
            mine = getattr(self, part)
            mine = mine[names] if part == "scores" else mine.loc[names, names]
            if not np.array_equal(mine.to_numpy(), getattr(rerun, part).to_numpy(), equal_nan=True):
                raise ValueError(f"`rerun`'s {part} differ from the stored ones")
        return dataclasses.replace(self, null_distributions=rerun.null_distributions)

    def save(self, path) -> None:
        """Write the comparison to ``path`` as JSON: every attribute but the null draws.

        A run too slow to repeat is stored once and read with :meth:`load`; a pair's draws depend
        only on the seed and the pair, so a rerun of a few metrics checks the stored numbers.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> rng = np.random.default_rng(0)
        >>> human = rng.random((4, 16))
        >>> c = compare_metrics(human, {"a": human + rng.random((4, 16)), "b": rng.random((4, 16))},
        ...                     meta_metric="pa", n_resamples=20, rng=1)
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "comparison.json"
        >>> c.save(path)
        >>> bool(MetricComparison.load(path).pvalues.equals(c.pvalues))
        True
        """
        storage.write(path, f"spalib.{type(self).__name__}", self._stored_parts(), EarlyStopping)

    def _stored_parts(self) -> dict:
        """The attributes :meth:`save` writes: all but the null draws."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "null_distributions"}

    @classmethod
    def load(cls, path) -> MetricComparison:
        """A comparison written by :meth:`save`: the same scores, p-values, draw counts, ranks,
        settings and tolerances, bit for bit, and no null draws (:meth:`null_draws` and
        :meth:`recount` say so).
        """
        return cls(**storage.read(path, f"spalib.{cls.__name__}", EarlyStopping))

    def recount(self, *, alternative: Alternative | None = None, alpha: float | None = None) -> MetricComparison:
        """The same test counted again from its stored draws, under another alternative or level.

        Parameters
        ----------
        alternative : {"greater", "two-sided"}, optional
            Which draws count as extreme (default: the test's own).
        alpha : float, optional
            The level of the significance clusters (default: the test's own).

        Returns
        -------
        MetricComparison
            New p-values and ranks, the same scores, draws and null draws.  Where early stopping
            cut a test short, it stopped on the test's own alternative; the recount reads the
            draws made.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> human = rng.random((4, 16))
        >>> metrics = {"a": human + rng.random((4, 16)), "b": rng.random((4, 16))}
        >>> two = compare_metrics(human, metrics, meta_metric="pa", n_resamples=200, rng=1, alternative="two-sided")
        >>> one = two.recount(alternative="greater")
        >>> bool(one.pvalues.loc["a", "b"] <= two.pvalues.loc["a", "b"])
        True
        """
        alternative = self.settings.get("alternative", "greater") if alternative is None else choice_iv(
            alternative, "alternative", ALTERNATIVES)
        alpha = self.alpha if alpha is None else probability_iv(alpha, "alpha")
        if not self.null_distributions:
            raise ValueError(self._no_draws())
        order = list(self.scores.index)
        if len(self.null_distributions) < len(order) * (len(order) - 1) // 2:
            raise ValueError("the comparison holds the draws of some pairs only (a stored one, lent draws by "
                             "MetricRanking.with_draws_of): recount the ranking that made the draws")
        pvalues = np.full((len(order), len(order)), np.nan)
        missing = set(self.null_distributions) - set(self.tolerances)
        if missing:
            raise ValueError(f"no tolerance stored for the pairs {sorted(missing)[:3]}: not a comparison "
                             "made by compare_metrics or average_comparisons")
        for (better, worse), null in self.null_distributions.items():
            i, j = order.index(better), order.index(worse)
            observed = self.scores[better] - self.scores[worse]
            pvalues[i, j] = count_extreme(null, observed, self.tolerances[(better, worse)], alternative) / null.size
        index = self.scores.index
        return dataclasses.replace(self, pvalues=pd.DataFrame(pvalues, index=index, columns=order),
                                   ranks=pd.Series(significance_ranks(pvalues, alpha), index=index, name="rank"),
                                   alpha=alpha, settings=self.settings | {"alternative": alternative})

    def table(self) -> pd.DataFrame:
        """One tidy row per metric, best first: metric, score, rank (the significance cluster).

        Use pandas for a paper: ``comparison.table().to_latex(index=False)`` or ``.to_markdown()``.
        """
        return pd.DataFrame({"metric": self.scores.index, self.meta_metric: self.scores.to_numpy(),
                             "rank": self.ranks.to_numpy()})


@dataclass(frozen=True)
class _Plan:
    """Everything :func:`compare_metrics` was asked, checked, with the aligned scores."""

    human: np.ndarray
    metrics: dict            # z-scored, for PERM-BOTH
    raw: dict                # as given (acc_eq's thresholds are in the metric's units)
    meta_metric: str
    alternative: str
    spa_method: str
    ties: str
    permutation: str
    grouping: str            # Pearson's groups
    n_resamples: int
    spa_resamples: int
    signs: object            # "bits", "mtme" or a SignMatrix
    seed: int                # every stream's root: SPA's signs and each pair's swaps
    early_stopping: EarlyStopping | None
    alpha: float
    progress: object


def _compare_metrics_iv(human, metrics, meta_metric, n_resamples, rng, signs, spa_resamples, spa_method, ties,
                        permutation, early_stopping, alpha, progress, alternative, grouping="none") -> _Plan:
    meta_metric = choice_iv(meta_metric, "meta_metric", META_METRICS)
    grouping = choice_iv(grouping, "grouping", GROUPINGS)
    if grouping != "none" and meta_metric != "pearson":
        raise ValueError(f"`grouping` applies to meta_metric 'pearson' (PDP compares within segments, acc_eq "
                         f"groups by item); got grouping={grouping!r} with {meta_metric!r}")
    alternative = choice_iv(alternative, "alternative", ALTERNATIVES)
    spa_method = choice_iv(spa_method, "spa_method", SPA_METHODS)
    ties = choice_iv(ties, "ties", TIES)
    permutation = choice_iv(permutation, "permutation", SCHEMES)
    spa_resamples, _, signs = signs_arguments_iv(spa_resamples, rng, signs, count="spa_resamples")
    n_resamples = int_iv(n_resamples, "n_resamples", low=0)
    alpha = probability_iv(alpha, "alpha")
    if not isinstance(progress, str):
        flag_iv(progress, "progress")
    if early_stopping is not None and not isinstance(early_stopping, EarlyStopping):
        raise TypeError(f"`early_stopping` must be None or an EarlyStopping, e.g. spalib.WMT_EARLY_STOPPING; "
                        f"got {early_stopping!r}")
    if meta_metric == "acc_eq" and early_stopping is not None:
        raise ValueError("`early_stopping` applies to PERM-BOTH (meta_metric 'spa', 'pa' or 'pdp'), "
                         "not to the acc_eq pairs test")
    h, raw, _ = align_metrics(human, metrics, minimum=2)
    if isinstance(signs, SignMatrix) and signs.n_segments != h.shape[1]:
        raise ValueError(f"`signs` cover {signs.n_segments} segments, the scores have {h.shape[1]}")
    for name, m in raw.items():
        # acc_eq compares raw differences; PA and SPA see the metric rescaled (exactly) first
        sums_iv(m if meta_metric == "acc_eq" else rescaled(m), f"metrics[{name!r}]")
    return _Plan(human=h, metrics={n: meta.zscored(m) for n, m in raw.items()}, raw=raw, meta_metric=meta_metric,
                 alternative=alternative, spa_method=spa_method, ties=ties, permutation=permutation,
                 grouping=grouping, n_resamples=n_resamples, spa_resamples=spa_resamples, signs=signs,
                 seed=engine.root_seed(rng),   # drawn last: a Generator is touched only if all is well
                 early_stopping=early_stopping, alpha=alpha, progress=progress)


# --- the meta-metrics' testers: pair(better, worse) -> (delta, tolerance, draw) -------------------

class _PerturbedMetrics:
    """PERM-BOTH (or PERM-INPUTS, PERM-SYSTEMS) draws: each swaps cells between the two metrics
    and recomputes both statistics; subclasses give ``scores`` and ``_hybrids(a, b, names)``.
    """

    def __init__(self, plan: _Plan):
        self.plan = plan
        self.n_systems, n_segments = plan.human.shape
        self.n_groups = (n_segments + 7) // 8

    def pair(self, better, worse):
        hybrids = self._hybrids(self.plan.metrics[worse], self.plan.metrics[better], (worse, better))
        scheme = SCHEMES.index(self.plan.permutation)

        def draw(key, first, size):
            masks = rng_kernels.swap_masks(key, first, size, scheme, self.n_systems, self.n_groups)
            stat_worse, stat_better = hybrids(masks)
            return stat_better - stat_worse
        # plain floating point, as the toolkit (spalib/_core/extreme.py)
        return self.scores[better] - self.scores[worse], 0.0, draw


class _PairwiseAccuracy(_PerturbedMetrics):
    """PA of system scores taken as segment means."""

    def __init__(self, plan: _Plan):
        super().__init__(plan)
        # With equal segment counts, sums order systems as means do.  Hybrid totals are updated,
        # not re-summed: metric ties are judged within a float tolerance, a metric's own, or the
        # larger of a pair's two (never one that depends on the other metrics of the call).
        self.human_sys = plan.human.mean(axis=1)
        self.tols = {n: sign_kernels.tie_tolerance(m) for n, m in plan.metrics.items()}
        agreement = {n: meta._pairwise_agreement(self.human_sys, m.sum(axis=1), self.tols[n])
                     for n, m in plan.metrics.items()}
        self.scores = {n: agree / pairs for n, (agree, pairs) in agreement.items()}

    def _hybrids(self, a, b, names):
        args = (a.sum(axis=1), b.sum(axis=1), perm_both._subset_sums(b - a))
        tol = max(self.tols[n] for n in names)
        return lambda masks: perm_both._perm_both_pa(*args, masks, self.human_sys, tol)


class _NormalSPA(_PerturbedMetrics):
    """SPA with normal-approximation p-values."""

    def __init__(self, plan: _Plan):
        super().__init__(plan)
        self.mid = plan.ties == "mid"
        self.upper = np.triu_indices(self.n_systems, 1)
        self.human_upper = pairwise_pvalues(plan.human, method="normal", ties=plan.ties)[self.upper]
        # summed as the PERM-BOTH and PERM-SYSTEMS draws are (PERM-INPUTS draws sum by matrix
        # products: a draw with no swap can land an ulp off, which has probability 2**-L)
        self.scores = {n: meta.spa_of_uppers(self.human_upper, sign_kernels._normal_upper(m, self.mid))
                       for n, m in plan.metrics.items()}

    def _hybrids(self, a, b, names):
        if self.plan.permutation == "inputs":
            return _inputs_normal_spa_draws(a, b, self.upper, self.human_upper, self.mid)
        return lambda masks: perm_both._perm_both_spa_normal(a, b, masks, self.human_upper, self.mid)


class _PermutationSPA(_PerturbedMetrics):
    """SPA with permutation p-values, one sign matrix for every metric."""

    def __init__(self, plan: _Plan):
        super().__init__(plan)
        self.mid = plan.ties == "mid"
        n_segments = plan.human.shape[1]
        signs = plan.signs
        if not isinstance(signs, SignMatrix):   # mt-metrics-eval's signs take the int seed itself
            signs = draw_signs(plan.spa_resamples, n_segments, signs=signs,
                               rng=plan.seed if signs == "mtme" else np.random.default_rng(plan.seed))
        # PERM-BOTH hybrids are summed in float64 whatever the recipe: the packed signs serve both.
        # mt-metrics-eval's recipe keeps its float32 arithmetic for the humans' p-values and the
        # observed scores (the toolkit's values for the seed); other signs sum in float64 throughout.
        upper = np.triu_indices(self.n_systems, 1)
        exact = signs if signs.recipe == "mtme" else SignMatrix(n_segments, packed=signs.packed)
        self.human_upper = pairwise_pvalues(plan.human, signs=exact, ties=plan.ties)[upper]
        self.tols = {n: sign_kernels.tie_tolerance(m) for n, m in plan.metrics.items()}
        self.sums = {}
        for n, m in plan.metrics.items():
            table = sign_kernels._byte_tables(m)
            self.sums[n] = (sign_kernels._signed_sums(table, signs.packed), sign_kernels._observed_sums(table))
        if signs.recipe == "mtme":
            self.scores = {n: meta.spa_of_uppers(self.human_upper,
                                                 pairwise_pvalues(m, signs=signs, ties=plan.ties)[upper])
                           for n, m in plan.raw.items()}
        else:
            self.scores = {n: meta.spa_from_matrix(self.human_upper,
                                                   sign_kernels._pair_pvalues(*self.sums[n], self.mid, self.tols[n]))
                           for n in plan.metrics}
        self.packed = signs.packed
        # 0/1 in the block product's dtype, padded to whole bytes (the padded cells' differences are zero)
        self.sign_bits = sign_kernels._unpack_bits(signs.packed, 8 * self.n_groups).astype(
            perm_both.product_dtype(8 * self.n_groups))

    def _hybrids(self, a, b, names):
        sums_a, sums_b = self.sums[names[0]], self.sums[names[1]]
        args = (*sums_a, *sums_b, *perm_both.spa_pair_inputs(sums_a, sums_b, b - a, 8 * self.n_groups))
        tol = max(self.tols[n] for n in names)
        return lambda masks: perm_both._perm_both_spa_permutation(*args, masks, self.sign_bits, self.packed,
                                                                  self.human_upper, self.mid, tol)


class _TieCalibratedAccuracy:
    """acc_eq with each metric's calibrated tie threshold (group-by-item), tested with the pairs
    test as WMT23-25 rank segment-level metrics ("acc-t").  Each metric's pair verdicts are
    computed once; every test is :func:`spalib.pairs_permutation_test`'s on the two metrics
    (the same observed difference and sign flips), its patterns drawn from the pair's own stream.
    """

    def __init__(self, plan: _Plan):
        human, names = plan.human, sorted(plan.raw)
        self.epsilons = {n: tie_calibration(human, plan.raw[n], variant="acc_eq", grouping="item").epsilon
                         for n in names}
        self.scores = {n: kendall_tau(human, plan.raw[n], variant="acc_eq", epsilon=self.epsilons[n],
                                      grouping="item").statistic for n in names}
        n_systems, n_items = human.shape
        starts = np.arange(0, n_systems * n_items + 1, n_systems, dtype=np.int64)  # one group per item
        self.agree = {n: rank_kernels._pair_agreements(human.T.ravel(), plan.raw[n].T.ravel(), starts,
                                                       float(self.epsilons[n]))
                      for n in names}
        self.weight = self.agree[names[0]][1] / n_items

    def pair(self, better, worse):
        diffs = (self.agree[better][0] - self.agree[worse][0]) * self.weight
        informative = diffs[diffs != 0]
        if informative.size == 0:
            return 0.0, 0.0, lambda key, first, size: np.zeros(size)   # every draw ties the observed 0
        observed, tolerance, null_of = sign_kernels.sign_flip(informative)
        return observed, tolerance, lambda key, first, size: null_of(
            rng_kernels.sign_patterns(key, first, size, informative.size))


class _PairwiseDifferencePearson(_PerturbedMetrics):
    """PDP within segments (:func:`pairwise_difference_pearson`, ``grouping="item"``)."""

    def __init__(self, plan: _Plan):
        super().__init__(plan)
        self.human = rescaled(plan.human)
        if not (np.ptp(self.human, axis=0) > 0).any():
            raise ValueError("`human` scores every system of a segment alike, in every segment: PDP is undefined")
        self.scores = {n: meta.pdp_of_columns(self.human, m) for n, m in plan.metrics.items()}
        undefined = [n for n, score in self.scores.items() if np.isnan(score)]
        if undefined:
            raise ValueError(f"metrics[{undefined[0]!r}] scores every system of a segment alike, in every segment: "
                             "its PDP is undefined")

    def _hybrids(self, a, b, names):
        return lambda masks: perm_both._perm_both_pdp(a, b, masks, self.human)


class _Pearson(_PerturbedMetrics):
    """Pearson's r over the (system, segment) cells: all of them (WMT's segment-level Pearson,
    ``grouping="none"``; a systems x 1 matrix gives the system-level r), or averaged over the
    segments (``"item"``) or the systems (``"system"``), groups where either side is constant
    left out, as mt-metrics-eval averages.  A hybrid's r comes from three sums per group that a
    swap moves linearly (:meth:`_hybrids`).
    """

    def __init__(self, plan: _Plan):
        super().__init__(plan)
        n_systems, n_segments = plan.human.shape
        cells = np.arange(n_systems * n_segments)
        self.cell_group, self.n_cell_groups = {
            "none": (0 * cells, 1), "item": (cells % n_segments, n_segments),
            "system": (cells // n_segments, n_systems)}[plan.grouping]
        self.sizes = np.bincount(self.cell_group, minlength=self.n_cell_groups).astype(np.float64)
        h = plan.human.ravel()
        self.human = meta.group_centred(h, self.cell_group, self.n_cell_groups)
        self.human_squares = np.bincount(self.cell_group, self.human * self.human, self.n_cell_groups)
        self.human_squares[meta.constant_groups(h, self.cell_group, self.n_cell_groups)] = 0.0
        if not (self.human_squares > 0).any():
            raise ValueError(f"`human` scores every cell of every group alike (grouping {plan.grouping!r}): "
                             "Pearson's r is undefined")
        self.scores = {n: meta.grouped_pearson(h, m.ravel(), self.cell_group, self.n_cell_groups)
                       for n, m in plan.raw.items()}
        undefined = [n for n, score in self.scores.items() if np.isnan(score)]
        if undefined:
            raise ValueError(f"metrics[{undefined[0]!r}] scores every cell of every group alike (grouping "
                             f"{plan.grouping!r}): its Pearson's r is undefined")

    def _sums(self, x):
        """Each group's sum of ``x``, of its squares and of its products with the centred human scores."""
        return np.stack([np.bincount(self.cell_group, v, self.n_cell_groups)
                         for v in (x, x * x, self.human * x)], axis=-1)

    def _hybrids(self, a, b, names):
        """Swapping cell ``c`` moves hybrid a's sum by ``d_c = b_c - a_c``, its sum of squares by
        ``b_c**2 - a_c**2`` and its cross sum with the centred human scores by ``h_c d_c``
        (hybrid b by minus each), in the cell's group: each draw adds up the steps of the cells
        it swaps.
        """
        a, b = a.ravel(), b.ravel()
        d = b - a
        steps = np.stack([d, b * b - a * a, self.human * d], axis=1)
        own_a, own_b = self._sums(a), self._sums(b)

        def draws(masks):
            moved = perm_both._moved_sums(masks, steps, self.cell_group, self.n_cell_groups)
            return (meta.pearson_of_sums(own_a + moved, self.sizes, self.human_squares),
                    meta.pearson_of_sums(own_b - moved, self.sizes, self.human_squares))
        return draws


# each meta-metric's tester for the engine (SPA's by how its own p-values are computed)
_TESTERS = {"pa": _PairwiseAccuracy, "normal": _NormalSPA, "permutation": _PermutationSPA,
            "acc_eq": _TieCalibratedAccuracy, "pdp": _PairwiseDifferencePearson, "pearson": _Pearson}


def _inputs_normal_spa_draws(a, b, upper, human_upper, mid):
    """PERM-INPUTS draws of normal-approximation SPA by two matrix products per block of draws.

    Swapping segment ``l`` between the metrics moves each system pair's difference from
    ``da[:, l]`` to ``db[:, l]``, so a hybrid's sums of differences and of squared differences
    are the metric's own plus ``W @ (db - da)`` and ``W @ (db**2 - da**2)`` for the block's 0/1
    swap matrix ``W`` (draws x segments).
    """
    i, j = upper
    da, db = a[i] - a[j], b[i] - b[j]                       # system pairs x segments
    sums_a, sums_b = da.sum(axis=1), db.sum(axis=1)
    squares_a, squares_b = (da * da).sum(axis=1), (db * db).sum(axis=1)
    step_sums, step_squares = (db - da).T.copy(), (db * db - da * da).T.copy()
    n_segments = a.shape[1]

    def draws(masks):
        swaps = sign_kernels._unpack_bits(masks[:, 0, :], n_segments)
        shift_sums, shift_squares = swaps @ step_sums, swaps @ step_squares
        spa_a = _spa_of_normal_pvalues(sums_a + shift_sums, squares_a + shift_squares, human_upper, mid)
        spa_b = _spa_of_normal_pvalues(sums_b - shift_sums, squares_b - shift_squares, human_upper, mid)
        return spa_a, spa_b
    return draws


def _spa_of_normal_pvalues(sums, squares, human_upper, mid):
    """SPA of each row (draw) from the pairs' sums and sums of squares of differences."""
    return meta.spa_of_rows(human_upper, sign_kernels.normal_upper_pvalues(sums, squares, mid))


@renamed_keyword("statistic", "meta_metric")
def compare_metrics(human, metrics: dict, *, meta_metric: MetaMetric = "spa", n_resamples: int = 1000,
                    rng=None, signs: SignRecipe | SignMatrix = "bits", spa_resamples: int = 1000,
                    spa_method: SpaMethod = "permutation", ties: Ties = "ge", permutation: Scheme = "both",
                    early_stopping: EarlyStopping | None = None, alpha: float = 0.05, progress: bool = False,
                    alternative: Alternative = "greater", grouping: Grouping = "none") -> MetricComparison:
    """Score metrics with PA or SPA and test every pair of metrics with PERM-BOTH.

    Parameters
    ----------
    human : DataFrame, systems x segments
        Human segment scores, complete (no missing cells).
    metrics : dict of name -> DataFrame
        Each metric's segment scores on the same systems and segments.
    meta_metric : {"spa", "pa", "acc_eq", "pdp", "pearson"}
        SPA, pairwise accuracy of system scores taken as segment means (as the SPA paper does),
        the segment-level acc_eq with each metric's calibrated tie threshold, group-by-item, tested
        with the pairs test (WMT23-25 "acc-t"; :func:`spalib.pairs_permutation_test`; the
        thresholds are in ``settings["epsilons"]``), the pairwise difference Pearson
        correlation within segments (:func:`pairwise_difference_pearson`), or Pearson's r over
        all cells (WMT23's segment-level Pearson, no grouping; given one column of system scores,
        its system-level Pearson), the last two tested by PERM-BOTH.
    n_resamples : int
        PERM-BOTH draws per metric pair (mt-metrics-eval's ``k``, default 1000); 0: no test, and
        ranks that are positions by score (the toolkit's ``k = 0``; p-values NaN, no draws).
    rng : None, int or Generator
        The int seed of every stream, or a Generator (``None``: a fresh one) that one is drawn
        from; ``settings["seed"]`` records it.  SPA's signs come from it, and each metric pair's
        draws from a stream keyed by it and the pair's two names: a pair's p-value is the same
        whether it is tested alone or among other metrics, and for one seed PA and SPA swap the
        same cells (:func:`spalib.rank_metrics` gives each meta-metric a seed of its own).
    signs : {"bits", "mtme"} or SignMatrix
        SPA's sign recipe (:data:`spalib.resampling.SIGN_RECIPES`).  ``"mtme"`` needs an int
        ``rng``: SPA's signs are then mt-metrics-eval's for that seed.
    spa_resamples, spa_method : int, {"permutation", "normal"}
        How SPA's own p-values are computed: ``K`` shared sign patterns, or the normal approximation.
    ties : {"ge", "mid"}
        How SPA's p-values count null values equal to the observed one.
    permutation : {"both", "inputs", "systems"}
        What a draw swaps between the two metrics (Deutsch et al. 2021): each (system,
        segment) cell independently (PERM-BOTH, what mt-metrics-eval does), whole segments
        (PERM-INPUTS, what the SPA paper's text names), or whole systems (PERM-SYSTEMS).
    early_stopping : EarlyStopping, optional
        mt-metrics-eval's early stopping; WMT runs used :data:`WMT_EARLY_STOPPING`.
    alpha : float
        Significance level for the clusters (``p <= alpha``, as mt-metrics-eval assigns ranks).
    progress : bool or str
        Show a progress bar (with a time estimate) over the metric pairs; a string labels it.
    alternative : {"greater", "two-sided"}
        ``"greater"`` (mt-metrics-eval): is the better-scoring metric of the pair better, i.e.
        the share of draws with ``Δ* >= Δ``.  ``"two-sided"`` (nlpstats' default, and what
        reproduces SPA's Table 1): do the two differ, the share with ``|Δ*| >= |Δ|``.
    grouping : {"none", "item", "system"}
        Pearson's r over all cells, or its mean over the segments (items) or the systems, the
        groups where either side is constant left out (mt-metrics-eval's ``average_by``); only
        with ``meta_metric="pearson"``.

    Returns
    -------
    MetricComparison

    Notes
    -----
    PERM-BOTH (Deutsch et al. 2021): both metrics are z-scored over all cells; each draw swaps
    every (system, segment) cell between them with probability 1/2 and recomputes both
    statistics (a swap mask is eight cells per random byte);
    ``p = #{draws: stat(b') - stat(a') >= stat(b) - stat(a)} / draws``, no +1, as in the
    reference.  SPA and PA are unchanged by z-scoring a metric (a positive affine map), so the
    reported scores are those of the raw metric.  The human p-values are computed once.
    Every argument is checked before any draw, whatever the meta-metric uses of it.  Scores beyond
    ``2**±400`` in magnitude are first scaled by a power of two (exact), where their squares and
    variances would overflow or underflow.  A pair's draws are a counter-based stream (SplitMix64,
    as the simulation lab's): with early stopping a pair uses the first draws of the very stream
    it would use without.  Ties of system scores within a float tolerance are judged with a
    metric's own tolerance for its score, and the larger of the pair's two for its draws.

    References
    ----------
    Deutsch, D., Dror, R. and Roth, D. (2021). A statistical analysis of summarization evaluation
    metrics using resampling methods. TACL.
    Thompson, B. et al. (2024). Improving statistical significance in human evaluation of
    automatic metrics via Soft Pairwise Accuracy. WMT.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> human = pd.DataFrame(rng.random((4, 16)))
    >>> metrics = {"good": human + 0.1 * rng.random((4, 16)), "noisy": human + rng.random((4, 16))}
    >>> compare_metrics(human, metrics, meta_metric="pa", n_resamples=100, rng=1).table()["metric"].tolist()
    ['good', 'noisy']
    """
    plan = _compare_metrics_iv(human, metrics, meta_metric, n_resamples, rng, signs, spa_resamples, spa_method,
                               ties, permutation, early_stopping, alpha, progress, alternative, grouping)
    kind = plan.meta_metric if plan.meta_metric != "spa" else plan.spa_method
    stat = _TESTERS[kind](plan)
    return _tested_comparison(
        stat, plan.meta_metric, n_resamples=plan.n_resamples, seed=plan.seed, alternative=plan.alternative,
        early_stopping=plan.early_stopping, alpha=plan.alpha, progress=plan.progress, pairs_test=kind == "acc_eq",
        settings=dict(signs=signs if isinstance(signs, str) else "prepared", spa_resamples=plan.spa_resamples,
                      spa_method=plan.spa_method, ties=plan.ties, permutation=plan.permutation,
                      grouping=plan.grouping),
        found={"epsilons": stat.epsilons} if kind == "acc_eq" else None)


def _tested_comparison(stat, meta_metric: str, *, n_resamples: int, seed: int, alternative: str,
                      early_stopping: EarlyStopping | None, alpha: float, progress, pairs_test: bool = False,
                      settings: dict | None = None, found: dict | None = None) -> MetricComparison:
    """Every pair of ``stat``'s metrics (a tester of :mod:`spalib._core.engine`), best first, tested
    through the engine, as a :class:`MetricComparison`; ``n_resamples=0``: positions, no test.
    ``settings`` (the arguments) and ``found`` (what the tester chose, e.g. tie thresholds) go into
    its ``settings``.
    The front door's tail, shared by :func:`compare_metrics` and the protocols' pooled accuracy.
    """
    order = sorted(stat.scores, key=lambda n: (-stat.scores[n], n))
    if early_stopping is not None:
        block = early_stopping.block_size
        early = dict(early_min=early_stopping.early_min, early_max=early_stopping.early_max)
    else:
        # the pairs test draws all its patterns at once; PERM-BOTH in blocks that fit in memory
        block, early = (n_resamples if pairs_test else min(n_resamples, _DRAWS_PER_BLOCK)), {}
    if n_resamples:
        pvals, draws, nulls, tolerances = engine.pair_tests(
            stat, order, n_resamples=n_resamples, block=block, alternative=alternative, seed=seed,
            stream="pairs test" if pairs_test else "perm", progress=progress,
            label="pairs test acc_eq" if pairs_test else f"PERM-BOTH {meta_metric}", **early)
        ranks = significance_ranks(pvals, alpha)
    else:
        pvals, draws, nulls, ranks = _without_test(len(order))
        tolerances = {}
    index = pd.Index(order, name="metric")
    return MetricComparison(
        meta_metric=meta_metric,
        scores=pd.Series([stat.scores[n] for n in order], index=index, name=meta_metric),
        pvalues=pd.DataFrame(pvals, index=index, columns=order),
        draws=pd.DataFrame(draws, index=index, columns=order),
        ranks=pd.Series(ranks, index=index, name="rank"),
        alpha=alpha,
        settings=dict(n_resamples=n_resamples, **(settings or {}), early_stopping=early_stopping,
                      alternative=alternative, seed=seed, **(found or {})),
        null_distributions=nulls,
        tolerances=tolerances,
    )

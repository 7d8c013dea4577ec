"""Meta-metrics: pairwise accuracy, Soft Pairwise Accuracy, and the significance of their
differences between metrics (PERM-BOTH, greedy significance clusters).

References: Kocmi et al. (2021) for pairwise accuracy; Thompson et al. (2024) for SPA;
Deutsch et al. (2021) for PERM-BOTH; mt-metrics-eval ``stats.py`` for the conventions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import special
from tqdm import tqdm

from spalib._core import meta, perm_both, rank_kernels, signs as sign_kernels
from spalib._core.validation import (ALTERNATIVES, choice_iv, flag_iv, is_seed, labels_iv, positive_int_iv,
                                     probability_iv, real_array_iv, real_iv, rng_iv, score_matrix_iv, sums_iv)
from spalib.rank_correlations import _pairs_test_null, kendall_tau, tie_calibration
from spalib.resampling import SignMatrix, draw_signs, pairwise_pvalues

__all__ = ["pairwise_accuracy", "soft_pairwise_accuracy", "compare_metrics", "significance_ranks",
           "MetricComparison", "SoftPairwiseAccuracyResult", "EarlyStopping", "WMT_EARLY_STOPPING"]


# --- alignment -----------------------------------------------------------------------------------

def _align_vectors(human, metric) -> tuple[np.ndarray, np.ndarray]:
    """Two system-level vectors, aligned by system name when both are pandas Series."""
    if isinstance(human, pd.Series) != isinstance(metric, pd.Series):
        raise TypeError("give `human` and `metric` both as pandas Series (aligned by system name) "
                        "or both as arrays in the same system order")
    if isinstance(human, pd.Series):
        _check_same_systems(human.index, metric.index)
        metric = metric.loc[human.index]
    h = real_array_iv(human, "human", allow_nan=True)
    m = real_array_iv(metric, "metric", allow_nan=True)
    if h.ndim != 1 or h.shape != m.shape:
        raise ValueError(f"`human` and `metric` must be 1-D of equal length; got {h.shape} and {m.shape}")
    if np.isnan(m).any():
        raise ValueError(f"`metric` has {int(np.isnan(m).sum())} missing system score(s)")
    return h, m


def _check_same_systems(human_index, metric_index) -> None:
    labels_iv(human_index, "human systems")
    labels_iv(metric_index, "metric systems")
    missing = sorted(set(human_index) - set(metric_index))
    extra = sorted(set(metric_index) - set(human_index))
    if missing or extra:
        raise ValueError(f"human and metric scores cover different systems: the metric lacks {missing}, "
                         f"has extra {extra}")


def _align_matrices(human, metric, name: str = "metric") -> tuple[np.ndarray, np.ndarray, list]:
    """Two systems x segments matrices, aligned by system (sorted: a canonical order) and segment."""
    if isinstance(human, pd.DataFrame) != isinstance(metric, pd.DataFrame):
        raise TypeError(f"give `human` and `{name}` both as DataFrames (systems x segments) or both as arrays")
    if isinstance(human, pd.DataFrame):
        _check_same_systems(human.index, metric.index)
        if not human.columns.equals(metric.columns):
            raise ValueError(f"human and {name} scores cover different segments (columns); select the "
                             "same complete segments for both, e.g. with spalib.data.complete_segments")
        systems = sorted(human.index)
        human, metric = human.loc[systems], metric.loc[systems]
    else:
        systems = list(range(np.shape(human)[0]))
    h = score_matrix_iv(human, "human")
    m = score_matrix_iv(metric, name)
    if h.shape != m.shape:
        raise ValueError(f"`human` has shape {h.shape}, `{name}` {m.shape}")
    return h, m, systems


# --- the two meta-metrics ------------------------------------------------------------------------

def pairwise_accuracy(human_sys, metric_sys) -> float:
    """Share of system pairs that the metric orders as the humans do.

    Parameters
    ----------
    human_sys, metric_sys : array_like or Series
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
    h, m = _align_vectors(human_sys, metric_sys)
    agree, pairs = meta._pairwise_agreement(h, m, 0.0)
    if pairs == 0:
        raise ValueError("no system pair has human scores for both systems")
    return agree / pairs


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


def _spa(human_upper: np.ndarray, metric_upper: np.ndarray) -> float:
    """SPA from the upper triangles of the two p-value matrices (Thompson et al. 2024, eq. 1)."""
    return float(1.0 - np.mean(np.abs(human_upper - metric_upper)))


def soft_pairwise_accuracy(human_seg, metric_seg, *, n_resamples: int = 1000, rng=None, signs="bits",
                           method: str = "permutation", ties: str = "ge") -> SoftPairwiseAccuracyResult:
    """Soft Pairwise Accuracy: how closely the metric's p-values follow the humans'.

    Parameters
    ----------
    human_seg, metric_seg : DataFrame or array_like, systems x segments
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
        How the p-values are computed (:func:`spalib.pairwise_pvalues`).
    ties : {"ge", "mid"}
        Null values equal to the observed one count fully, or one half.

    Returns
    -------
    SoftPairwiseAccuracyResult

    Notes
    -----
    ``SPA = 1 - mean_{i<j} |P^h[i, j] - P^m[i, j]|`` over the ``S(S-1)/2`` system pairs.

    References
    ----------
    Thompson, B. et al. (2024). Improving statistical significance in human evaluation of
    automatic metrics via Soft Pairwise Accuracy. WMT. Equation 1.

    Examples
    --------
    >>> soft_pairwise_accuracy([[1, 2, 3], [2, 3, 4]], [[2, 2, 4], [1, 3, 5]], rng=4, signs="mtme").statistic
    0.872
    """
    h, m, systems = _align_matrices(human_seg, metric_seg)
    method = choice_iv(method, "method", ("permutation", "normal", "exact"))
    if method == "permutation" and not isinstance(signs, SignMatrix):
        signs = draw_signs(n_resamples, h.shape[1], rng, signs=signs)
    kw = dict(method=method, ties=ties, signs=signs, n_resamples=n_resamples, rng=None)
    ph, pm = pairwise_pvalues(h, **kw), pairwise_pvalues(m, **kw)
    upper = np.triu_indices(h.shape[0], 1)
    return SoftPairwiseAccuracyResult(_spa(ph[upper], pm[upper]), ph, pm, systems)


# --- significance of metric differences ----------------------------------------------------------

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


@dataclass(frozen=True)
class MetricComparison:
    """What :func:`compare_metrics` found.

    Attributes
    ----------
    statistic : str
        ``"spa"``, ``"pa"`` or ``"acc_eq"``.
    scores : Series
        Each metric's statistic, best first (ties broken by name).
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
        The arguments that produced the comparison.
    null_distributions : dict
        ``null_distributions[(better, worse)]``: the draws of ``stat(better') - stat(worse')``
        behind ``pvalues`` (what :func:`spalib.average_comparisons` combines across tasks).
    """

    statistic: str
    scores: pd.Series
    pvalues: pd.DataFrame
    draws: pd.DataFrame
    ranks: pd.Series
    alpha: float
    settings: dict = field(default_factory=dict)
    null_distributions: dict = field(default_factory=dict, repr=False)

    @property
    def significance_clusters(self) -> list[list[str]]:
        """The metrics grouped by rank, best cluster first."""
        return [list(group.index) for _, group in self.ranks.groupby(self.ranks, sort=True)]

    @property
    def n_significant(self) -> int:
        """Number of metric pairs whose difference is significant (``p <= alpha``)."""
        return int((self.pvalues.to_numpy() <= self.alpha).sum())

    def table(self) -> pd.DataFrame:
        """One tidy row per metric, best first: metric, score, rank (the significance cluster).

        Use pandas for a paper: ``comparison.table().to_latex(index=False)`` or ``.to_markdown()``.
        """
        return pd.DataFrame({"metric": self.scores.index, self.statistic: self.scores.to_numpy(),
                             "rank": self.ranks.to_numpy()})


def _compare_metrics_iv(human_seg, metrics_seg, statistic, n_resamples, rng, signs, spa_resamples, spa_method,
                        ties, permutation, early_stopping, alpha, progress, alternative):
    statistic = choice_iv(statistic, "statistic", ("spa", "pa", "acc_eq"))
    alternative = choice_iv(alternative, "alternative", ALTERNATIVES)
    spa_method = choice_iv(spa_method, "spa_method", ("permutation", "normal"))
    ties = choice_iv(ties, "ties", ("ge", "mid"))
    permutation = choice_iv(permutation, "permutation", ("both", "inputs", "systems"))
    n_resamples = positive_int_iv(n_resamples, "n_resamples")
    spa_resamples = positive_int_iv(spa_resamples, "spa_resamples")
    alpha = probability_iv(alpha, "alpha")
    if not isinstance(progress, str):
        flag_iv(progress, "progress")
    if early_stopping is None:
        stop = (min(n_resamples, 100), -np.inf, np.inf)
    elif isinstance(early_stopping, EarlyStopping):
        stop = (early_stopping.block_size, early_stopping.early_min, early_stopping.early_max)
    else:
        raise TypeError(f"`early_stopping` must be None or an EarlyStopping, e.g. spalib.WMT_EARLY_STOPPING; "
                        f"got {early_stopping!r}")
    if not isinstance(metrics_seg, dict) or len(metrics_seg) < 2:
        raise ValueError("`metrics_seg` must be a dict of at least two metrics")
    if not isinstance(signs, (str, SignMatrix)) or isinstance(signs, str) and signs not in ("bits", "mtme"):
        raise ValueError(f"`signs` must be 'bits', 'mtme' or a SignMatrix; got {signs!r}")
    if isinstance(signs, str) and signs == "mtme":
        if not is_seed(rng):
            raise ValueError(f"signs='mtme' needs an int seed as `rng` (mt-metrics-eval's default is 4); got {rng!r}")
        # the SPA signs follow the toolkit's recipe; the swaps get their own stream of that seed
        swap_rng = np.random.default_rng([int(rng), 1])
    else:
        rng = swap_rng = rng_iv(rng)
    if statistic == "acc_eq" and early_stopping is not None:
        raise ValueError("`early_stopping` applies to PERM-BOTH (statistic 'spa' or 'pa'), "
                         "not to the acc_eq pairs test")
    names = sorted(metrics_seg)
    human, metrics, raw = None, {}, {}
    for name in names:
        h, m, _ = _align_matrices(human_seg, metrics_seg[name], name=f"metrics_seg[{name!r}]")
        sums_iv(m, f"metrics_seg[{name!r}]")
        human = h if human is None else human
        sd = m.std()
        raw[name] = m
        metrics[name] = (m - m.mean()) / sd if sd > 0 else m - m.mean()
    return dict(human=human, metrics=metrics, raw=raw, statistic=statistic, n_resamples=n_resamples, rng=rng,
                signs=signs, swap_rng=swap_rng, spa_resamples=spa_resamples, spa_method=spa_method,
                mid=ties == "mid", ties=ties, permutation=permutation, stop=stop, alpha=alpha, progress=progress,
                alternative=alternative)


def _pa_statistic(human, metrics, **_):
    """PA of system scores taken as segment means, and its PERM-BOTH draws."""
    # With equal segment counts, sums order systems as means do.  Hybrid totals are updated,
    # not re-summed: metric ties are judged within a float tolerance.
    human_sys = human.mean(axis=1)
    tol = max(sign_kernels.tie_tolerance(m) for m in metrics.values())
    stat = {n: meta._pairwise_agreement(human_sys, m.sum(axis=1), tol) for n, m in metrics.items()}

    def pair_test(a, b, names):
        args = (a.sum(axis=1), b.sum(axis=1), perm_both._subset_sums(b - a))
        return lambda masks: perm_both._perm_both_pa(*args, masks, human_sys, tol)
    return {n: agree / pairs for n, (agree, pairs) in stat.items()}, pair_test


def _spa_normal_statistic(human, metrics, ties, mid, permutation, **_):
    """SPA with normal-limit p-values, and its PERM-BOTH (or PERM-INPUTS) draws."""
    upper = np.triu_indices(human.shape[0], 1)
    human_upper = pairwise_pvalues(human, method="normal", ties=ties)[upper]
    scores = {n: _spa(human_upper, sign_kernels._normal_upper(m, mid)) for n, m in metrics.items()}

    def pair_test(a, b, names):
        if permutation == "inputs":
            return _inputs_normal_spa_draws(a, b, upper, human_upper, mid)
        return lambda masks: perm_both._perm_both_spa_normal(a, b, masks, human_upper, mid)
    return scores, pair_test


def _inputs_normal_spa_draws(a, b, upper, human_upper, mid):
    """PERM-INPUTS draws of normal-limit SPA by two matrix products per block of draws.

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
        swaps = np.unpackbits(masks[:, 0, :], axis=1, bitorder="little")[:, :n_segments].astype(np.float64)
        shift_sums, shift_squares = swaps @ step_sums, swaps @ step_squares
        spa_a = _spa_of_normal_pvalues(sums_a + shift_sums, squares_a + shift_squares, human_upper, mid)
        spa_b = _spa_of_normal_pvalues(sums_b - shift_sums, squares_b - shift_squares, human_upper, mid)
        return spa_a, spa_b
    return draws


def _spa_of_normal_pvalues(sums, squares, human_upper, mid):
    """SPA of each row (draw) from the pairs' sums and sums of squares of differences."""
    squares = np.maximum(squares, 0.0)                       # rounding below an exact 0
    with np.errstate(divide="ignore", invalid="ignore"):
        p = 0.5 * special.erfc(sums / np.sqrt(2.0 * squares))
    p = np.where(squares > 0, p, 0.5 if mid else 1.0)
    return 1.0 - np.abs(human_upper - p).mean(axis=1)


def _spa_permutation_statistic(human, metrics, ties, mid, signs, spa_resamples, rng, **_):
    """SPA with permutation p-values (one sign matrix for every metric), and its PERM-BOTH draws."""
    if not isinstance(signs, SignMatrix):
        signs = draw_signs(spa_resamples, human.shape[1], rng, signs=signs)
    elif signs.n_segments != human.shape[1]:
        raise ValueError(f"`signs` cover {signs.n_segments} segments, the scores have {human.shape[1]}")
    upper = np.triu_indices(human.shape[0], 1)
    # PERM-BOTH hybrids are summed in float64 whatever the recipe: the packed signs serve both
    human_upper = pairwise_pvalues(human, signs=SignMatrix(human.shape[1], packed=signs.packed), ties=ties)[upper]
    tol = max(sign_kernels.tie_tolerance(m) for m in metrics.values())
    sums = {}
    for n, m in metrics.items():
        table = sign_kernels._byte_tables(m)
        sums[n] = (sign_kernels._signed_sums(table, signs.packed), sign_kernels._observed_sums(table))
    scores = {n: meta.spa_from_matrix(human_upper, sign_kernels._pair_pvalues(*sums[n], mid, tol)) for n in metrics}
    sign_bits = sign_kernels._unpack_bits(signs.packed, human.shape[1])

    def pair_test(a, b, names):
        args = (*sums[names[0]], *sums[names[1]], b - a)
        return lambda masks: perm_both._perm_both_spa_permutation(*args, masks, sign_bits, human_upper, mid, tol)
    return scores, pair_test


def _perm_both_pvalues(order, metrics, scores, pair_test, *, swap_rng, permutation, n_resamples, stop, progress,
                       statistic, n_systems, n_groups, alternative):
    """The permutation p-value (and the draws used) of every ordered pair of metrics.

    A draw is extreme when ``null >= delta`` (``"greater"``) or ``|null| >= |delta|``
    (``"two-sided"``), compared in plain floating point as mt-metrics-eval and nlpstats do.
    """
    block, early_min, early_max = stop
    n_metrics = len(order)
    pvals = np.full((n_metrics, n_metrics), np.nan)
    draws = np.zeros((n_metrics, n_metrics), dtype=int)
    nulls = {}
    pairs = [(i, j) for i in range(n_metrics) for j in range(i + 1, n_metrics)]
    for i, j in tqdm(pairs, desc=progress if isinstance(progress, str) else f"PERM-BOTH {statistic}",
                     disable=not progress):
        delta = scores[order[i]] - scores[order[j]]
        hybrid_stats = pair_test(metrics[order[j]], metrics[order[i]], (order[j], order[i]))
        count = used = 0
        null = []
        while used < n_resamples:
            size = min(block, n_resamples - used)
            masks = _swap_masks(swap_rng, permutation, size, n_systems, n_groups)
            stat_worse, stat_better = hybrid_stats(masks)
            null.append(stat_better - stat_worse)
            count += int(np.sum(_extreme(null[-1], delta, alternative)))
            used += size
            if count / used < early_min or count / used > early_max:
                break
        pvals[i, j] = count / used
        draws[i, j] = used
        nulls[(order[i], order[j])] = np.concatenate(null)
    return pvals, draws, nulls


def compare_metrics(human_seg, metrics_seg: dict, *, statistic: str = "spa", n_resamples: int = 1000,
                    rng=None, signs="bits", spa_resamples: int = 1000, spa_method: str = "permutation",
                    ties: str = "ge", permutation: str = "both", early_stopping: EarlyStopping | None = None,
                    alpha: float = 0.05, progress: bool = False, alternative: str = "greater") -> MetricComparison:
    """Score metrics with PA or SPA and test every pair of metrics with PERM-BOTH.

    Parameters
    ----------
    human_seg : DataFrame, systems x segments
        Human segment scores, complete (no missing cells).
    metrics_seg : dict of name -> DataFrame
        Each metric's segment scores on the same systems and segments.
    statistic : {"spa", "pa", "acc_eq"}
        SPA, pairwise accuracy of system scores taken as segment means (as the SPA paper does), or
        the segment-level acc_eq with each metric's calibrated tie threshold, group-by-item, tested
        with the pairs test (WMT23-25 "acc-t"; :func:`spalib.pairs_permutation_test`; the
        thresholds are in ``settings["epsilons"]``).
    n_resamples : int
        PERM-BOTH draws per metric pair (mt-metrics-eval's ``k``, default 1000).
    rng : None, int or Generator
        The random state of SPA's signs and of the swaps.
    signs : {"bits", "mtme"} or SignMatrix
        SPA's sign recipe (:data:`spalib.resampling.SIGN_RECIPES`).  ``"mtme"`` needs an int
        ``rng``: SPA's signs are then mt-metrics-eval's for that seed, and the swaps come from a
        separate stream of the same seed.
    spa_resamples, spa_method : int, {"permutation", "normal"}
        How SPA's own p-values are computed: ``K`` shared sign patterns, or the normal limit.
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
    >>> compare_metrics(human, metrics, statistic="pa", n_resamples=100, rng=1).table()["metric"].tolist()
    ['good', 'noisy']
    """
    args = _compare_metrics_iv(human_seg, metrics_seg, statistic, n_resamples, rng, signs, spa_resamples,
                               spa_method, ties, permutation, early_stopping, alpha, progress, alternative)
    metrics, human = args["metrics"], args["human"]
    extra = {}
    if args["statistic"] == "acc_eq":
        scores, pvals, draws, nulls, extra["epsilons"] = _acc_eq_comparison(**args)
        order = sorted(metrics, key=lambda n: (-scores[n], n))
    else:
        factory = {"pa": _pa_statistic, "normal": _spa_normal_statistic, "permutation": _spa_permutation_statistic}
        scores, pair_test = factory["pa" if args["statistic"] == "pa" else args["spa_method"]](**args)
        order = sorted(metrics, key=lambda n: (-scores[n], n))
        pvals, draws, nulls = _perm_both_pvalues(
            order, metrics, scores, pair_test, swap_rng=args["swap_rng"], permutation=args["permutation"],
            n_resamples=args["n_resamples"], stop=args["stop"], progress=args["progress"],
            statistic=args["statistic"], n_systems=human.shape[0], n_groups=(human.shape[1] + 7) // 8,
            alternative=args["alternative"])
    index = pd.Index(order, name="metric")
    return MetricComparison(
        statistic=args["statistic"],
        scores=pd.Series([scores[n] for n in order], index=index, name=args["statistic"]),
        pvalues=pd.DataFrame(pvals, index=index, columns=order),
        draws=pd.DataFrame(draws, index=index, columns=order),
        ranks=pd.Series(significance_ranks(pvals, args["alpha"]), index=index, name="rank"),
        alpha=args["alpha"],
        settings=dict(n_resamples=n_resamples, signs=signs if isinstance(signs, str) else "prepared",
                      spa_resamples=spa_resamples, spa_method=spa_method, ties=ties, permutation=permutation,
                      early_stopping=early_stopping, alternative=args["alternative"], **extra),
        null_distributions=nulls,
    )


def _acc_eq_comparison(human, raw, swap_rng, n_resamples, progress, alternative, **_):
    """Tie-calibrated acc_eq of every metric (group-by-item) and the pairs test between every two,
    as WMT23-25 rank segment-level metrics ("acc-t"); returns scores, p-values, draws, null
    draws and epsilons.  Each metric's pair verdicts are computed once; every test then equals
    :func:`spalib.pairs_permutation_test` on the two metrics with the same random state.
    """
    names = sorted(raw)
    epsilons = {n: tie_calibration(human, raw[n], variant="acc_eq", grouping="item").epsilon for n in names}
    scores = {n: kendall_tau(human, raw[n], variant="acc_eq", epsilon=epsilons[n], grouping="item").statistic
              for n in names}
    n_systems, n_items = human.shape
    starts = np.arange(0, n_systems * n_items + 1, n_systems, dtype=np.int64)  # one group per item
    agree = {n: rank_kernels._pair_agreements(human.T.ravel(), raw[n].T.ravel(), starts, float(epsilons[n]))
             for n in names}
    weight = agree[names[0]][1] / n_items
    order = sorted(names, key=lambda n: (-scores[n], n))
    pvals = np.full((len(order), len(order)), np.nan)
    draws = np.zeros((len(order), len(order)), dtype=int)
    nulls = {}
    pairs = [(i, j) for i in range(len(order)) for j in range(i + 1, len(order))]
    for i, j in tqdm(pairs, desc=progress if isinstance(progress, str) else "pairs test acc_eq",
                     disable=not progress):
        a, b = order[i], order[j]
        null, pvals[i, j] = _pairs_test_null(agree[a][0], agree[b][0], weight, 1.0, n_resamples, swap_rng,
                                             "permutation", alternative)
        draws[i, j] = null.size
        nulls[(a, b)] = null
    return scores, pvals, draws, nulls, epsilons


def _extreme(null: np.ndarray, delta: float, alternative: str) -> np.ndarray:
    """Which null draws are at least as extreme as the observed difference ``delta``."""
    if alternative == "two-sided":
        return np.abs(null) >= abs(delta)
    return null >= delta


def _swap_masks(rng: np.random.Generator, permutation: str, size: int, n_systems: int, n_groups: int) -> np.ndarray:
    """Packed swap bits, draws x systems x groups of 8 segments (bits past the last segment are
    ignored by the kernels).
    """
    if permutation == "both":
        return rng.integers(0, 256, size=(size, n_systems, n_groups), dtype=np.uint8)
    if permutation == "inputs":
        per_segment = rng.integers(0, 256, size=(size, 1, n_groups), dtype=np.uint8)
        return np.ascontiguousarray(np.broadcast_to(per_segment, (size, n_systems, n_groups)))
    per_system = rng.integers(0, 2, size=(size, n_systems, 1), dtype=np.uint8) * np.uint8(255)
    return np.ascontiguousarray(np.broadcast_to(per_system, (size, n_systems, n_groups)))

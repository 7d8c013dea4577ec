"""Meta-metrics: pairwise accuracy, Soft Pairwise Accuracy, and the significance of their
differences between metrics (PERM-BOTH, greedy significance clusters).

References: Kocmi et al. (2021) for pairwise accuracy; Thompson et al. (2024) for SPA;
Deutsch et al. (2021) for PERM-BOTH; mt-metrics-eval ``stats.py`` for the conventions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from tqdm import tqdm

from spalib import _kernels
from spalib.resampling import _as_generator, _is_seed, _score_matrix, draw_signs, pairwise_pvalues
from spalib.resampling import _tie_tolerance as _matrix_tie_tolerance

__all__ = ["pairwise_accuracy", "soft_pairwise_accuracy", "compare_metrics", "significance_ranks",
           "MetricComparison"]


# --- alignment -----------------------------------------------------------------------------------

def _align_vectors(human, metric) -> tuple[np.ndarray, np.ndarray]:
    """Two system-level vectors, aligned by system name when both are pandas Series."""
    if isinstance(human, pd.Series) != isinstance(metric, pd.Series):
        raise TypeError("give `human` and `metric` both as pandas Series (aligned by system name) "
                        "or both as arrays in the same system order")
    if isinstance(human, pd.Series):
        _check_same_systems(human.index, metric.index)
        metric = metric.loc[human.index]
    h = np.asarray(human, dtype=np.float64)
    m = np.asarray(metric, dtype=np.float64)
    if h.ndim != 1 or h.shape != m.shape:
        raise ValueError(f"`human` and `metric` must be 1-D of equal length; got {h.shape} and {m.shape}")
    if np.isnan(m).any():
        raise ValueError(f"`metric` has {int(np.isnan(m).sum())} missing system score(s)")
    return h, m


def _check_same_systems(human_index, metric_index) -> None:
    if human_index.has_duplicates or metric_index.has_duplicates:
        raise ValueError("system names must be unique")
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
    h = _score_matrix(human, "human")
    m = _score_matrix(metric, name)
    if h.shape != m.shape:
        raise ValueError(f"`human` has shape {h.shape}, `{name}` {m.shape}")
    return h, m, systems


# --- the two meta-metrics ------------------------------------------------------------------------

def pairwise_accuracy(human_sys, metric_sys) -> float:
    """Share of system pairs that the metric orders as the humans do (Kocmi et al. 2021).

    A pair agrees when ``sign(h_a - h_b) == sign(m_a - m_b)`` with ``sign(0) = 0``: a tie on
    both sides agrees, a tie on one side only does not.  Pairs with a missing human score are
    skipped, as in mt-metrics-eval.

    >>> pairwise_accuracy([1, 2, 3, 3, 4], [1, 1, 2, 1, 2])
    0.5
    """
    h, m = _align_vectors(human_sys, metric_sys)
    agree, pairs = _kernels._pairwise_agreement(h, m, 0.0)
    if pairs == 0:
        raise ValueError("no system pair has human scores for both systems")
    return agree / pairs


def soft_pairwise_accuracy(human_seg, metric_seg, *, n_resamples: int = 1000, rng=None,
                           method: str = "permutation", precision: str | None = None, ties: str = "ge") -> float:
    """Soft Pairwise Accuracy (Thompson et al. 2024, eq. 1):
    ``SPA = 1 - mean_{i<j} |P^h[i, j] - P^m[i, j]|``.

    ``P^h`` and ``P^m`` are the paired permutation p-values (:func:`spalib.pairwise_pvalues`)
    of the human and the metric segment scores, computed with **one** sign matrix.  With an int
    ``rng`` the signs, and hence SPA, equal mt-metrics-eval's for that seed (its default is 4).
    DataFrames are aligned by system name (and must have the same segment columns); systems are
    put in sorted order, so that the result does not depend on the order they were listed in.

    >>> soft_pairwise_accuracy([[1, 2, 3], [2, 3, 4]], [[2, 2, 4], [1, 3, 5]], rng=4)
    0.872
    """
    h, m, _ = _align_matrices(human_seg, metric_seg)
    signs = draw_signs(n_resamples, h.shape[1], rng) if method == "permutation" else None
    kw = dict(method=method, precision=precision if precision is not None else (
        "float32" if method == "permutation" and _is_seed(rng) else "float64"), ties=ties, signs=signs)
    upper = np.triu_indices(h.shape[0], 1)
    ph = pairwise_pvalues(h, **kw)[upper]
    pm = pairwise_pvalues(m, **kw)[upper]
    return float(1.0 - np.mean(np.abs(ph - pm)))


# --- significance of metric differences ----------------------------------------------------------

def significance_ranks(pvalues: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Greedy significance-cluster ranks (mt-metrics-eval ``AssignRanks``).

    ``pvalues[i, j]`` (``i < j``, metrics sorted best first) is the p-value that metric ``i`` is
    better than ``j``.  Walking down the list, a metric opens a new cluster when it is
    significantly worse (``p <= alpha``) than any metric since the current cluster began.

    >>> M = np.full((5, 5), np.nan)
    >>> M[0, 1:] = [0.30, 0.01, 0.001, 0.0]; M[1, 2:] = [0.20, 0.04, 0.0]
    >>> M[2, 3:] = [0.5, 0.03]; M[3, 4] = 0.06
    >>> significance_ranks(M).tolist()
    [1, 1, 2, 2, 3]
    """
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 2 or p.shape[0] != p.shape[1]:
        raise ValueError(f"`pvalues` must be a square matrix; got shape {p.shape}")
    if not 0 < alpha < 1:
        raise ValueError(f"`alpha` must be in (0, 1); got {alpha}")
    ranks = np.empty(p.shape[0], dtype=int)
    rank, start = 1, 0
    for i in range(p.shape[0]):
        if any(p[r, i] <= alpha for r in range(start, i)):
            rank += 1
            start = i
        ranks[i] = rank
    return ranks


@dataclass(frozen=True)
class MetricComparison:
    """What :func:`compare_metrics` found.

    Attributes
    ----------
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
    """

    statistic: str
    scores: pd.Series
    pvalues: pd.DataFrame
    draws: pd.DataFrame
    ranks: pd.Series
    alpha: float
    settings: dict = field(default_factory=dict)

    @property
    def significance_clusters(self) -> list[list[str]]:
        """The metrics grouped by rank, best cluster first."""
        return [list(group.index) for _, group in self.ranks.groupby(self.ranks, sort=True)]

    @property
    def n_significant(self) -> int:
        """Number of metric pairs whose difference is significant (``p <= alpha``)."""
        return int((self.pvalues.to_numpy() <= self.alpha).sum())


def compare_metrics(human_seg, metrics_seg: dict, *, statistic: str = "spa", n_resamples: int = 1000,
                    rng=None, spa_resamples: int = 1000, spa_method: str = "permutation", ties: str = "ge",
                    permutation: str = "both", early_stopping: tuple[int, float, float] | None = None,
                    alpha: float = 0.05, progress: bool = False) -> MetricComparison:
    """Score metrics with PA or SPA and test every pair of metrics with PERM-BOTH.

    Parameters
    ----------
    human_seg : DataFrame, systems x segments
        Human segment scores, complete (no missing cells).
    metrics_seg : dict of name -> DataFrame
        Each metric's segment scores on the same systems and segments.
    statistic : {"spa", "pa"}
        SPA, or pairwise accuracy of system scores taken as segment means (as the paper does).
    n_resamples : int
        PERM-BOTH draws per metric pair (mt-metrics-eval's ``k``, default 1000).
    rng : None, int or Generator
        An int seeds both the SPA sign matrix (drawn by the reference recipe, as
        :func:`soft_pairwise_accuracy` does) and the swaps.
    spa_resamples, spa_method : int, {"permutation", "normal"}
        How SPA's own p-values are computed: ``K`` shared sign patterns, or the normal limit.
    permutation : {"both", "inputs", "systems"}
        What a draw swaps between the two metrics (Deutsch et al. 2021): each (system,
        segment) cell independently (PERM-BOTH, what mt-metrics-eval does), whole segments
        (PERM-INPUTS, what the SPA paper's text names), or whole systems (PERM-SYSTEMS).
    early_stopping : (block_size, early_min, early_max), optional
        mt-metrics-eval's rule: after every ``block_size`` draws stop if the running p-value is
        below ``early_min`` or above ``early_max``.  WMT runs used (100, 0.02, 0.5).
    alpha : float
        Significance level for the clusters (``p <= alpha``, as mt-metrics-eval assigns ranks).

    Notes
    -----
    PERM-BOTH (Deutsch et al. 2021): both metrics are z-scored over all cells; each draw swaps
    every (system, segment) cell between them with probability 1/2 and recomputes both
    statistics (a swap mask is eight cells per random byte); ``p = #{draws: stat(b') - stat(a') >= stat(b) - stat(a)} / draws``, no +1, as in
    the reference.  SPA and PA are unchanged by z-scoring a metric (a positive affine map), so
    the reported scores are those of the raw metric.  The human p-values are computed once.
    """
    if statistic not in ("spa", "pa"):
        raise ValueError(f"`statistic` must be 'spa' or 'pa'; got {statistic!r}")
    if spa_method not in ("permutation", "normal"):
        raise ValueError(f"`spa_method` must be 'permutation' or 'normal'; got {spa_method!r}")
    if ties not in ("ge", "mid"):
        raise ValueError(f"`ties` must be 'ge' or 'mid'; got {ties!r}")
    if permutation not in ("both", "inputs", "systems"):
        raise ValueError(f"`permutation` must be 'both', 'inputs' or 'systems'; got {permutation!r}")
    if not isinstance(metrics_seg, dict) or len(metrics_seg) < 2:
        raise ValueError("`metrics_seg` must be a dict of at least two metrics")
    block, early_min, early_max = _early_stopping_rule(early_stopping, n_resamples)

    names = sorted(metrics_seg)
    human = None
    metrics = {}
    for name in names:
        h, m, _ = _align_matrices(human_seg, metrics_seg[name], name=f"metrics_seg[{name!r}]")
        human = h if human is None else human
        sd = m.std()
        metrics[name] = (m - m.mean()) / sd if sd > 0 else m - m.mean()

    mid = ties == "mid"
    upper = np.triu_indices(human.shape[0], 1)
    # An int seed gives the reference's sign matrix; the swaps get their own stream of that seed.
    swap_rng = np.random.default_rng([int(rng), 1]) if _is_seed(rng) else _as_generator(rng)
    if statistic == "pa":
        # System scores are segment means; with equal segment counts, sums order systems alike.
        # Hybrid totals are updated, not re-summed: metric ties are judged within a float tolerance.
        human_sys = human.mean(axis=1)
        tol = _tie_tolerance(metrics)
        stat = {n: _kernels._pairwise_agreement(human_sys, m.sum(axis=1), tol) for n, m in metrics.items()}
        scores = {n: a / p for n, (a, p) in stat.items()}

        def pair_test(a, b, names):
            args = (a.sum(axis=1), b.sum(axis=1), _kernels._subset_sums(b - a))
            return lambda masks: _kernels._perm_both_pa(*args, masks, human_sys, tol)
    elif spa_method == "normal":
        human_upper = pairwise_pvalues(human, method="normal", ties=ties)[upper]
        scores = {n: 1.0 - np.mean(np.abs(human_upper - _kernels._normal_upper(m, mid))) for n, m in metrics.items()}

        def pair_test(a, b, names):
            return lambda masks: _kernels._perm_both_spa_normal(a, b, masks, human_upper, mid)
    else:
        signs = draw_signs(spa_resamples, human.shape[1], rng)
        human_upper = pairwise_pvalues(human, signs=signs, precision="float64", ties=ties)[upper]
        sums = {}
        for n, m in metrics.items():
            table = _kernels._byte_tables(m)
            sums[n] = (_kernels._signed_sums(table, signs.packed), _kernels._observed_sums(table))
        tol = _tie_tolerance(metrics)
        scores = {n: _kernels._spa_from_upper(human_upper, _kernels._pair_pvalues(*sums[n], mid, tol))
                  for n in names}

        def pair_test(a, b, names):
            args = (*sums[names[0]], *sums[names[1]], _kernels._subset_sums(b - a))
            return lambda masks: _kernels._perm_both_spa_permutation(*args, masks, signs.packed, human_upper, mid, tol)

    n_systems, n_groups = human.shape[0], (human.shape[1] + 7) // 8
    order = sorted(names, key=lambda n: (-scores[n], n))
    n_metrics = len(order)
    pvals = np.full((n_metrics, n_metrics), np.nan)
    draws = np.zeros((n_metrics, n_metrics), dtype=int)
    pairs = [(i, j) for i in range(n_metrics) for j in range(i + 1, n_metrics)]
    for i, j in tqdm(pairs, desc=f"PERM-BOTH {statistic}", disable=not progress):
        better, worse = metrics[order[i]], metrics[order[j]]
        delta = scores[order[i]] - scores[order[j]]
        hybrid_stats = pair_test(worse, better, (order[j], order[i]))
        count = used = 0
        while used < n_resamples:
            size = min(block, n_resamples - used)
            masks = _swap_masks(swap_rng, permutation, size, n_systems, n_groups)
            stat_worse, stat_better = hybrid_stats(masks)
            count += int(np.sum(stat_better - stat_worse >= delta))
            used += size
            if count / used < early_min or count / used > early_max:
                break
        pvals[i, j] = count / used
        draws[i, j] = used
    index = pd.Index(order, name="metric")
    ranks = significance_ranks(pvals, alpha)
    return MetricComparison(
        statistic=statistic,
        scores=pd.Series([scores[n] for n in order], index=index, name=statistic),
        pvalues=pd.DataFrame(pvals, index=index, columns=order),
        draws=pd.DataFrame(draws, index=index, columns=order),
        ranks=pd.Series(ranks, index=index, name="rank"),
        alpha=alpha,
        settings=dict(n_resamples=n_resamples, spa_resamples=spa_resamples, spa_method=spa_method,
                      ties=ties, permutation=permutation, early_stopping=early_stopping),
    )


def _swap_masks(rng: np.random.Generator, permutation: str, size: int, n_systems: int, n_groups: int) -> np.ndarray:
    """Packed swap bits, draws x systems x groups of 8 segments (bits past the last segment are
    ignored by the kernels)."""
    if permutation == "both":
        return rng.integers(0, 256, size=(size, n_systems, n_groups), dtype=np.uint8)
    if permutation == "inputs":
        per_segment = rng.integers(0, 256, size=(size, 1, n_groups), dtype=np.uint8)
        return np.ascontiguousarray(np.broadcast_to(per_segment, (size, n_systems, n_groups)))
    per_system = rng.integers(0, 2, size=(size, n_systems, 1), dtype=np.uint8) * np.uint8(255)
    return np.ascontiguousarray(np.broadcast_to(per_system, (size, n_systems, n_groups)))


def _tie_tolerance(metrics: dict) -> float:
    """The tolerance of :mod:`spalib.resampling`, large enough for every metric of the comparison."""
    return max(_matrix_tie_tolerance(m) for m in metrics.values())


def _early_stopping_rule(early_stopping, n_resamples: int) -> tuple[int, float, float]:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise ValueError(f"`n_resamples` must be a positive integer; got {n_resamples!r}")
    if early_stopping is None:
        return min(n_resamples, 100), -np.inf, np.inf
    try:
        block, low, high = early_stopping
    except (TypeError, ValueError):
        raise ValueError("`early_stopping` must be (block_size, early_min, early_max), e.g. (100, 0.02, 0.5)") from None
    if not (isinstance(block, (int, np.integer)) and block >= 1 and 0 <= low < high <= 1):
        raise ValueError(f"`early_stopping` = {early_stopping!r} needs block_size >= 1 and 0 <= early_min < early_max <= 1")
    return int(block), float(low), float(high)

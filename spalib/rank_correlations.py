"""Kendall-type rank statistics with explicit tie handling (Deutsch, Foster & Freitag 2023).

Every variant is a function of five pair counts over the unordered pairs of items: concordant
``C``, discordant ``D``, tied in the human scores only ``T_h``, in the metric only ``T_m``, and
in both ``T_hm``.  A metric pair counts as tied when ``|m_a - m_b| <= epsilon``; tie calibration
picks the ``epsilon`` that maximises the statistic.

==========  =====================================================  ============================
variant     formula                                                note
==========  =====================================================  ============================
``a``       (C - D) / T                                            T = all pairs
``b``       (C - D) / sqrt((C + D + T_h)(C + D + T_m))             scipy's tau-b
``c``       2 (C - D) / (n^2 (k - 1) / k), k = min #distinct       scipy's tau-c; epsilon = 0
``10``      (C - D - T_m) / (C + D + T_m)                          metric ties penalised
``13``      (C - D) / (C + D)                                      all ties ignored
``14``      (C - D) / (C + D + T_m)                                human ties ignored
``tau_eq``  (C + T_hm - D - T_h - T_m) / T                         mt-metrics-eval "23"
``acc_eq``  (C + T_hm) / T                                         mt-metrics-eval "acc23"
==========  =====================================================  ============================

``kendall_like`` is WMT's "Kendall's tau-like" formula: only pairs whose human scores differ by
at least ``threshold``; (C - D) / (C + D), metric ties discordant.  With ``threshold=25`` on raw
DA scores it is the DARR statistic WMT used from 2017.  With ``threshold=1`` on relative ranks it
is the WMT13 formula that Graham, Mathur & Baldwin (2015) showed is not a Kendall tau (human ties
are dropped, and the pooled value is a weighted mean over the ranked sets) on every pair the
metric does not tie; WMT13 left metric ties out (``13``), where this counts them as discordant,
as WMT10's ``10`` and DARR do.

Every argument of every public function is checked first, whatever path the call takes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from spalib._core import rank_kernels as _k, signs as sign_kernels
from spalib._core.vocabulary import ALTERNATIVES, GROUPINGS, Grouping
from spalib._core.validation import choice_iv, labels_iv, positive_int_iv, real_array_iv, real_iv, rng_iv

__all__ = ["kendall_tau", "tie_calibration", "pairs_permutation_test", "KendallResult", "TieCalibrationResult",
           "PairsTestResult", "VARIANTS"]

VARIANTS = ("a", "b", "c", "10", "13", "14", "tau_eq", "acc_eq", "kendall_like")
_ALIASES = {"23": "tau_eq", "acc23": "acc_eq"}


@dataclass(frozen=True)
class KendallResult:
    """``statistic`` and the pair counts behind it (summed over groups when grouped).

    With grouping, ``statistic`` is the mean of the per-group statistics over the groups where it
    is defined (``n_groups`` of them); ``group_statistics`` holds them all (NaN where undefined).
    """

    statistic: float
    concordant: int
    discordant: int
    ties_human: int
    ties_metric: int
    ties_both: int
    n_groups: int = 1
    group_statistics: np.ndarray | None = None


def _variant(variant: str) -> str:
    variant = _ALIASES.get(str(variant), str(variant))
    if variant not in VARIANTS:
        raise ValueError(f"`variant` must be one of {', '.join(VARIANTS)}; got {variant!r}")
    return variant


def _statistic(variant, counts, h, m):
    c, d, th, tm, thm = counts
    total = c + d + th + tm + thm
    with np.errstate(divide="ignore", invalid="ignore"):
        if variant == "a":
            return (c - d) / total if total else np.nan
        if variant == "b":
            den = np.sqrt(float(c + d + th) * float(c + d + tm))
            return (c - d) / den if den else np.nan
        if variant == "c":
            k = min(len(np.unique(h)), len(np.unique(m)))
            n = len(h)
            return 2 * (c - d) / (n**2 * (k - 1) / k) if k > 1 else np.nan
        if variant == "10":
            return (c - d - tm) / (c + d + tm) if c + d + tm else np.nan
        if variant == "13":
            return (c - d) / (c + d) if c + d else np.nan
        if variant == "14":
            return (c - d) / (c + d + tm) if c + d + tm else np.nan
        if variant == "tau_eq":
            return (c + thm - d - th - tm) / total if total else np.nan
        return (c + thm) / total if total else np.nan  # acc_eq


def _matrices(human, metric, metric_name: str = "metric") -> tuple[np.ndarray, np.ndarray]:
    """Two equally shaped float arrays; DataFrames / Series are aligned by their labels.

    NaN marks a missing cell; inf is an error.  ``metric_name`` names ``metric`` in the errors.
    """
    for frame, name in ((human, "human"), (metric, metric_name)):
        if isinstance(frame, (pd.DataFrame, pd.Series)):
            labels_iv(frame.index, f"{name} index")
            if isinstance(frame, pd.DataFrame):
                labels_iv(frame.columns, f"{name} columns")
    if isinstance(human, (pd.DataFrame, pd.Series)) and isinstance(metric, type(human)):
        same = set(human.index) == set(metric.index)
        if isinstance(human, pd.DataFrame):
            same = same and set(human.columns) == set(metric.columns)
            metric = metric.reindex(index=human.index, columns=human.columns) if same else metric
        else:
            metric = metric.reindex(human.index) if same else metric
        if not same:
            raise ValueError(f"`human` and `{metric_name}` cover different systems or segments")
    h = real_array_iv(human, "human", allow_nan=True)
    m = real_array_iv(metric, metric_name, allow_nan=True)
    if h.shape != m.shape:
        raise ValueError(f"`human` and `{metric_name}` must have the same shape; got {h.shape} and {m.shape}")
    return h, m


def _group_rows(grouping: str, *matrices: np.ndarray) -> list[np.ndarray]:
    """Each matrix with one group per row (views, no copies)."""
    if grouping == "none":
        return [x.reshape(1, -1) for x in matrices]
    if matrices[0].ndim != 2:
        raise ValueError(f"grouping={grouping!r} needs a systems x segments matrix; "
                         f"got {matrices[0].ndim} dimension(s)")
    return [x.T if grouping == "item" else x for x in matrices]


def _packed_groups(grouping: str, *matrices: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """The cells where every matrix has a score, group after group (one flat array per matrix),
    and the offsets where the groups start.
    """
    rows = _group_rows(grouping, *matrices)
    keep = ~np.logical_or.reduce([np.isnan(x) for x in rows])
    starts = np.concatenate(([0], np.cumsum(keep.sum(axis=1)))).astype(np.int64)
    return [x[keep] for x in rows], starts


def _groups(h, m, grouping):
    """Yield (human, metric) vectors per group, dropping cells without a human score."""
    for hg, mg in zip(*_group_rows(grouping, h, m)):
        keep = ~np.isnan(hg)
        if np.isnan(mg[keep]).any():
            raise ValueError(f"`metric` has {int(np.isnan(mg[keep]).sum())} missing score(s) where the human "
                             "score is present")
        yield hg[keep], mg[keep]


def kendall_tau(human, metric, *, variant: str, epsilon: float = 0.0, grouping: Grouping = "none",
                threshold: float = 25.0) -> KendallResult:
    """A Kendall-type statistic between human and metric scores, with explicit tie handling.

    Parameters
    ----------
    human, metric : array_like or DataFrame
        1-D vectors, or systems x segments matrices for ``grouping`` other than ``"none"``.
        NaN marks a missing human score: such cells are left out (as mt-metrics-eval leaves out
        gold ``None``); a missing metric score where the human score exists is an error.
    variant : str
        One of :data:`VARIANTS` (see the module docstring); ``"23"`` and ``"acc23"`` are accepted
        as mt-metrics-eval's names for ``tau_eq`` and ``acc_eq``.
    epsilon : float
        Metric pairs with ``|m_a - m_b| <= epsilon`` are ties (0: exact ties, computed in
        O(n log n); otherwise O(n^2) per group).
    grouping : {"none", "item", "system"}
        ``"item"`` (group-by-item): one statistic per segment, across systems, then the mean over
        segments; ``"system"``: one per system, across segments; ``"none"``: all cells at once.
        Groups with fewer than two cells, or where the statistic is undefined (NaN), are skipped,
        as in mt-metrics-eval; ``kendall_like`` is micro-averaged (``sum(C - D) / sum(C + D)``).
    threshold : float
        For ``kendall_like`` only: minimum human score difference of a pair (25 on raw DA in WMT).

    Returns
    -------
    KendallResult
        ``statistic`` (NaN where undefined) and the pair counts behind it.

    Notes
    -----
    See the module docstring for the formula of every variant in terms of the pair counts
    ``C, D, T_h, T_m, T_hm``.

    References
    ----------
    Deutsch, D., Foster, G. and Freitag, M. (2023). Ties matter: meta-evaluating modern metrics
    with pairwise accuracy and tie calibration. EMNLP.
    Graham, Y., Mathur, N. and Baldwin, T. (2015). Accurate evaluation of segment-level machine
    translation metrics. NAACL-HLT.  (``kendall_like``: the WMT13 formula they analyse, except
    that metric ties count as discordant.)

    Examples
    --------
    >>> kendall_tau([1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3], variant="acc_eq").statistic
    0.6
    """
    variant = _variant(variant)
    epsilon = real_iv(epsilon, "epsilon", low=0.0)
    grouping = choice_iv(grouping, "grouping", GROUPINGS)
    threshold = real_iv(threshold, "threshold", low=0.0)
    if variant == "c" and epsilon > 0:
        raise ValueError("variant 'c' is defined for exact ties only (epsilon = 0)")
    h, m = _matrices(human, metric)
    totals = np.zeros(5, dtype=np.int64)
    stats_per_group = []
    for hg, mg in _groups(h, m, grouping):
        if len(hg) < 2:
            stats_per_group.append(np.nan)
            continue
        if variant == "kendall_like":
            c, d = _k._kendall_like_counts(hg, mg, threshold)
            totals[:2] += (c, d)
            stats_per_group.append((c - d) / (c + d) if c + d else np.nan)
            continue
        if epsilon == 0:
            order = np.lexsort((mg, hg))
            counts = _k._pair_counts_sorted(hg[order], mg[order])
        else:
            counts = _k._pair_counts_epsilon(hg, mg, epsilon)
        totals += np.asarray(counts)
        stats_per_group.append(_statistic(variant, counts, hg, mg))
    per_group = np.asarray(stats_per_group, dtype=float)
    defined = ~np.isnan(per_group)
    if variant == "kendall_like":
        c, d = totals[0], totals[1]
        statistic = (c - d) / (c + d) if c + d else np.nan  # no pair above the threshold
    else:
        statistic = float(per_group[defined].mean()) if defined.any() else np.nan
    return KendallResult(float(statistic), *(int(x) for x in totals), int(defined.sum()),
                         per_group if grouping != "none" else None)


@dataclass(frozen=True)
class TieCalibrationResult:
    """``epsilon``: the smallest tie threshold with the best statistic; ``statistic``: that best
    value; ``epsilons`` and ``values``: the whole curve (0 and every distinct ``|difference|``).
    """

    epsilon: float
    statistic: float
    epsilons: np.ndarray
    values: np.ndarray
    n_pairs: int


def tie_calibration(human, metric, *, variant: str = "acc_eq", grouping: Grouping = "item", sample_rate: float = 1.0,
                    rng=None) -> TieCalibrationResult:
    """Tie calibration: the tie threshold ``epsilon`` that maximises ``acc_eq`` (or ``tau_eq``).

    Parameters
    ----------
    human, metric : array_like or DataFrame
        As for :func:`kendall_tau`.
    variant : {"acc_eq", "tau_eq"}
        The statistic to maximise.
    grouping : {"item", "system", "none"}
        As for :func:`kendall_tau`.
    sample_rate : float
        Each pair is kept with this probability (the paper uses 0.1 without grouping and for
        group-by-system); the sample is drawn before any pair is stored.
    rng : None, int or numpy.random.Generator
        The random state of the sample (checked even when ``sample_rate=1``, where it is unused;
        a Generator is then left untouched).

    Returns
    -------
    TieCalibrationResult
        ``epsilon``, ``statistic`` and the whole curve.

    Notes
    -----
    The candidates are 0 and every distinct absolute difference between the metric scores of a
    pair in a group; the statistic at every candidate is computed in one sweep over the pairs
    sorted by that difference (a radix sort: O(P) for P pairs).  Cells where the human *or* the metric
    score is missing are left out (as mt-metrics-eval does here).  Among equal best values the
    smallest ``epsilon`` wins (values within 1e-12 count as equal: the running sums round).

    References
    ----------
    Deutsch, D., Foster, G. and Freitag, M. (2023). Ties matter. EMNLP. Section 5.

    Examples
    --------
    >>> res = tie_calibration([1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3], grouping="none")
    >>> float(res.epsilon), round(float(res.statistic), 12)
    (0.5, 0.7)
    """
    variant = _variant(variant)
    if variant not in ("acc_eq", "tau_eq"):
        raise ValueError(f"tie calibration optimises 'acc_eq' or 'tau_eq'; got variant {variant!r}")
    grouping = choice_iv(grouping, "grouping", GROUPINGS)
    sample_rate = real_iv(sample_rate, "sample_rate", low=0.0, high=1.0, low_open=True)
    rng = rng_iv(rng)  # checked on every path; a Generator is returned as is, not advanced
    return _tie_calibration(*_matrices(human, metric), variant, grouping, sample_rate, rng)


def _tie_calibration(h, m, variant, grouping, sample_rate, rng) -> TieCalibrationResult:
    """:func:`tie_calibration` on validated arrays."""
    (h_cells, m_cells), starts = _packed_groups(grouping, h, m)
    # a sample's seed is drawn only when sampling, so that a shared generator is left untouched otherwise
    seed = (rng.integers(0, np.iinfo(np.uint64).max, dtype=np.uint64, endpoint=True) if sample_rate < 1
            else np.uint64(0))
    sizes = np.diff(starts)
    n_pairs = float(np.sum(sizes * (sizes - 1) // 2))
    # room for the sample up to 8 standard deviations above its mean: one pass, nothing to grow
    capacity = min(n_pairs, sample_rate * n_pairs + 8 * np.sqrt(n_pairs * sample_rate * (1 - sample_rate)) + 64)
    delta, code = _k._calibration_pairs(h_cells, m_cells, starts, seed, sample_rate, int(capacity))
    if len(delta) == 0:
        raise ValueError("no pair of items with both human and metric scores in any group")
    epsilons, values = _k._calibration_curve(delta, code, len(starts) - 1, 0 if variant == "acc_eq" else 1)
    best = int(np.flatnonzero(values >= values.max() - 1e-12)[0])
    return TieCalibrationResult(float(epsilons[best]), float(values[best]), epsilons, values, int(len(delta)))


@dataclass(frozen=True)
class PairsTestResult:
    """``pvalue``: one-sided p-value that metric 1's statistic is higher than metric 2's;
    ``statistic1``/``statistic2`` with the tie thresholds ``epsilon1``/``epsilon2`` used;
    ``null_distribution``: the draws of ``statistic1 - statistic2`` under the null.
    """

    statistic1: float
    statistic2: float
    epsilon1: float
    epsilon2: float
    pvalue: float
    n_resamples: int
    null_distribution: np.ndarray = field(default=None, repr=False)

    @property
    def delta(self) -> float:
        """``statistic1 - statistic2``."""
        return self.statistic1 - self.statistic2


def pairs_permutation_test(human, metric1, metric2, *, variant: str = "acc_eq", grouping: Grouping = "item",
                           epsilon1: float | None = None, epsilon2: float | None = None, sample_rate: float = 1.0,
                           n_resamples: int = 1000, rng=None, method: str = "permutation",
                           alternative: str = "greater") -> PairsTestResult:
    """Test whether metric 1's tie-aware pairwise accuracy is higher than metric 2's.

    Parameters
    ----------
    human, metric1, metric2 : array_like or DataFrame
        Systems x segments scores (or vectors with ``grouping="none"``).
    variant : {"acc_eq", "tau_eq"}
        The statistic compared.
    grouping : {"item", "system", "none"}
        As for :func:`kendall_tau`.
    epsilon1, epsilon2 : float, optional
        Each metric's tie threshold (non-negative); calibrated on all the data when not given.
    sample_rate : float
        Passed to :func:`tie_calibration` when a threshold is calibrated (checked in any case).
    n_resamples : int
        Number of draws.
    rng : None, int or numpy.random.Generator
        The random state of the draws.
    method : {"permutation", "exact"}
        Monte-Carlo draws, or all sign patterns (at most 20 informative pairs).
    alternative : {"greater", "two-sided"}
        Is metric 1 better (mt-metrics-eval), or do the two differ (``|null| >= |observed|``)?

    Returns
    -------
    PairsTestResult
        The two statistics, their thresholds and the one-sided p-value.

    Notes
    -----
    This is mt-metrics-eval's ``PairwisePermutationSigDiff``, the WMT23-25 "acc-t" test.  A draw
    swaps, independently for every pair of items in every group, which metric's pairwise
    *verdict* the two hybrid metrics receive; the p-value is the share of draws in which hybrid 1
    beats hybrid 2 by at least the observed margin (``>=``, no +1).  Because ``acc_eq`` is a mean
    over pairs of "the verdict agrees with the human one" (and ``tau_eq = 2 acc_eq - 1``),
    swapping only flips the sign of a pair's difference in agreement: the test is a sign-flip test
    over the pairs whose verdicts differ in correctness, computed by :func:`spalib.pairwise_pvalues`.
    mt-metrics-eval checks its early stopping only on counted draws (a quirk); here all draws are
    made.  Note the argument order: mt-metrics-eval's p-value is for its *second* metric.

    References
    ----------
    Deutsch, D., Foster, G. and Freitag, M. (2023). Ties matter. EMNLP.
    Freitag, M. et al. (2023). Results of WMT23 metrics shared task. WMT.

    Examples
    --------
    >>> h = np.array([[1.0, 3.0], [3.0, 3.0], [1.0, 2.0], [1.0, 2.0]])
    >>> good, bad = h + 0.1, -h
    >>> res = pairs_permutation_test(h, good, bad, n_resamples=200, rng=0)
    >>> res.statistic1, round(res.statistic2, 3), res.pvalue
    (1.0, 0.417, 0.015)
    """
    variant = _variant(variant)
    if variant not in ("acc_eq", "tau_eq"):
        raise ValueError(f"the pairs test supports 'acc_eq' and 'tau_eq' (linear in the pairs); got {variant!r}")
    grouping = choice_iv(grouping, "grouping", GROUPINGS)
    epsilon1 = None if epsilon1 is None else real_iv(epsilon1, "epsilon1", low=0.0)
    epsilon2 = None if epsilon2 is None else real_iv(epsilon2, "epsilon2", low=0.0)
    sample_rate = real_iv(sample_rate, "sample_rate", low=0.0, high=1.0, low_open=True)
    n_resamples = positive_int_iv(n_resamples, "n_resamples")
    rng = rng_iv(rng)
    method = choice_iv(method, "method", ("permutation", "exact"))
    alternative = choice_iv(alternative, "alternative", ALTERNATIVES)
    h, m1 = _matrices(human, metric1, "metric1")
    _, m2 = _matrices(human, metric2, "metric2")
    if epsilon1 is None:
        epsilon1 = _tie_calibration(h, m1, variant, grouping, sample_rate, rng).epsilon
    if epsilon2 is None:
        epsilon2 = _tie_calibration(h, m2, variant, grouping, sample_rate, rng).epsilon
    (hs, m1s, m2s), starts = _packed_groups(grouping, h, m1, m2)
    used_groups = int((np.diff(starts) >= 2).sum())
    if used_groups == 0:
        raise ValueError("no group has two items scored by the humans and both metrics")
    agree1, weight = _k._pair_agreements(hs, m1s, starts, epsilon1)
    agree2, _ = _k._pair_agreements(hs, m2s, starts, epsilon2)
    stat1 = kendall_tau(h, m1, variant=variant, epsilon=epsilon1, grouping=grouping)
    stat2 = kendall_tau(h, m2, variant=variant, epsilon=epsilon2, grouping=grouping)
    scale = 2.0 if variant == "tau_eq" else 1.0
    null, pvalue = sign_kernels.pairs_null(agree1, agree2, weight / used_groups, scale, n_resamples, rng,
                                           method == "exact", alternative)
    return PairsTestResult(stat1.statistic, stat2.statistic, float(epsilon1), float(epsilon2), pvalue,
                           null.size, null)

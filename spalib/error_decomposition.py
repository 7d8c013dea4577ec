"""Can a metric beat the humans?  Wei & Jia (2021) in four functions.

A system-level human score is an unbiased but noisy estimate of a system's quality; a metric's
score is biased but steady.  Wei & Jia compare them by the 0-1 error of their *pairwise
predictions* (which of two systems is better), estimated with independent bootstraps of each
system's judgement rows, and split that error with Domingos's (2000) bias-variance-noise decomposition.

- :func:`bootstrap_system_scores` resamples the judgement rows of every system (seeded, numba,
  identical for every thread count) and recomputes a mean, or corpus BLEU, chrF or TER from summed
  sacrebleu statistics (:mod:`spalib.corpus_metrics`), giving system scores per trial;
- :func:`decompose_pairwise_error` splits the error of trial-wise predictions against trial-wise
  labels into bias, variance and noise;
- :func:`perfect_annotator` estimates how many crowd judgements one noiseless judgement is worth;
- :func:`judgements_for_power` gives the judgements a two-sample t-test needs to detect a
  difference.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from numba import njit, prange
from scipy import optimize, stats

from spalib._core.validation import choice_iv, flag_iv, positive_int_iv, probability_iv, rng_iv
from spalib._core.corpus_kernels import CODE, N_STATS, score
from spalib._core.rng import GOLDEN, mix64
from spalib.corpus_metrics import corpus_score, lower_is_better

__all__ = [
    "bootstrap_system_scores", "SystemBootstrap", "system_pairs", "pair_labels", "PairLabels",
    "decompose_pairwise_error", "ErrorDecomposition",
    "perfect_annotator", "PerfectAnnotator", "judgements_for_power",
]


# --- the bootstrap of system scores (each system resampled on its own) -------------------

@njit(cache=True)
def _stream(seed, group):
    """The start of the SplitMix64 stream of one (trial seed, group): independent of the thread."""
    return mix64(seed ^ mix64((np.uint64(group) + np.uint64(1)) * GOLDEN))


@njit(cache=True)
def _draw(state, n):
    """Advance ``state``; return it and a row in [0, n): ``(32 random bits * n) >> 32`` (bias < n / 2**32)."""
    state += GOLDEN
    return state, (mix64(state) >> np.uint64(32)) * np.uint64(n) >> np.uint64(32)


@njit(cache=True)
def _resample_counts(seed, group, sample_size, counts):
    """How often each of ``counts.size`` rows is drawn in ``sample_size`` draws with replacement."""
    counts[:] = 0.0
    state = _stream(seed, group)
    for _ in range(sample_size):
        state, row = _draw(state, counts.size)
        counts[row] += 1.0


@njit(cache=True)
def _resample_sum(seed, group, sample_size, values):
    """The sum of ``sample_size`` rows of ``values`` drawn with replacement (the same draws as
    :func:`_resample_counts`, without counting them).
    """
    state = _stream(seed, group)
    total = 0.0
    for _ in range(sample_size):
        state, row = _draw(state, values.size)
        total += values[row]
    return total


@njit(cache=True, fastmath={"reassoc"})
def _dot(counts, column):
    # Reassociation lets LLVM vectorise the sum; the order it picks is fixed at compile time, so a
    # result does not depend on the thread, and sums of integer statistics are exact in any order.
    acc = 0.0
    for i in range(counts.size):
        acc += counts[i] * column[i]
    return acc


@njit(parallel=True, cache=True)
def _bootstrap_scores(stats_t, starts, sample_sizes, seeds, code):
    # Groups outside, trials inside: one group's statistics stay in cache across all trials.
    k = stats_t.shape[0]
    n_groups = starts.size - 1
    out = np.empty((seeds.size, n_groups))
    for g in range(n_groups):
        lo, hi, size = starts[g], starts[g + 1], sample_sizes[g]
        for t in prange(seeds.size):
            if code == 0:  # a mean: sum the drawn rows directly, in time proportional to `size`
                out[t, g] = _resample_sum(seeds[t], g, size, stats_t[0, lo:hi]) / size
                continue
            counts = np.empty(hi - lo)
            _resample_counts(seeds[t], g, size, counts)
            sums = np.empty(k)
            for j in range(k):
                sums[j] = _dot(counts, stats_t[j, lo:hi])
            out[t, g] = score(sums, code)
    return out


@dataclass(frozen=True)
class SystemBootstrap:
    """System scores recomputed on bootstrap resamples.

    Attributes
    ----------
    systems : pandas.Index
        The systems, in column order.
    scores : ndarray, shape (n_resamples, n_systems)
        The score of every system in every resample.
    observed : ndarray, shape (n_systems,)
        The score on the rows as given.
    lower_is_better : bool
        True for TER: a system is predicted better when its score is lower.
    """

    systems: pd.Index
    scores: np.ndarray
    observed: np.ndarray
    lower_is_better: bool

    def _columns(self, pairs):
        pairs = list(pairs)
        if not pairs:
            raise ValueError("`pairs` is empty")
        first = self.systems.get_indexer([a for a, _ in pairs])
        second = self.systems.get_indexer([b for _, b in pairs])
        if (first < 0).any() or (second < 0).any():
            bad = [p for p, i, j in zip(pairs, first, second) if i < 0 or j < 0][0]
            raise ValueError(f"pair {bad} names a system that is not in the bootstrap")
        return first, second

    def _better(self, a, b):
        return a < b if self.lower_is_better else a > b

    def predictions(self, pairs) -> np.ndarray:
        """``1`` where the first system of a pair scores better than the second (a tie is 0).

        Returns an int8 array of shape (n_resamples, n_pairs).
        """
        i, j = self._columns(pairs)
        return self._better(self.scores[:, i], self.scores[:, j]).astype(np.int8)

    def observed_predictions(self, pairs) -> np.ndarray:
        """The predictions on the rows as given, shape (n_pairs,)."""
        i, j = self._columns(pairs)
        return self._better(self.observed[i], self.observed[j]).astype(np.int8)

    def one_sided_pvalues(self, pairs) -> np.ndarray:
        """Bootstrap p-value of each pair's observed order: the share of resamples that do not
        reproduce it (the one-sided test of Wei & Jia's Appendix E).
        """
        same = self.predictions(pairs) == self.observed_predictions(pairs)
        return 1.0 - same.mean(axis=0)


def system_pairs(systems, by=None) -> list[tuple]:
    """All unordered pairs of systems, within each group of ``by`` (e.g. a language pair).

    Parameters
    ----------
    systems : sequence
        System labels, unique within a group.
    by : sequence, optional
        The group of each system (default: one group).

    Returns
    -------
    list of tuple
        ``(a, b)`` pairs in the order the systems are listed, group by group.

    Notes
    -----
    Wei & Jia pair systems only within a year and language pair: ``by`` does that.

    References
    ----------
    Wei, J. T.-Z. and Jia, R. (2021). Section 3.1.

    Examples
    --------
    >>> system_pairs(["a", "b", "c", "d"], by=["x", "x", "y", "y"])
    [('a', 'b'), ('c', 'd')]
    """
    systems = list(systems)
    by = [None] * len(systems) if by is None else list(by)
    if len(by) != len(systems):
        raise ValueError(f"`by` has {len(by)} entries for {len(systems)} systems")
    groups: dict = {}
    for system, group in zip(systems, by):
        members = groups.setdefault(group, [])
        if system in members:
            raise ValueError(f"system {system!r} appears twice in group {group!r}")
        members.append(system)
    return [pair for members in groups.values() for pair in combinations(members, 2)]


@dataclass(frozen=True)
class PairLabels:
    """Which system of each pair the scores prefer (:func:`pair_labels`).

    Attributes
    ----------
    pairs : list of tuple
        The labelled pairs (those dropped for a missing score are left out).
    labels : ndarray of int8
        ``1`` where the first system of a pair scores better, ``0`` where the second does.
    kept : ndarray of bool
        For each pair given, whether it was labelled.
    unscored : list
        The systems without a score (their pairs were dropped).
    """

    pairs: list
    labels: np.ndarray
    kept: np.ndarray
    unscored: list


def pair_labels(scores, pairs, *, missing: str = "raise", lower_is_better: bool = False) -> PairLabels:
    """Label each system pair by the system scores: which of the two is the better one.

    Parameters
    ----------
    scores : Series
        One score per system (e.g. expert MQM); NaN or an absent system marks a missing score.
    pairs : sequence of (a, b)
        System pairs, e.g. from :func:`system_pairs`.
    missing : {"raise", "drop"}
        A pair with a missing score is an error naming the systems, or is left out (and
        ``unscored`` says which systems).  A missing score never becomes a label.
    lower_is_better : bool
        True for error scores (e.g. TER): the lower score is the better system.

    Returns
    -------
    PairLabels

    Notes
    -----
    Comparing with a missing value is False in NumPy and pandas, so a NaN score silently labels
    every pair "the second system is better"; this function refuses that.  Equal scores give no
    label either: they are an error naming the pair.

    References
    ----------
    Wei, J. T.-Z. and Jia, R. (2021). Section 3.1 (labels of system pairs).

    Examples
    --------
    >>> mqm = pd.Series({"A": -1.0, "B": -2.0, "C": float("nan")})
    >>> out = pair_labels(mqm, [("A", "B"), ("B", "C"), ("C", "A")], missing="drop")
    >>> out.labels.tolist(), out.kept.tolist(), out.unscored
    ([1], [True, False, False], ['C'])
    """
    if not isinstance(scores, pd.Series):
        raise TypeError(f"`scores` must be a pandas Series of system scores; got {type(scores).__name__}")
    missing = choice_iv(missing, "missing", ("raise", "drop"))
    lower_is_better = flag_iv(lower_is_better, "lower_is_better")
    pairs = [tuple(p) for p in pairs]
    if not pairs or any(len(p) != 2 for p in pairs):
        raise ValueError("`pairs` must be a non-empty sequence of (system, system) pairs")
    values = pd.to_numeric(scores, errors="coerce")
    if np.isinf(values).any():
        raise ValueError(f"`scores` are infinite for {list(values.index[np.isinf(values)])}")
    named = {system for pair in pairs for system in pair}
    unscored = sorted((system for system in named if system not in values.index or pd.isna(values[system])),
                      key=str)
    if unscored and missing == "raise":
        raise ValueError(f"no score for {unscored}: their pairs cannot be labelled; pass missing='drop' "
                         "to leave them out")
    kept = np.array([a not in unscored and b not in unscored for a, b in pairs])
    labelled = [p for p, keep in zip(pairs, kept) if keep]
    labels = np.empty(len(labelled), dtype=np.int8)
    for k, (a, b) in enumerate(labelled):
        if values[a] == values[b]:
            raise ValueError(f"systems {a!r} and {b!r} tie at {values[a]}: the pair has no label")
        labels[k] = (values[a] < values[b]) if lower_is_better else (values[a] > values[b])
    return PairLabels(labelled, labels, kept, unscored)


def _bootstrap_iv(values, systems, metric, n_resamples, sample_size, rng):
    if metric != "mean" and metric not in N_STATS:
        raise ValueError(f"`metric` must be 'mean', 'bleu', 'chrf' or 'ter'; got {metric!r}")
    values = np.asarray(values)
    if values.dtype.kind not in "iuf":
        raise TypeError(f"`values` must be real numbers; got dtype {values.dtype}")
    values = values.astype(np.float64)
    if metric == "mean":
        if values.ndim != 1:
            raise ValueError(f"`values` for metric='mean' must be 1-D; got shape {values.shape}")
        values = values[:, None]
    elif values.ndim != 2 or values.shape[1] != N_STATS[metric]:
        raise ValueError(f"`values` for {metric} must be sacrebleu statistics of shape (n, {N_STATS[metric]}); "
                         f"got {values.shape}")
    if not np.isfinite(values).all():
        raise ValueError("`values` must be finite")
    if metric != "mean" and (values < 0).any():
        raise ValueError(f"`values` for {metric} are counts and must be non-negative")
    systems = np.asarray(systems, dtype=object)
    if systems.shape != (len(values),):
        raise ValueError(f"`systems` must give one label per row of `values` ({len(values)}); "
                         f"got shape {systems.shape}")
    if len(values) == 0:
        raise ValueError("`values` is empty")
    codes, labels = pd.factorize(systems, sort=True)
    labels = pd.Index(labels)
    counts = np.bincount(codes, minlength=len(labels))
    if sample_size is None:
        sizes = counts
    elif isinstance(sample_size, (dict, pd.Series)):
        sample_size = pd.Series(sample_size)
        missing = labels.difference(sample_size.index)
        if len(missing):
            raise ValueError(f"`sample_size` has no entry for {list(missing)[:5]}")
        sizes = np.array([positive_int_iv(sample_size[s], f"sample_size[{s!r}]") for s in labels])
    else:
        sizes = np.full(len(labels), positive_int_iv(sample_size, "sample_size"))
    return (values, codes, labels, counts, sizes.astype(np.int64),
            positive_int_iv(n_resamples, "n_resamples"), rng_iv(rng))


def bootstrap_system_scores(values, systems, *, metric: str = "mean", n_resamples: int = 10_000,
                            sample_size=None, rng=None) -> SystemBootstrap:
    """Resample each system's rows with replacement and recompute its score, ``n_resamples`` times.

    Parameters
    ----------
    values : array_like
        One row per judgement (or segment): a score (``metric="mean"``, 1-D) or sacrebleu
        statistics from :func:`spalib.corpus_metrics.segment_statistics` (2-D).
    systems : array_like
        The system of each row.  Rows are resampled within their system, independently.
    metric : {"mean", "bleu", "chrf", "ter"}
        How a resample becomes a score: the mean, or the corpus metric of the summed statistics
        (equal to sacrebleu's ``corpus_score`` on the resampled corpus).
    n_resamples : int
        Number of bootstrap trials (Wei & Jia: 10,000).
    sample_size : int or mapping, optional
        Rows drawn per system (default: as many as it has), e.g. to simulate fewer judgements.
    rng : None, int or numpy.random.Generator
        Seeds the trials; results are identical across runs and numba thread counts.

    Returns
    -------
    SystemBootstrap

    Notes
    -----
    Trial ``t`` draws system ``g``'s rows from a SplitMix64 stream seeded by a 64-bit number that
    ``rng`` gives trial ``t`` and by ``g``: two calls with different generators (or one generator
    used twice) draw independent resamples, as the bootstrap of Wei & Jia requires for the
    human labels, the human predictor and the metric.

    References
    ----------
    Wei, J. T.-Z. and Jia, R. (2021). The statistical advantage of automatic NLG metrics at the
    system level. ACL. Section 4.3.

    Examples
    --------
    >>> boot = bootstrap_system_scores([1.0, 2.0, 3.0, 10.0, 11.0], ["a", "a", "a", "b", "b"],
    ...                                n_resamples=100, rng=0)
    >>> boot.observed.tolist(), bool(boot.predictions([("b", "a")]).all())
    ([2.0, 10.5], True)
    """
    values, codes, labels, counts, sizes, n_resamples, rng = _bootstrap_iv(
        values, systems, metric, n_resamples, sample_size, rng)
    order = np.argsort(codes, kind="stable")
    stats_t = np.ascontiguousarray(values[order].T)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    seeds = rng.integers(0, np.iinfo(np.uint64).max, size=n_resamples, dtype=np.uint64, endpoint=True)
    code = 0 if metric == "mean" else CODE[metric]
    scores = _bootstrap_scores(stats_t, starts, sizes, seeds, code)
    sums = np.add.reduceat(values[order], starts[:-1], axis=0)
    if metric == "mean":
        observed = sums[:, 0] / counts
    else:
        observed = np.atleast_1d(corpus_score(metric, sums))
    return SystemBootstrap(labels, scores, observed, metric != "mean" and lower_is_better(metric))


# --- the bias-variance-noise decomposition -------------------------------------------------

@dataclass(frozen=True)
class ErrorDecomposition:
    """Domingos's decomposition of the 0-1 error of pairwise predictions.

    ``error = bias + variance + noise`` exactly (``noise`` is the remainder, as in Wei & Jia's
    Table 1, where it is printed as "c0 Noise").  The ``pair_*`` arrays hold the same terms per
    pair; ``raw_noise``, ``raw_variance``, ``c0`` and ``c1`` are the unweighted terms and their
    weights, so that ``mean(c0 * raw_noise)`` is Domingos's own noise term.
    """

    error: float
    bias: float
    variance: float
    noise: float
    pair_error: np.ndarray
    pair_bias: np.ndarray
    pair_variance: np.ndarray
    pair_noise: np.ndarray
    optimal_label: np.ndarray
    main_prediction: np.ndarray
    raw_noise: np.ndarray
    raw_variance: np.ndarray
    c0: np.ndarray
    c1: np.ndarray


def _binary_matrix_iv(x, name: str) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype.kind not in "biuf":
        raise TypeError(f"`{name}` must hold 0/1 predictions; got dtype {x.dtype}")
    if x.ndim not in (1, 2) or x.size == 0:
        raise ValueError(f"`{name}` must be a non-empty (n_trials, n_pairs) array, or (n_pairs,) for a constant; "
                         f"got shape {x.shape}")
    if not np.isin(x, (0, 1)).all():
        raise ValueError(f"`{name}` must hold only 0 and 1")
    return x.astype(np.int8)


def _decompose_iv(predictions, labels, no_bias, notebook_order):
    flag_iv(no_bias, "no_bias")
    flag_iv(notebook_order, "notebook_order")
    predictions = _binary_matrix_iv(predictions, "predictions")
    labels = _binary_matrix_iv(labels, "labels")
    try:
        predictions, labels = np.broadcast_arrays(np.atleast_2d(predictions), np.atleast_2d(labels))
    except ValueError:
        raise ValueError(f"`predictions` {predictions.shape} and `labels` {labels.shape} must have the same "
                         f"shape (a 1-D array is a constant for every trial)") from None
    return (labels, predictions) if notebook_order else (predictions, labels)


def decompose_pairwise_error(predictions, labels, *, no_bias: bool = False,
                             notebook_order: bool = False) -> ErrorDecomposition:
    r"""Bias, variance and noise of pairwise predictions scored against noisy labels.

    Parameters
    ----------
    predictions : array_like of 0/1, shape (n_trials, n_pairs)
        The estimator's prediction in each bootstrap trial (1: the first system is better).
        A 1-D array is a constant prediction (the same in every trial).
    labels : array_like of 0/1, shape (n_trials, n_pairs)
        The human labels of the same trials (from an independent resample).
    no_bias : bool
        Take the optimal label as the estimator's main prediction (Wei & Jia do this for unbiased
        estimators: the human and the optimal predictor).
    notebook_order : bool
        Swap the two inputs, as the authors' notebooks do by unpacking ``(human, metric)`` as
        ``(metric, human)``.  This reproduces the published Table 1 columns: "c1 Var" is then
        the human labels' noise and "c0 Noise" the metric's weighted variance.  ``error`` and
        ``bias`` are the same either way.

    Returns
    -------
    ErrorDecomposition

    Notes
    -----
    With labels :math:`T` and predictions :math:`Y` (trials × pairs): the optimal label
    :math:`y^*_p` is the majority of :math:`T_{\cdot p}` and the main prediction :math:`y^m_p`
    the majority of :math:`Y_{\cdot p}` (a tie counts as 0).  Then

    .. math::

        \mathrm{Err} = \overline{[Y \ne T]}, \quad
        \mathrm{Bias} = \overline{[y^m_p \ne y^*_p]}, \quad
        c_1\mathrm{Var} = \overline{c_{1p} \Pr(Y_{\cdot p} \ne y^m_p)}, \quad
        c_0\mathrm{Noise} = \mathrm{Err} - \mathrm{Bias} - c_1\mathrm{Var},

    with :math:`c_{1p} = 1` if :math:`y^m_p = y^*_p` and :math:`-1` otherwise, and
    :math:`c_{0p} = 2\Pr(Y_{\cdot p} = y^*_p) - 1` weighting the raw noise
    :math:`\Pr(T_{\cdot p} \ne y^*_p)`.

    References
    ----------
    Domingos, P. (2000). A unified bias-variance decomposition and its applications. ICML.
    Wei, J. T.-Z. and Jia, R. (2021). The statistical advantage of automatic NLG metrics at the
    system level. ACL. Section 4.1 and Table 1.

    Examples
    --------
    >>> Y = [[1, 1, 0], [1, 1, 0], [0, 1, 0], [1, 1, 1], [1, 1, 0]]
    >>> T = [[1, 0, 1], [1, 0, 0], [1, 1, 1], [0, 0, 1], [1, 0, 1]]
    >>> d = decompose_pairwise_error(Y, T)
    >>> round(d.error, 4), round(d.bias, 4), round(d.variance, 4), round(d.noise, 4)
    (0.6, 0.6667, 0.0, -0.0667)
    """
    predictions, labels = _decompose_iv(predictions, labels, no_bias, notebook_order)
    optimal = (labels.mean(axis=0) > 0.5).astype(np.int8)
    main = optimal if no_bias else (predictions.mean(axis=0) > 0.5).astype(np.int8)
    pair_error = (predictions != labels).mean(axis=0)
    pair_bias = (main != optimal).astype(float)
    raw_variance = (predictions != main).mean(axis=0)
    c1 = np.where(main == optimal, 1.0, -1.0)
    pair_variance = c1 * raw_variance
    pair_noise = pair_error - pair_bias - pair_variance
    error, bias, variance = pair_error.mean(), pair_bias.mean(), pair_variance.mean()
    return ErrorDecomposition(
        error=float(error), bias=float(bias), variance=float(variance), noise=float(error - bias - variance),
        pair_error=pair_error, pair_bias=pair_bias, pair_variance=pair_variance, pair_noise=pair_noise,
        optimal_label=optimal, main_prediction=main,
        raw_noise=(labels != optimal).mean(axis=0), raw_variance=raw_variance,
        c0=2 * (predictions == optimal).mean(axis=0) - 1, c1=c1,
    )


# --- the perfect annotator -----------------------------------------------------------------

@dataclass(frozen=True)
class PerfectAnnotator:
    """Variance components of human judgements and the efficiency ratio of a perfect annotator.

    ``total_variance`` Var(H); ``within_variance`` E[Var(H|x)] pooled over outputs judged at least
    twice (or, with annotators, over pairs of judgements by different annotators);
    ``perfect_variance`` Var(P) = Var(H) - E[Var(H|x)]; ``ratio`` r = Var(H) / Var(P): one
    perfect judgement is worth ``r`` crowd judgements.  ``n_pairs`` counts the pairs behind the
    within variance when it comes from pairs (0 otherwise).
    """

    total_variance: float
    within_variance: float
    perfect_variance: float
    ratio: float
    n_judgements: int
    n_repeated_outputs: int
    n_pairs: int = 0

    def reliability(self, n_judgements):
        """Spearman-Brown: correlation of two independent means of ``n_judgements`` per output."""
        n = np.asarray(n_judgements, dtype=np.float64)
        return self.perfect_variance / (self.perfect_variance + self.within_variance / n)


@njit(cache=True)
def _different_annotator_pairs(scores, output_codes, annotator_codes, starts):
    """Sum of (x_a - x_b)^2 / 2 and count over pairs of one output's judgements by two annotators."""
    total, pairs = 0.0, 0
    for g in range(starts.size - 1):
        for a in range(starts[g], starts[g + 1]):
            for b in range(a + 1, starts[g + 1]):
                if annotator_codes[a] != annotator_codes[b]:
                    total += 0.5 * (scores[a] - scores[b]) ** 2
                    pairs += 1
    return total, pairs


def perfect_annotator(scores, outputs, *, annotators=None, ddof: int = 1) -> PerfectAnnotator:
    r"""How much noise the judgements carry, from outputs judged more than once.

    Parameters
    ----------
    scores : array_like, shape (n,)
        One score per judgement.
    outputs : array_like, shape (n,)
        The id of the judged output (system and segment); judgements with the same id are repeats.
    annotators : array_like, shape (n,), optional
        Who gave each judgement.  Given, the within-output variance comes only from pairs of
        judgements of one output by *different* annotators, as two independent collections would
        see it; a worker who repeats a judgement agrees with herself more than with others, so
        pooling her repeats makes the judgements look less noisy than they are.
    ddof : {1, 0}
        Delta degrees of freedom of every variance (Wei & Jia: 1 for WMT, 0 in their SummEval
        notebook).

    Returns
    -------
    PerfectAnnotator

    Notes
    -----
    :math:`V_H` is the sample variance of all scores; :math:`V_W = \sum_g (n_g - d)s_g^2 /
    \sum_g (n_g - d)` over outputs :math:`g` with :math:`n_g \ge 2`; :math:`V_P = V_H - V_W`
    and :math:`r = V_H / V_P` (law of total variance, Wei & Jia eq. 15-18).  With ``annotators``,
    :math:`V_W` is the mean of :math:`(x_a - x_b)^2 / 2` over pairs of judgements of one output by
    two different annotators (unbiased for the ddof-1 variance, so ``ddof`` must be 1).

    References
    ----------
    Wei, J. T.-Z. and Jia, R. (2021). Section 5.2 and Appendix C.

    Examples
    --------
    >>> pa = perfect_annotator([70, 80, 90, 50, 50, 20, 10, 30, 20, 40], [0, 0, 0, 1, 1, 2, 3, 3, 3, 3])
    >>> round(pa.within_variance, 4), round(pa.total_variance, 4), round(pa.ratio, 6)
    (116.6667, 737.7778, 1.187835)
    """
    scores = np.asarray(scores)
    if scores.dtype.kind not in "iuf" or scores.ndim != 1:
        raise ValueError(f"`scores` must be a 1-D array of real numbers; got {scores.dtype} of shape {scores.shape}")
    scores = scores.astype(np.float64)
    if not np.isfinite(scores).all():
        raise ValueError("`scores` must be finite")
    outputs = np.asarray(outputs, dtype=object)
    if outputs.shape != scores.shape:
        raise ValueError(f"`outputs` must have one id per score ({scores.size}); got shape {outputs.shape}")
    if ddof not in (0, 1) or isinstance(ddof, bool):
        raise ValueError(f"`ddof` must be 0 or 1; got {ddof!r}")
    if scores.size < 2:
        raise ValueError("`scores` needs at least two judgements")
    if annotators is not None:
        annotators = np.asarray(annotators, dtype=object)
        if annotators.shape != scores.shape:
            raise ValueError(f"`annotators` must have one id per score ({scores.size}); got shape {annotators.shape}")
        if ddof != 1:
            raise ValueError("`annotators` estimates the within variance from pairs, a ddof-1 estimate: use ddof=1")
    codes, _ = pd.factorize(outputs)
    n = np.bincount(codes)
    repeated = n >= 2
    if not repeated.any():
        raise ValueError("no output is judged twice: the within-output variance cannot be estimated")
    n_pairs = 0
    if annotators is None:
        means = np.bincount(codes, weights=scores) / n
        squares = np.bincount(codes, weights=(scores - means[codes]) ** 2)
        within = squares[repeated].sum() / (n[repeated] - ddof).sum()
    else:
        order = np.argsort(codes, kind="stable")
        starts = np.concatenate(([0], np.cumsum(n))).astype(np.int64)
        half_squares, n_pairs = _different_annotator_pairs(scores[order], codes[order].astype(np.int64),
                                                           pd.factorize(annotators)[0][order].astype(np.int64), starts)
        if n_pairs == 0:
            raise ValueError("no output is judged by two different annotators: "
                             "the within-output variance cannot be estimated")
        within = half_squares / n_pairs
    total = scores.var(ddof=ddof)
    if within >= total:
        raise ValueError(f"the within-output variance ({within:.4g}) is not below the total variance ({total:.4g}): "
                         f"the judgements carry no signal about the outputs")
    return PerfectAnnotator(float(total), float(within), float(total - within), float(total / (total - within)),
                            int(scores.size), int(repeated.sum()), int(n_pairs))


# --- power ----------------------------------------------------------------------------------

def _power_gap(n1, effect, alpha, power):
    df = 2 * n1 - 2
    crit = stats.t.isf(alpha / 2, df)
    nc = effect * np.sqrt(n1 / 2)
    return stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc) - power


def judgements_for_power(delta, sigma, *, alpha: float = 0.05, power: float = 0.95,
                         method: str = "t"):
    r"""Judgements needed to tell two systems apart with a two-sample t-test.

    Parameters
    ----------
    delta : float or array_like
        The difference in system quality to detect (e.g. DA points).
    sigma : float or array_like
        The standard deviation of one judgement (e.g. the perfect annotator's, 19.27 on WMT19).
    alpha : float
        Two-sided significance level.
    power : float
        Probability of detecting the difference (Wei & Jia call it beta = 0.95).
    method : {"t", "normal"}
        ``"t"``: the exact noncentral-t power equation (as statsmodels' ``TTestIndPower``);
        ``"normal"``: the normal approximation ``n1 = 2 ((z_{1-alpha/2} + z_power) sigma / delta)^2``.

    Returns
    -------
    float or ndarray
        Total judgements for both systems, ``2 n1`` (not rounded), broadcast over ``delta`` and ``sigma``.

    Notes
    -----
    ``n1`` solves :math:`P(|T| > t_{1-\alpha/2, 2n_1-2}) = \text{power}` for
    :math:`T \sim t_{2n_1-2}(\delta/\sigma \cdot \sqrt{n_1/2})`, equal variances and group sizes.

    References
    ----------
    Wei, J. T.-Z. and Jia, R. (2021). Section 6.1 and Table 2.

    Examples
    --------
    >>> round(judgements_for_power(1, 19), 1), round(judgements_for_power(1, 19, method="normal"), 1)
    (18766.3, 18764.4)
    """
    alpha, power = probability_iv(alpha, "alpha"), probability_iv(power, "power")
    method = choice_iv(method, "method", ("t", "normal"))
    delta, sigma = np.asarray(delta, dtype=float), np.asarray(sigma, dtype=float)
    for value, name in ((delta, "delta"), (sigma, "sigma")):
        if not (np.isfinite(value) & (value > 0)).all():
            raise ValueError(f"`{name}` must be positive and finite")
    effect = np.broadcast_arrays(delta / sigma)[0]
    normal = 2 * ((stats.norm.isf(alpha / 2) + stats.norm.ppf(power)) / effect) ** 2
    if method == "normal":
        out = 2 * normal
    else:
        flat = [optimize.brentq(_power_gap, 2.0, 4 * n + 10, args=(e, alpha, power), xtol=1e-10, rtol=1e-14)
                for e, n in zip(effect.ravel(), normal.ravel())]
        out = 2 * np.reshape(flat, effect.shape)
    return float(out) if out.ndim == 0 else out

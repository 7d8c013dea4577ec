"""The system-score bootstrap of Wei & Jia (2021): each system's rows resampled on their own.

A system-level human score is a mean over noisy judgements; a metric's is a corpus score over the
judged segments.  Wei & Jia estimate how both vary by resampling each system's judgement rows
with replacement, independently of the other systems, and recomputing the score:

- :func:`bootstrap_system_scores` resamples the rows of every system (seeded, numba, identical for
  every thread count) and recomputes a mean, or corpus BLEU, chrF or TER from summed sacrebleu
  statistics (:mod:`spalib.corpus_metrics`), giving system scores per trial;
- :func:`system_pairs` (or :meth:`SystemBootstrap.pairs`) lists the system pairs within each group
  (a year and language pair), as a frame with the group's columns;
- :meth:`SystemBootstrap.predictions` says, in every trial, which system of each pair is better;
- :func:`pair_labels` labels the pairs by other system scores (e.g. expert MQM).

Systems are keyed by columns (year, language pair, system), never by labels glued into a string:
the keys go in as a frame and come back as a MultiIndex, and every result about pairs is labelled
by the pair frame's columns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from spalib._core.bootstrap import _bootstrap_scores
from spalib._core.corpus_kernels import CODE, N_STATS
from spalib._core.validation import (
    choice_iv, flag_iv, keys_iv, labels_iv, names_iv, positive_int_iv, real_array_iv, rng_iv,
)
from spalib.corpus_metrics import corpus_score, is_lower_better

__all__ = ["bootstrap_system_scores", "SystemBootstrap", "system_pairs", "pair_labels", "PairLabels"]

PAIR_COLUMNS = ("first", "second")
"""The columns of a pair frame that name the two systems (the group columns name what they share)."""


# --- pairs of systems as frames ------------------------------------------------------------

def _tuple_pairs_iv(pairs) -> list[tuple]:
    """``(a, b)`` system pairs as a list of 2-tuples (a non-empty sequence)."""
    pairs = [tuple(p) for p in pairs]
    if not pairs or any(len(p) != 2 for p in pairs):
        raise ValueError("`pairs` must be a pair frame or a non-empty sequence of (system, system) pairs")
    return pairs


def _pair_frame_of(pairs: list[tuple]) -> pd.DataFrame:
    """``(a, b)`` pairs as a pair frame: columns ``first`` and ``second`` (tuple keys kept whole)."""
    return pd.DataFrame({side: pd.Series([p[k] for p in pairs], dtype=object)
                         for k, side in enumerate(PAIR_COLUMNS)})


def _pair_frame_iv(pairs, name: str = "pairs") -> pd.DataFrame:
    missing = [c for c in PAIR_COLUMNS if c not in pairs.columns]
    if missing:
        raise ValueError(f"`{name}` as a frame must have the columns 'first' and 'second' (as from "
                         f"spalib.system_pairs); it lacks {missing}")
    if len(pairs) == 0:
        raise ValueError(f"`{name}` is empty")
    if pairs.isna().any().any():
        raise ValueError(f"`{name}` has missing values in {list(pairs.columns[pairs.isna().any()])}")
    return pairs


def _side_keys(pairs: pd.DataFrame, names, side: str) -> list:
    """The full key, in the levels ``names``, of the ``side`` system of every row of a pair frame:
    a level named by a column is read there (shared by both systems), the others from ``side``
    (a scalar for one remaining level, a tuple for several).
    """
    names = list(names)
    if len(names) > 1 and None in names:
        raise ValueError(f"the systems' index levels {names} must all be named (e.g. index.names = "
                         "['lp', 'system']) for a pair frame's columns to say which level they hold")
    rest = [n for n in names if n not in pairs.columns]
    if not rest:
        raise ValueError(f"the pair frame's columns cover every key level ({names}): "
                         "'first' and 'second' have nothing left to name")
    values = pairs[side].tolist()
    if len(rest) > 1:
        bad = [v for v in values if not isinstance(v, tuple) or len(v) != len(rest)]
        if bad:
            raise ValueError(f"`{side}` must hold tuples of the levels {rest}; got {bad[0]!r}")
    shared = {n: pairs[n].tolist() for n in names if n in pairs.columns}
    keys = []
    for row, value in enumerate(values):
        parts = dict(zip(rest, value if len(rest) > 1 else (value,)))
        key = tuple(shared[n][row] if n in shared else parts[n] for n in names)
        keys.append(key if len(names) > 1 else key[0])
    return keys


def system_pairs(systems, within=None) -> pd.DataFrame:
    """All unordered pairs of systems, within each group of ``within`` (e.g. a year and language pair).

    Parameters
    ----------
    systems : DataFrame, Index, MultiIndex or sequence
        One row per system: key columns (e.g. ``year``, ``lp``, ``system``, as a DataFrame or a
        MultiIndex such as :attr:`SystemBootstrap.systems`), or a sequence of labels.  A system
        must not appear twice.
    within : str or list of str, optional
        The key columns that both systems of a pair share (default: none, all pairs).

    Returns
    -------
    DataFrame
        One row per pair: the ``within`` columns, then ``first`` and ``second``, the other key
        columns of the two systems (a value for one remaining column, a tuple for several).
        Groups come in the order of their first system, and pairs in the order the systems are
        listed.  Pass the frame to :meth:`SystemBootstrap.predictions` or :func:`pair_labels`.

    Notes
    -----
    Wei & Jia pair systems only within a year and language pair: ``within=["year", "lp"]`` does
    that without gluing the keys into strings.

    References
    ----------
    Wei, J. T.-Z. and Jia, R. (2021). The statistical advantage of automatic NLG metrics at the
    system level. ACL. Section 3.1.

    Examples
    --------
    >>> systems = pd.DataFrame({"lp": ["de-en", "de-en", "de-en", "zh-en", "zh-en"],
    ...                         "system": ["A", "B", "C", "A", "D"]})
    >>> system_pairs(systems, within="lp")
          lp first second
    0  de-en     A      B
    1  de-en     A      C
    2  de-en     B      C
    3  zh-en     A      D
    >>> system_pairs(["a", "b", "c"]).to_numpy().tolist()
    [['a', 'b'], ['a', 'c'], ['b', 'c']]
    """
    if isinstance(systems, pd.DataFrame):
        index = keys_iv(systems, "systems", len(systems))
    else:
        if isinstance(systems, str) or np.ndim(systems) != 1:
            raise ValueError("`systems` must be key columns (a DataFrame or a MultiIndex) or a sequence of labels")
        index = keys_iv(systems, "systems", len(systems))
    frame = index.to_frame(index=False) if index.nlevels > 1 or index.name is not None \
        else pd.DataFrame({"system": np.asarray(index, dtype=object) if index.dtype == object else index})
    within = [] if within is None else names_iv(within, "within")
    unknown = [w for w in within if w not in frame.columns]
    if unknown:
        raise ValueError(f"`within` names {unknown}, which are not key columns of `systems` ({list(frame.columns)})")
    if len(set(within)) != len(within):
        raise ValueError(f"`within` repeats a column: {within}")
    rest = [c for c in frame.columns if c not in within]
    if not rest:
        raise ValueError(f"`within` takes every key column ({within}): no system would be left to pair")
    clash = [c for c in within if c in PAIR_COLUMNS]
    if clash:
        raise ValueError(f"a `within` column may not be called {clash[0]!r} (it names a system of a pair)")
    groups: dict = {}
    for row in frame.itertuples(index=False):
        values = dict(zip(frame.columns, row))
        group = tuple(values[w] for w in within)
        system = tuple(values[c] for c in rest) if len(rest) > 1 else values[rest[0]]
        members = groups.setdefault(group, [])
        if system in members:
            where = f" in group {dict(zip(within, group))}" if within else ""
            raise ValueError(f"system {system!r} appears twice{where}")
        members.append(system)
    rows = [(*group, a, b) for group, members in groups.items() for a, b in combinations(members, 2)]
    out = pd.DataFrame(rows, columns=[*within, *PAIR_COLUMNS])
    for w in within:  # keep each group column's type (e.g. an integer year)
        out[w] = out[w].astype(frame[w].dtype)
    return out


# --- the bootstrap of system scores --------------------------------------------------------

@dataclass(frozen=True)
class SystemBootstrap:
    """System scores recomputed on bootstrap resamples.

    Attributes
    ----------
    systems : pandas.Index or pandas.MultiIndex
        The systems, sorted, in the column order of ``scores``; a MultiIndex named after the key
        columns when the systems were given as columns.
    scores : ndarray, shape (n_resamples, n_systems)
        The score of every system in every resample.
    observed : ndarray, shape (n_systems,)
        The score on the rows as given.
    lower_is_better : bool
        True for TER: a system is predicted better when its score is lower.

    Notes
    -----
    ``pairs``, a frame (from :meth:`pairs` or :func:`system_pairs`) or a sequence of ``(a, b)``
    system labels, give labelled results: a DataFrame (resamples x pairs) or a Series (pairs)
    indexed by the frame's columns, or by ``first`` and ``second`` for tuples (``.to_numpy()``
    gives the array).
    """

    systems: pd.Index
    scores: np.ndarray
    observed: np.ndarray
    lower_is_better: bool

    def pairs(self, within=None) -> pd.DataFrame:
        """The system pairs within each group of ``within`` (key columns), as :func:`system_pairs`."""
        return system_pairs(self.systems, within=within)

    def _columns(self, pairs):
        if isinstance(pairs, pd.DataFrame):
            pairs = _pair_frame_iv(pairs)
            names = list(self.systems.names)
            first, second = (_side_keys(pairs, names, side) for side in PAIR_COLUMNS)
            labels = pd.MultiIndex.from_frame(pairs)
        else:
            pairs = _tuple_pairs_iv(pairs)
            first, second = [a for a, _ in pairs], [b for _, b in pairs]
            labels = pd.MultiIndex.from_frame(_pair_frame_of(pairs))
        i = self.systems.get_indexer(pd.Index(first, tupleize_cols=self.systems.nlevels > 1))
        j = self.systems.get_indexer(pd.Index(second, tupleize_cols=self.systems.nlevels > 1))
        if (i < 0).any() or (j < 0).any():
            k = int(np.flatnonzero((i < 0) | (j < 0))[0])
            raise ValueError(f"pair {(first[k], second[k])} names a system that is not in the bootstrap")
        return i, j, labels

    def _better(self, a, b):
        return a < b if self.lower_is_better else a > b

    def predictions(self, pairs):
        """``1`` where the first system of a pair scores better than the second (a tie is 0).

        Returns an int8 DataFrame (n_resamples x n_pairs) whose columns are the pairs: a pair
        frame's columns, or ``first`` and ``second`` for ``(a, b)`` tuples.
        """
        i, j, labels = self._columns(pairs)
        out = self._better(self.scores[:, i], self.scores[:, j]).astype(np.int8)
        return pd.DataFrame(out, columns=labels, copy=False)

    def observed_predictions(self, pairs):
        """The predictions on the rows as given: an int8 Series indexed by the pairs."""
        i, j, labels = self._columns(pairs)
        return pd.Series(self._better(self.observed[i], self.observed[j]).astype(np.int8), index=labels)

    def one_sided_pvalues(self, pairs):
        """Bootstrap p-value of each pair's observed order: the share of resamples that do not
        reproduce it (the one-sided test of Wei & Jia's Appendix E): a Series indexed by the pairs.
        """
        i, j, labels = self._columns(pairs)
        same = (self._better(self.scores[:, i], self.scores[:, j])
                == self._better(self.observed[i], self.observed[j]))
        return pd.Series(1.0 - same.mean(axis=0), index=labels)


def _sizes_iv(sample_size, labels, counts):
    if sample_size is None:
        return counts
    if isinstance(sample_size, (dict, pd.Series)):
        sample_size = pd.Series(sample_size)
        missing = labels.difference(sample_size.index)
        if len(missing):
            raise ValueError(f"`sample_size` has no entry for {list(missing)[:5]}")
        if not sample_size.index.is_unique:
            raise ValueError("`sample_size` names a system twice")
        sizes = sample_size.reindex(labels)
        return np.array([positive_int_iv(size, f"sample_size[{system!r}]") for system, size in sizes.items()])
    return np.full(len(labels), positive_int_iv(sample_size, "sample_size"))


def _factorize_sorted(index: pd.Index) -> tuple[np.ndarray, pd.Index]:
    """``index.factorize(sort=True)`` with the index's names.  A MultiIndex is factorized from its
    levels' codes, each level made sorted and unique by value (sorting the rows' codes then sorts
    their tuples), not from a tuple per row, which took most of the time of a bootstrap of
    234,309 rows.
    """
    if not isinstance(index, pd.MultiIndex):
        codes, labels = index.factorize(sort=True)
        return codes, labels.set_names(index.names)
    per_level = []
    for level, codes in zip(index.levels, index.codes):
        if isinstance(level.dtype, pd.CategoricalDtype):   # by value, not in category order
            level = level.astype(level.categories.dtype)
        if not (level.is_unique and level.is_monotonic_increasing):
            rank, level = pd.factorize(level, sort=True)
            codes = rank[codes]
        per_level.append((np.asarray(codes), level))
    shape = tuple(len(level) for _, level in per_level)
    if math.prod(shape) < 2 ** 62:   # one number per row, ordered as the rows' tuples
        keys, codes = np.unique(np.ravel_multi_index([c for c, _ in per_level], shape), return_inverse=True)
        rows = np.unravel_index(keys, shape)
    else:
        unique, codes = np.unique(np.stack([c for c, _ in per_level], axis=1), axis=0, return_inverse=True)
        rows = unique.T
    labels = pd.MultiIndex.from_arrays([level.take(r) for r, (_, level) in zip(rows, per_level)],
                                       names=index.names)
    return codes.reshape(-1), labels


def _bootstrap_iv(values, systems, metric, n_resamples, sample_size, rng):
    metric = choice_iv(metric, "metric", ("mean", *N_STATS))
    n_resamples, rng = positive_int_iv(n_resamples, "n_resamples"), rng_iv(rng)
    if (isinstance(values, (pd.Series, pd.DataFrame)) and isinstance(systems, (pd.Series, pd.DataFrame))
            and not values.index.equals(systems.index)):
        raise ValueError("`values` and `systems` have different indexes: pass the rows in one order "
                         "(e.g. both columns of one frame)")
    values = real_array_iv(values, "values", ndim=1 if metric == "mean" else 2)
    if metric == "mean":
        values = values[:, None]
    elif values.shape[1] != N_STATS[metric]:
        raise ValueError(f"`values` for {metric} must be sacrebleu statistics of shape (n, {N_STATS[metric]}); "
                         f"got {values.shape}")
    if len(values) == 0:
        raise ValueError("`values` is empty")
    if metric != "mean" and (values < 0).any():
        raise ValueError(f"`values` for {metric} are counts and must be non-negative")
    index = keys_iv(systems, "systems", len(values))
    codes, labels = _factorize_sorted(index)
    counts = np.bincount(codes, minlength=len(labels))
    sizes = _sizes_iv(sample_size, labels, counts).astype(np.int64)
    return values, metric, codes, labels, counts, sizes, n_resamples, rng


def _mean_scale(values, n_max):
    """The power of two to divide the values by so that no sum of ``n_max`` of them overflows
    float64 (0 when none can: the scores are then computed from the values as given).
    """
    top = float(np.abs(values).max())
    limit = np.finfo(np.float64).max / 4 / n_max
    return int(np.ceil(np.log2(top / limit))) if top > limit else 0


def bootstrap_system_scores(values, systems, *, metric: str = "mean", n_resamples: int = 10_000,
                            sample_size=None, rng=None) -> SystemBootstrap:
    """Resample each system's rows with replacement and recompute its score, ``n_resamples`` times.

    Parameters
    ----------
    values : array_like
        One row per judgement (or segment): a score (``metric="mean"``, 1-D) or sacrebleu
        statistics from :func:`spalib.corpus_metrics.segment_statistics` (2-D).
    systems : DataFrame or array_like
        The system of each row: key columns (e.g. ``judgements[["year", "lp", "system"]]``), or
        one label per row.  Rows are resampled within their system, independently.  No key may
        be missing.  If ``values`` and ``systems`` are both pandas objects, their indexes must
        be equal.
    metric : {"mean", "bleu", "chrf", "ter"}
        How a resample becomes a score: the mean, or the corpus metric of the summed statistics
        (equal to sacrebleu's ``corpus_score`` on the resampled corpus).
    n_resamples : int
        Number of bootstrap trials (Wei & Jia: 10,000).
    sample_size : int or mapping, optional
        Rows drawn per system (default: as many as it has), e.g. to simulate fewer judgements;
        a mapping is keyed like :attr:`SystemBootstrap.systems` (tuples for key columns).
    rng : None, int or numpy.random.Generator
        Seeds the trials; results are identical across runs and numba thread counts.

    Returns
    -------
    SystemBootstrap
        With ``systems`` sorted: an Index of the labels, or a MultiIndex named after the key
        columns.

    Notes
    -----
    Trial ``t`` draws system ``g``'s rows from a SplitMix64 stream seeded by a 64-bit number that
    ``rng`` gives trial ``t`` and by ``g``: two calls with different generators (or one generator
    used twice) draw independent resamples, as the bootstrap of Wei & Jia requires for the
    human labels, the human predictor and the metric.

    A mean is a sum divided by the number of rows; scores so large that the sum would overflow
    are divided by a power of two first and multiplied back after (exact), so that the mean of
    two scores of 1e308 is 1e308, not inf.  Statistics whose sums would overflow are refused.

    References
    ----------
    Wei, J. T.-Z. and Jia, R. (2021). The statistical advantage of automatic NLG metrics at the
    system level. ACL. Section 4.3.

    Examples
    --------
    >>> rows = pd.DataFrame({"lp": ["de-en"] * 5, "system": ["a", "a", "a", "b", "b"],
    ...                      "score": [1.0, 2.0, 3.0, 10.0, 11.0]})
    >>> boot = bootstrap_system_scores(rows["score"], rows[["lp", "system"]], n_resamples=100, rng=0)
    >>> boot.observed.tolist(), boot.systems.tolist()
    ([2.0, 10.5], [('de-en', 'a'), ('de-en', 'b')])
    >>> pairs = boot.pairs(within="lp")
    >>> boot.observed_predictions(pairs)
    lp     first  second
    de-en  a      b         0
    dtype: int8
    """
    values, metric, codes, labels, counts, sizes, n_resamples, rng = _bootstrap_iv(
        values, systems, metric, n_resamples, sample_size, rng)
    n_max = int(max(sizes.max(), counts.max()))
    if metric == "mean":
        scale = _mean_scale(values, n_max)
        if scale:
            values = np.ldexp(values, -scale)
    elif values.max() > np.finfo(np.float64).max / 16 / n_max:
        raise ValueError(f"`values` are too large: their sums over a system's {n_max} rows overflow float64")
    order = np.argsort(codes, kind="stable")
    stats_t = np.ascontiguousarray(values[order].T)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    seeds = rng.integers(0, np.iinfo(np.uint64).max, size=n_resamples, dtype=np.uint64, endpoint=True)
    code = 0 if metric == "mean" else CODE[metric]
    # sacrebleu's statistics are counts and lengths (TER's reference length is an average over
    # the references, whole with one): whole numbers sum exactly in any order
    integers = code != 0 and bool(np.all(values == np.round(values))) and values.max() < 2.0 ** 53 / n_max
    scores = _bootstrap_scores(stats_t, starts, sizes, seeds, code, integers)
    sums = np.add.reduceat(values[order], starts[:-1], axis=0)
    if metric == "mean":
        observed = sums[:, 0] / counts
        if scale:
            scores, observed = np.ldexp(scores, scale), np.ldexp(observed, scale)
    else:
        observed = np.atleast_1d(corpus_score(metric, sums))
    return SystemBootstrap(labels, scores, observed, metric != "mean" and is_lower_better(metric))


# --- labels of pairs from other scores ---------------------------------------------------------

@dataclass(frozen=True)
class PairLabels:
    """Which system of each pair the scores prefer (:func:`pair_labels`).

    Attributes
    ----------
    pairs : DataFrame
        The labelled pairs (those dropped for a missing score are left out): the rows of the pair
        frame given, or a frame with columns ``first`` and ``second`` for ``(a, b)`` tuples.
    labels : Series of int8
        ``1`` where the first system of a pair scores better, ``0`` where the second does,
        indexed by the columns of ``pairs`` (as :meth:`SystemBootstrap.predictions`).
    kept : ndarray of bool
        For each pair given, whether it was labelled.
    unscored : list
        The systems without a score (their pairs were dropped).
    """

    pairs: pd.DataFrame
    labels: pd.Series
    kept: np.ndarray
    unscored: list


def pair_labels(scores, pairs, *, missing: str = "raise", lower_is_better: bool = False) -> PairLabels:
    """Label each system pair by the system scores: which of the two is the better one.

    Parameters
    ----------
    scores : Series
        One score per system (e.g. expert MQM); NaN or an absent system marks a missing score.
        Its index names the systems as the pairs do: by ``first``/``second`` (e.g. system names
        for pairs within one language pair), or by full keys (a MultiIndex named after the key
        columns).
    pairs : DataFrame or sequence of (a, b)
        System pairs: a pair frame from :func:`system_pairs` or :meth:`SystemBootstrap.pairs`,
        or ``(a, b)`` tuples of labels of ``scores``.
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
    Wei, J. T.-Z. and Jia, R. (2021). The statistical advantage of automatic NLG metrics at the
    system level. ACL. Section 3.1 (labels of system pairs).

    Examples
    --------
    >>> mqm = pd.Series({"A": -1.0, "B": -2.0, "C": float("nan")})
    >>> out = pair_labels(mqm, system_pairs(["A", "B", "C"]), missing="drop")
    >>> out.labels
    first  second
    A      B         1
    Name: label, dtype: int8
    >>> out.kept.tolist(), out.unscored
    ([True, False, False], ['C'])
    """
    if not isinstance(scores, pd.Series):
        raise TypeError(f"`scores` must be a pandas Series of system scores; got {type(scores).__name__}")
    missing = choice_iv(missing, "missing", ("raise", "drop"))
    lower_is_better = flag_iv(lower_is_better, "lower_is_better")
    values = pd.Series(real_array_iv(scores, "scores", allow_nan=True), index=labels_iv(scores.index, "scores"))
    if isinstance(pairs, pd.DataFrame):
        frame = _pair_frame_iv(pairs)
        names = list(scores.index.names)
        pairs = list(zip(*(_side_keys(frame, names, side) for side in PAIR_COLUMNS)))
    else:
        pairs = _tuple_pairs_iv(pairs)
        frame = _pair_frame_of(pairs)
    named = {system for pair in pairs for system in pair}
    unscored = sorted((system for system in named if system not in values.index or pd.isna(values[system])),
                      key=str)
    if unscored and missing == "raise":
        raise ValueError(f"no score for {unscored}: their pairs cannot be labelled; pass missing='drop' "
                         "to leave them out")
    dropped = set(unscored)
    kept = np.array([a not in dropped and b not in dropped for a, b in pairs])
    labelled = [p for p, keep in zip(pairs, kept) if keep]
    labels = np.empty(len(labelled), dtype=np.int8)
    for k, (a, b) in enumerate(labelled):
        if values[a] == values[b]:
            raise ValueError(f"systems {a!r} and {b!r} tie at {values[a]}: the pair has no label")
        labels[k] = (values[a] < values[b]) if lower_is_better else (values[a] > values[b])
    frame = frame[kept]
    return PairLabels(frame, pd.Series(labels, index=pd.MultiIndex.from_frame(frame), name="label"), kept, unscored)

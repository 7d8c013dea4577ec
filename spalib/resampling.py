"""Paired permutation p-values for every pair of systems (Thompson et al. 2024, §3.2-3.3).

For systems ``i`` and ``j`` scored on the same ``L`` segments, the paired permutation test asks
how often swapping the two systems' outputs on a random subset of segments gives a difference
of total scores at least as large as the observed one.  Swapping segment ``l`` flips the sign
of ``d_l = x_il - x_jl``, so with signs ``s_kl = ±1`` the null draws are ``N_k = sum_l s_kl d_l``
and the observed value is ``T = sum_l d_l``:

    P[i, j] = #{k : N_k >= T} / K.

The reference implementation draws one sign matrix and shares it across all pairs, so that
``N_k = Q[k, i] - Q[k, j]`` with ``Q = signs @ scores.T``: the cost is linear in the number of
systems.  spalib does the same, with two further savings: signs are random *bits* (eight per
byte instead of one float32 per sign), and ``Q`` is accumulated from tables of the signed sums
of all 256 sign patterns of each block of eight segments, so that each permutation costs
``L / 8`` table look-ups per system instead of ``L`` multiply-adds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from spalib import _kernels

__all__ = ["pairwise_pvalues", "draw_signs", "SignMatrix", "MAX_EXACT_SEGMENTS"]

#: Exact enumeration visits 2**L sign patterns; beyond this it would take too long.
MAX_EXACT_SEGMENTS = 20


class SignMatrix:
    """A shared matrix of random signs: ``n_resamples`` patterns over ``n_segments``.

    ``packed`` holds the signs as bits (``uint8``, eight segments per byte, bit set = +1).
    ``reference`` holds the float32 ±1 matrix when the signs were drawn with the reference
    recipe, which the float32 path multiplies exactly as mt-metrics-eval does; the packed form
    of such signs is built only if a float64 computation asks for it.
    """

    def __init__(self, n_segments: int, *, packed: np.ndarray | None = None, reference: np.ndarray | None = None):
        if (packed is None) == (reference is None):
            raise ValueError("give either packed signs or the reference's float32 sign matrix")
        self.n_segments = n_segments
        self._packed = packed
        self.reference = reference

    @property
    def n_resamples(self) -> int:
        return (self._packed if self._packed is not None else self.reference).shape[0]

    @property
    def packed(self) -> np.ndarray:
        if self._packed is None:
            self._packed = _kernels._pack_signs(self.reference)
        return self._packed


def _as_generator(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (int, np.integer)):
        return np.random.default_rng(rng)
    raise TypeError(f"`rng` must be None, an int seed or a numpy Generator; got {type(rng).__name__}")


def draw_signs(n_resamples: int, n_segments: int, rng=None) -> SignMatrix:
    """Draw the sign matrix shared by every system pair (and by the human and metric scores).

    With an **int** seed the signs are drawn exactly as mt-metrics-eval draws them
    (``default_rng(seed).random((K, L), dtype=float32)``, ``+1`` iff ``u > 0.5``), so that
    p-values and SPA equal the reference's for the same seed.  With a ``Generator`` (or None)
    spalib draws random bytes instead, eight signs per byte: much cheaper, equally fair.
    """
    _check_positive_int(n_resamples, "n_resamples")
    _check_positive_int(n_segments, "n_segments")
    if _is_seed(rng):
        signs = np.random.default_rng(rng).random((n_resamples, n_segments), dtype=np.float32)
        _kernels._uniform_to_signs(signs)  # in place, as the reference does with np.rint
        return SignMatrix(n_segments, reference=signs)
    generator = _as_generator(rng)
    n_bytes = (n_segments + 7) // 8
    packed = generator.integers(0, 256, size=(n_resamples, n_bytes), dtype=np.uint8)
    return SignMatrix(n_segments, packed=packed)


def _is_seed(rng) -> bool:
    return isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)


def _check_positive_int(value, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"`{name}` must be a positive integer; got {value!r}")


def _score_matrix(scores, name: str = "scores") -> np.ndarray:
    """Validate a systems x segments matrix: 2-D, at least two systems, finite."""
    array = np.asarray(scores.to_numpy() if isinstance(scores, pd.DataFrame) else scores, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"`{name}` must be a 2-D systems x segments matrix; got {array.ndim} dimension(s)")
    if array.shape[0] < 2 or array.shape[1] < 1:
        raise ValueError(f"`{name}` needs at least 2 systems and 1 segment; got shape {array.shape}")
    missing = ~np.isfinite(array)
    if missing.any():
        columns = np.flatnonzero(missing.any(axis=0))
        raise ValueError(
            f"`{name}` has {missing.sum()} missing or non-finite value(s) in {len(columns)} segment(s) "
            f"(first: column {columns[0]}); keep complete segments only, e.g. with "
            "spalib.data.complete_segments, which reports what it drops")
    return np.ascontiguousarray(array)


def pairwise_pvalues(scores, *, n_resamples: int = 1000, rng=None, method: str = "permutation",
                     precision: str | None = None, ties: str = "ge", signs: SignMatrix | None = None) -> np.ndarray:
    """One-sided paired permutation p-values for every pair of systems.

    Parameters
    ----------
    scores : array_like or DataFrame, shape (S, L)
        Segment scores, systems x segments, higher = better.  Every segment must be scored for
        every system (drop incomplete segments first).
    n_resamples : int
        Number of random sign patterns ``K`` (``method="permutation"``).
    rng : None, int or numpy.random.Generator
        An int draws the signs exactly as mt-metrics-eval does for that seed (its default is 4).
    method : {"permutation", "normal", "exact"}
        ``"permutation"``: Monte-Carlo, one sign matrix shared by all pairs.
        ``"normal"``: the ``K -> inf`` limit: the null of ``sum_l s_l d_l`` has mean 0 and
        variance ``sum_l d_l^2``, so ``P = 1 - Phi(T / sqrt(sum d^2))``; deterministic.
        ``"exact"``: all ``2**L`` sign patterns (``L <= 20``).
    precision : {None, "float32", "float64"}
        ``"float32"`` (the default with an int ``rng``) reproduces the reference bit for bit:
        float32 scores, float32 matmul, exact comparisons, so float rounding decides near-ties.
        ``"float64"`` (the default otherwise) sums in float64 and treats null values within
        ``1e-11 * max_s sum_l |x_sl|`` of the observed one as ties, so that mathematically
        equal sums compare equal (what the exact enumeration needs).
    ties : {"ge", "mid"}
        ``"ge"`` counts null values equal to the observed one (the reference); ``"mid"`` counts
        them one half, which makes ``P[i, j] + P[j, i] = 1`` and SPA independent of system order.
    signs : SignMatrix, optional
        A sign matrix from :func:`draw_signs` to reuse (it overrides ``n_resamples`` and ``rng``).

    Returns
    -------
    ndarray, shape (S, S)
        ``P[i, j]`` (``i < j``) is the p-value of "system ``i`` is better than system ``j``";
        the diagonal and lower triangle are NaN, as in the reference.

    Examples
    --------
    >>> a = [0.8, 0.9, 0.7, 1.0, 0.6]; b = [0.2, 0.3, 0.1, 0.4, 0.0]
    >>> float(pairwise_pvalues([a, b], method="exact")[0, 1])
    0.03125
    """
    x = _score_matrix(scores)
    if ties not in ("ge", "mid"):
        raise ValueError(f"`ties` must be 'ge' or 'mid'; got {ties!r}")
    if precision is None:
        precision = "float32" if method == "permutation" and signs is None and _is_seed(rng) else "float64"
    if precision not in ("float64", "float32"):
        raise ValueError(f"`precision` must be 'float64' or 'float32'; got {precision!r}")
    mid = ties == "mid"
    if method == "normal":
        return _normal_pvalues(x, mid)
    if method == "exact":
        if x.shape[1] > MAX_EXACT_SEGMENTS:
            raise ValueError(f"method='exact' enumerates 2**L sign patterns; L = {x.shape[1]} is over "
                             f"the limit of {MAX_EXACT_SEGMENTS} segments")
        signs = SignMatrix(x.shape[1], packed=_kernels._all_patterns(x.shape[1]))
    elif method == "permutation":
        if signs is None:
            signs = draw_signs(n_resamples, x.shape[1], rng)
        elif signs.n_segments != x.shape[1]:
            raise ValueError(f"`signs` cover {signs.n_segments} segments, `scores` has {x.shape[1]}")
    else:
        raise ValueError(f"`method` must be 'permutation', 'normal' or 'exact'; got {method!r}")
    return _pvalues_from_signs(x, signs, precision, mid)


def _pvalues_from_signs(x: np.ndarray, signs: SignMatrix, precision: str, mid: bool) -> np.ndarray:
    if precision == "float32":
        if signs.reference is None:
            raise ValueError("precision='float32' reproduces the reference recipe and needs its signs: "
                             "pass an int `rng` (a seed)")
        x32 = x.astype(np.float32)
        null = np.ascontiguousarray((signs.reference @ x32.T).T)  # float32 matmul, as the reference
        observed = x32.sum(axis=1)
        return _kernels._pair_pvalues(null, observed, mid, np.float32(0))
    table = _kernels._byte_tables(x)
    null = _kernels._signed_sums(table, signs.packed)
    return _kernels._pair_pvalues(null, _kernels._observed_sums(table), mid, _tie_tolerance(x))


def _tie_tolerance(x: np.ndarray) -> float:
    """Float64 sums of L terms are off by at most ~L ulps of the largest attainable |sum|; a
    margin far above that, far below any difference that matters."""
    return 1e-11 * float(np.abs(x).sum(axis=1).max())


def _normal_pvalues(x: np.ndarray, mid: bool) -> np.ndarray:
    out = np.full((x.shape[0], x.shape[0]), np.nan)
    out[np.triu_indices(x.shape[0], 1)] = _kernels._normal_upper(x, mid)
    return out

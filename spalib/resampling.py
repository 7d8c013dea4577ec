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

from spalib._core import signs as sign_kernels
from spalib._core.perm_both import one_blas_thread
from spalib._core.sign_matrix import SIGN_RECIPES, SignMatrix, signs_arguments_iv
from spalib._core.validation import choice_iv, positive_int_iv, rescaled, score_matrix_iv, sums_iv
from spalib._core.vocabulary import PVALUE_METHODS, TIES, PValueMethod, SignRecipe, Ties

__all__ = ["pairwise_pvalues", "draw_signs", "SignMatrix", "SIGN_RECIPES", "MAX_EXACT_SEGMENTS"]

#: Exact enumeration visits 2**L sign patterns; beyond this it would take too long.
MAX_EXACT_SEGMENTS = sign_kernels.MAX_EXACT_PATTERNS

def draw_signs(n_resamples: int, n_segments: int, *, rng=None, signs: str = "bits") -> SignMatrix:
    """Draw the sign matrix shared by every system pair (and by the human and metric scores).

    Parameters
    ----------
    n_resamples, n_segments : int
        The number of sign patterns ``K`` and of segments ``L``.
    rng : None, int or numpy.random.Generator
        The random state; ``signs="mtme"`` needs an int seed.
    signs : {"bits", "mtme"}
        ``"bits"``: random bytes from ``numpy.random.default_rng(rng)``, eight signs per byte.
        ``"mtme"``: mt-metrics-eval's recipe, ``default_rng(seed).random((K, L), dtype=float32)``,
        ``+1`` iff ``u > 0.5``, so that p-values equal the toolkit's for the same seed.

    Returns
    -------
    SignMatrix

    Notes
    -----
    Sign ``s_kl = +1`` keeps segment ``l`` of a system pair as observed in permutation ``k``,
    ``-1`` swaps the two systems' outputs there; one matrix serves every pair of systems.

    References
    ----------
    Thompson, B. et al. (2024). Improving statistical significance in human evaluation of
    automatic metrics via Soft Pairwise Accuracy. WMT. Section 3.3.

    Examples
    --------
    >>> draw_signs(1000, 12, rng=4, signs="mtme").recipe
    'mtme'
    """
    n_segments = positive_int_iv(n_segments, "n_segments")
    if isinstance(signs, SignMatrix):
        raise TypeError("`signs` names a recipe, 'bits' or 'mtme'; got a SignMatrix")
    n_resamples, rng, signs = signs_arguments_iv(n_resamples, rng, signs)
    if signs == "mtme":
        uniform = np.random.default_rng(rng).random((n_resamples, n_segments), dtype=np.float32)
        sign_kernels._uniform_to_signs(uniform)  # in place, as the reference does with np.rint
        return SignMatrix(n_segments, reference=uniform)
    return SignMatrix(n_segments, packed=sign_kernels.random_patterns(n_resamples, n_segments, rng))


def _pairwise_pvalues_iv(scores, n_resamples, rng, signs, method, ties):
    method = choice_iv(method, "method", PVALUE_METHODS)
    ties = choice_iv(ties, "ties", TIES)
    n_resamples, rng, signs = signs_arguments_iv(n_resamples, rng, signs)   # whatever the method
    x = score_matrix_iv(scores)
    if method == "exact" and x.shape[1] > MAX_EXACT_SEGMENTS:
        raise ValueError(f"method='exact' enumerates 2**L sign patterns; L = {x.shape[1]} is over "
                         f"the limit of {MAX_EXACT_SEGMENTS} segments")
    if isinstance(signs, SignMatrix) and signs.n_segments != x.shape[1]:
        raise ValueError(f"`signs` cover {signs.n_segments} segments, the scores have {x.shape[1]}")
    recipe = signs.recipe if isinstance(signs, SignMatrix) else signs
    x = rescaled(x)   # p-values do not change under a positive scale; squares and sums stay in range
    sums_iv(x, "scores", np.float32 if method == "permutation" and recipe == "mtme" else np.float64)
    if method == "permutation" and not isinstance(signs, SignMatrix):
        signs = draw_signs(n_resamples, x.shape[1], rng=rng, signs=signs)
    return x, signs if method == "permutation" else None, method, ties == "mid"


def pairwise_pvalues(scores, *, n_resamples: int = 1000, rng=None, signs: SignRecipe | SignMatrix = "bits",
                     method: PValueMethod = "permutation", ties: Ties = "ge") -> np.ndarray:
    """One-sided paired permutation p-values for every pair of systems.

    Parameters
    ----------
    scores : array_like or DataFrame, shape (S, L)
        Segment scores, systems x segments, higher = better.  Every segment must be scored for
        every system (drop incomplete segments first); scores must be finite.
    n_resamples : int
        Number of random sign patterns ``K`` (``method="permutation"``).
    rng : None, int or numpy.random.Generator
        The random state of the signs.
    signs : {"bits", "mtme"} or SignMatrix
        How the shared signs are drawn (see :data:`SIGN_RECIPES`), or a matrix from
        :func:`draw_signs` to reuse (it overrides ``n_resamples`` and ``rng``).  The arithmetic
        follows the recipe: ``"mtme"`` multiplies float32 scores by float32 signs, as the toolkit,
        so that float rounding decides near-ties exactly as there; ``"bits"`` sums in float64
        and treats null values within ``1e-11 * max_s sum_l |x_sl|`` of the observed one as ties,
        so that mathematically equal sums compare equal.
    method : {"permutation", "normal", "exact"}
        ``"permutation"``: Monte-Carlo, one sign matrix shared by all pairs.
        ``"normal"``: ``1 - Phi(T / sqrt(sum d^2))``, the normal approximation of the
        sign-flip distribution (close to the exact p-value for many segments), deterministic.
        ``"exact"``: all ``2**L`` sign patterns (``L <= 20``).
    ties : {"ge", "mid"}
        ``"ge"`` counts null values equal to the observed one (the reference); ``"mid"`` counts
        them one half, which makes ``P[i, j] + P[j, i] = 1`` and SPA independent of system order.

    Returns
    -------
    ndarray, shape (S, S)
        ``P[i, j]`` (``i < j``) is the p-value of "system ``i`` is better than system ``j``";
        the diagonal and lower triangle are NaN, as in the reference.

    Notes
    -----
    With ``d_l = x_il - x_jl``, ``T = sum_l d_l`` and null draws ``N_k = sum_l s_kl d_l``,
    ``P[i, j] = #{k : N_k >= T} / K`` (no +1, as mt-metrics-eval).  As ``K`` grows it tends to
    the exact p-value over all ``2**L`` patterns; the normal approximation
    ``1 - Phi(T / sqrt(sum_l d_l^2))`` approximates that exact value for many segments.

    References
    ----------
    Thompson, B. et al. (2024). Improving statistical significance in human evaluation of
    automatic metrics via Soft Pairwise Accuracy. WMT. Section 3.2.

    Examples
    --------
    >>> a = [0.8, 0.9, 0.7, 1.0, 0.6]; b = [0.2, 0.3, 0.1, 0.4, 0.0]
    >>> float(pairwise_pvalues([a, b], method="exact")[0, 1])
    0.03125
    >>> float(pairwise_pvalues([a, b], rng=4, signs="mtme")[0, 1])
    0.036
    """
    x, sign_matrix, method, mid = _pairwise_pvalues_iv(scores, n_resamples, rng, signs, method, ties)
    if method == "normal":
        return _normal_pvalues(x, mid)
    if method == "exact":
        sign_matrix = SignMatrix(x.shape[1], packed=sign_kernels._all_patterns(x.shape[1]))
    return _pvalues_from_signs(x, sign_matrix, mid)


def _pvalues_from_signs(x: np.ndarray, signs: SignMatrix, mid: bool) -> np.ndarray:
    if signs.recipe == "mtme":
        x32 = x.astype(np.float32)
        with one_blas_thread():  # the toolkit's float32 product, rounded as on one thread
            null = np.ascontiguousarray((signs.reference @ x32.T).T)
        return sign_kernels._pair_pvalues(null, x32.sum(axis=1), mid, np.float32(0))
    table = sign_kernels._byte_tables(x)
    null = sign_kernels._signed_sums(table, signs.packed)
    return sign_kernels._pair_pvalues(null, sign_kernels._observed_sums(table), mid, sign_kernels.tie_tolerance(x))


def _normal_pvalues(x: np.ndarray, mid: bool) -> np.ndarray:
    out = np.full((x.shape[0], x.shape[0]), np.nan)
    out[np.triu_indices(x.shape[0], 1)] = sign_kernels._normal_upper(x, mid)
    # two rows far below the largest (rescaled to it) can have squared differences that underflow:
    # such a pair is tested on its own, rescaled to its own size (its p-value depends on it alone)
    tiny = np.flatnonzero(np.abs(x).max(axis=1) < 2.0 ** -400)
    for a, i in enumerate(tiny):
        for j in tiny[a + 1:]:
            out[i, j] = sign_kernels._normal_upper(rescaled(x[[i, j]]), mid)[0]
    return out

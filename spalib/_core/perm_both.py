"""PERM-BOTH kernels: both metrics' statistics on every draw of swapped cells, updated from the
observed sums rather than recomputed.  No validation here.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from spalib._core.meta import _pairwise_agreement, spa_from_matrix, spa_of_uppers
from spalib._core.signs import _lowest_bit, _normal_upper, _pair_pvalues, _unpack_bits


@njit(cache=True)
def _hybrids(a, b, swap):
    a2 = a.copy()
    b2 = b.copy()
    n_systems, n_segments = a.shape
    for s in range(n_systems):
        for l in range(n_segments):
            if (swap[s, l >> 3] >> (l & 7)) & 1:
                a2[s, l] = b[s, l]
                b2[s, l] = a[s, l]
    return a2, b2


@njit(cache=True)
def _subset_sums(diff):
    """``table[s, g, m] = sum of diff[s, 8g + b] over the bits b set in m`` (plain, unsigned)."""
    n_systems, n_segments = diff.shape
    n_groups = (n_segments + 7) // 8
    low = _lowest_bit()
    table = np.zeros((n_systems, n_groups, 256))
    for s in range(n_systems):
        for g in range(n_groups):
            for m in range(1, 256):
                seg = 8 * g + low[m]
                table[s, g, m] = table[s, g, m & (m - 1)] + (diff[s, seg] if seg < n_segments else 0.0)
    return table


def _perm_both_spa_permutation(null_a, obs_a, null_b, obs_b, diff, masks, sign_bits, human_upper, mid, tol):
    """SPA of both hybrids for every draw, without rebuilding any null sum from scratch.

    Moving cell (s, l) from ``a`` to ``b``'s value adds ``d = b - a`` to ``a``'s row; under sign
    pattern k it adds ``sign_kl * d`` to the null sum, i.e. ``2 * [bit_kl] * d - d``.  Over all
    moved cells that is ``2 * (B @ (W * d)) - sum(W * d)`` with ``B`` the K x L sign bits: one
    float64 matrix product for a block of draws (BLAS does in it ~3x the work per second that
    table look-ups do).  ``b``'s hybrid moves by the opposite amount.
    """
    n_draws, n_systems = masks.shape[:2]
    moved = _unpack_bits(masks, diff.shape[1]) * diff  # draws x systems x segments
    moved = moved.reshape(n_draws * n_systems, diff.shape[1])
    shifts = moved @ sign_bits.T  # (draws * systems) x K; sign_bits is float64 0/1
    return _spa_of_hybrids(null_a, obs_a, null_b, obs_b, shifts.reshape(n_draws, n_systems, -1),
                           moved.sum(axis=1).reshape(n_draws, n_systems), human_upper, mid, tol)


@njit(cache=True, parallel=True)
def _spa_of_hybrids(null_a, obs_a, null_b, obs_b, shifts, moved, human_upper, mid, tol):
    n_draws = shifts.shape[0]
    n_systems, n_perm = null_a.shape
    out_a = np.empty(n_draws)
    out_b = np.empty(n_draws)
    for t in prange(n_draws):
        hyb_a = np.empty((n_systems, n_perm))
        hyb_b = np.empty((n_systems, n_perm))
        ta = obs_a + moved[t]
        tb = obs_b - moved[t]
        for s in range(n_systems):
            for k in range(n_perm):
                shift = 2.0 * shifts[t, s, k] - moved[t, s]
                hyb_a[s, k] = null_a[s, k] + shift
                hyb_b[s, k] = null_b[s, k] - shift
        out_a[t] = spa_from_matrix(human_upper, _pair_pvalues(hyb_a, ta, mid, tol))
        out_b[t] = spa_from_matrix(human_upper, _pair_pvalues(hyb_b, tb, mid, tol))
    return out_a, out_b


@njit(cache=True, parallel=True)
def _perm_both_spa_normal(a, b, masks, human_upper, mid):
    n_draws = masks.shape[0]
    out_a = np.empty(n_draws)
    out_b = np.empty(n_draws)
    for t in prange(n_draws):
        a2, b2 = _hybrids(a, b, masks[t])
        out_a[t] = spa_of_uppers(human_upper, _normal_upper(a2, mid))
        out_b[t] = spa_of_uppers(human_upper, _normal_upper(b2, mid))
    return out_a, out_b


@njit(cache=True, parallel=True)
def _perm_both_pa(sum_a, sum_b, diff_sums, masks, human_sys, tol):
    """Pairwise accuracy of both hybrids' system means: only each system's total moves, by the
    sum of the swapped cells' differences (subset-sum look-ups, 8 cells at a time).
    """
    n_draws = masks.shape[0]
    n_systems, n_groups, _ = diff_sums.shape
    out_a = np.empty(n_draws)
    out_b = np.empty(n_draws)
    for t in prange(n_draws):
        ta = sum_a.copy()
        tb = sum_b.copy()
        for s in range(n_systems):
            moved = 0.0
            for g in range(n_groups):
                moved += diff_sums[s, g, masks[t, s, g]]
            ta[s] += moved
            tb[s] -= moved
        agree_a, pairs = _pairwise_agreement(human_sys, ta, tol)
        agree_b, _ = _pairwise_agreement(human_sys, tb, tol)
        out_a[t] = agree_a / pairs
        out_b[t] = agree_b / pairs
    return out_a, out_b

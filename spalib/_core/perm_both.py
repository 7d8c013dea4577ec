"""PERM-BOTH kernels: both metrics' statistics on every draw of swapped cells, updated from the
observed sums rather than recomputed.  No validation here.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import os
import threading

import numba
import numpy as np
from numba import njit, prange
from threadpoolctl import ThreadpoolController

from spalib._core.extreme import reaches
from spalib._core.meta import _pairwise_agreement, pdp_of_columns, spa_from_matrix, spa_of_uppers
from spalib._core.signs import _count_beyond, _lowest_bit, _normal_upper, _pvalue


@njit(cache=True)
def _hybrids(a, b, swap):
    a2 = np.empty_like(a)
    b2 = np.empty_like(b)
    n_systems, n_segments = a.shape
    for s in range(n_systems):
        for l in range(n_segments):
            x, y = a[s, l], b[s, l]   # both read: a select, not a branch the swaps make random
            swapped = (swap[s, l >> 3] >> (l & 7)) & 1
            a2[s, l] = y if swapped else x
            b2[s, l] = x if swapped else y
    return a2, b2


@njit(cache=True)
def _subset_sums(diff, width=8):
    """``table[s, g, m] = sum of diff[s, width * g + b] over the bits b set in m`` (plain,
    unsigned), for groups of ``width`` (8: a byte, 4: a nibble) cells, zero past the last one.
    """
    n_systems, n_segments = diff.shape
    n_groups = (n_segments + width - 1) // width
    low = _lowest_bit()
    table = np.zeros((n_systems, n_groups, 1 << width))
    for s in range(n_systems):
        for g in range(n_groups):
            for m in range(1, 1 << width):
                seg = width * g + low[m]
                table[s, g, m] = table[s, g, m & (m - 1)] + (diff[s, seg] if seg < n_segments else 0.0)
    return table


FLOAT32_MAX_CELLS = 2048
"""Above this many segments (padded to whole bytes) the PERM-BOTH product runs in float64: the
float32 error bound grows like L**2 and the spread of the null like sqrt(L), so more and more
comparisons would need deciding again (at 4,000 segments the float32 path is the slower)."""


def product_dtype(n_cells: int):
    """The dtype of the PERM-BOTH block product for ``n_cells`` padded segments."""
    return np.float32 if n_cells <= FLOAT32_MAX_CELLS else np.float64


def spa_pair_inputs(sums_a, sums_b, diff, n_cells):
    """What :func:`_perm_both_spa_permutation` takes of a metric pair besides both metrics' null
    and observed sums (``sums_a``, ``sums_b``): a bound on every row's ``|null|`` and ``|obs|``,
    the differences ``diff = b - a`` padded with zeros to ``n_cells`` segments, and their
    nibble sums (for the float64 re-decisions).
    """
    magnitude = np.max([np.maximum(np.abs(null).max(axis=1), np.abs(obs)) for null, obs in (sums_a, sums_b)],
                       axis=0)
    padded = np.zeros((diff.shape[0], n_cells))
    padded[:, :diff.shape[1]] = diff
    return magnitude, padded, _subset_sums(padded, 4)


def _perm_both_spa_permutation(null_a, obs_a, null_b, obs_b, magnitude, padded, nibbles, masks, sign_bits, packed,
                               human_upper, mid, tol):
    """SPA of both hybrids for every draw, without rebuilding any null sum from scratch.

    Moving cell (s, l) from ``a`` to ``b``'s value adds ``d = b - a`` to ``a``'s row; under sign
    pattern k it adds ``sign_kl * d`` to the null sum, i.e. ``2 * [bit_kl] * d - d``.  Over all
    moved cells that is ``2 * (B @ (W * d)) - sum(W * d)`` with ``B`` the K x L sign bits: one
    matrix product for a block of draws, most of the time, in the dtype of ``sign_bits``
    (:func:`product_dtype`: float32, faster than BLAS's float64, up to
    :data:`FLOAT32_MAX_CELLS` segments).  No decision rests on the product's rounding:
    :func:`_certified_pvalues` decides again, from float64 sums, every comparison within the
    product's proven error bound of its threshold.  The bound assumes a conventional BLAS
    product (round to nearest, with or without FMA, any blocking; not Strassen-like or reduced
    precision) and finite values (the metrics are z-scored).  ``b``'s hybrid moves by the
    opposite amount.  ``magnitude[s]`` bounds ``|null|`` and ``|obs|`` of both metrics' row ``s``.
    """
    n_draws, n_systems, n_groups = masks.shape
    moved = np.empty((n_draws * n_systems, 8 * n_groups), dtype=sign_bits.dtype)
    total, size, count = _moved_cells(masks, padded, moved)
    shifts = _sign_product(moved, sign_bits)  # (draws * systems) x K; sign_bits is 0/1
    info = np.finfo(sign_bits.dtype)
    return _spa_of_hybrids(null_a, obs_a, null_b, obs_b, magnitude, shifts.reshape(n_draws, n_systems, -1),
                           total, size, count, float(info.eps) / 2, float(info.tiny), nibbles, masks, packed,
                           human_upper, mid, tol)


@functools.cache
def _blas():
    return ThreadpoolController()


@functools.cache
def _threads(n: int) -> concurrent.futures.ThreadPoolExecutor:
    return concurrent.futures.ThreadPoolExecutor(n, thread_name_prefix="spalib-product")


# a forked child has the pools but not their threads: it makes its own
os.register_at_fork(after_in_child=_threads.cache_clear)
_ONE_PRODUCT_AT_A_TIME = threading.Lock()  # the BLAS limit is process-wide: one caller sets it


def _sign_product(moved, sign_bits):
    """``moved @ sign_bits.T`` in as many row blocks as numba has threads, each a one-thread BLAS
    product on a thread of its own (with one numba thread: one product on BLAS's threads).

    A product on BLAS's own threads leaves them spinning when it ends (OpenBLAS: 2**28 cycles,
    ~0.1 s), taking cores from the numba kernel that follows: WMT23 zh-en, 100 draws on two
    cores, 26.7 ms a block that way, 22.4 ms this way.  The rounding of the product may change
    with the blocks; no decision does (:func:`_certified_pvalues`'s bound holds for any order).
    """
    n_rows = moved.shape[0]
    n_blocks = min(numba.get_num_threads(), n_rows)
    if n_blocks <= 1:
        return moved @ sign_bits.T
    out = np.empty((n_rows, sign_bits.shape[0]), dtype=moved.dtype)
    cuts = np.linspace(0, n_rows, n_blocks + 1).astype(int)

    def block(b):
        np.matmul(moved[cuts[b]:cuts[b + 1]], sign_bits.T, out=out[cuts[b]:cuts[b + 1]])

    with one_blas_thread():
        list(_threads(n_blocks).map(block, range(n_blocks)))
    return out


@contextlib.contextmanager
def one_blas_thread():
    """BLAS on one thread inside: a product's rounding then does not follow BLAS's thread count
    (OpenBLAS splits a float32 product's sums differently on two threads than on one).
    """
    with _ONE_PRODUCT_AT_A_TIME, _blas().limit(limits=1, user_api="blas"):
        yield


@njit(cache=True, parallel=True)
def _moved_cells(masks, padded, moved):
    """Fills ``moved`` (draws * systems x segments padded to whole bytes, in the product's dtype)
    with the swapped cells' differences, zero elsewhere; returns per draw and system their sum,
    the sum of their absolute values (float64) and their number.
    """
    n_draws, n_systems, n_groups = masks.shape
    total = np.empty((n_draws, n_systems))
    size = np.empty((n_draws, n_systems))
    count = np.empty((n_draws, n_systems), dtype=np.int64)
    for t in prange(n_draws):
        for s in range(n_systems):
            row = t * n_systems + s
            plain = 0.0
            absolute = 0.0
            swapped = 0
            for g in range(n_groups):
                byte = masks[t, s, g]
                for b in range(8):
                    bit = (byte >> b) & 1
                    value = bit * padded[s, 8 * g + b]
                    moved[row, 8 * g + b] = value
                    plain += value
                    absolute += abs(value)
                    swapped += bit
            total[t, s] = plain
            size[t, s] = absolute
            count[t, s] = swapped
    return total, size, count


_U64 = 2.0 ** -53  # unit roundoff of float64


@njit(cache=True)
def _hybrid_error(size, magnitude, n_terms, unit, tiny):
    """A bound on how far a hybrid's null value from the block product (unit roundoff ``unit``,
    smallest normal ``tiny``) is from its value with the shift summed in float64 in any order.

    The product sums ``n`` terms ``w_l * bit`` (the swapped cells; the others are zero and add
    exactly) whose absolute values sum to ``size``: converted to the product's dtype and summed
    in any order, it is off by at most ``(u + gamma_n) * size``, ``gamma_n = n u / (1 - n u)``
    (Higham 2002, 3.1 and 4.2), doubled in the hybrid.  Higham's model has no underflow: a cell
    or a partial sum below the normal range may be flushed to zero, at most ``n`` flushes of at
    most ``tiny`` each (a flushed value is not amplified later).  The float64 terms bound every
    float64 sum and rounding on either side (including the re-decided sums) with room to spare.
    A pair's margin is the sum of its two systems' bounds.
    """
    gamma = n_terms * unit / (1.0 - n_terms * unit)
    gamma64 = n_terms * _U64 / (1.0 - n_terms * _U64)
    flushed = 2.0 * n_terms * tiny
    return ((2.0 * (unit + gamma) * size + flushed + 16.0 * gamma64 * size + 16.0 * _U64 * (magnitude + 3.0 * size))
            * (1.0 + 1e-3))


@njit(cache=True)
def _exact_hybrid(s, k, direction, null, total, exact, nibbles, mask, packed):
    """Hybrid null value ``(s, k)`` with the shift summed in float64 over the cells both swapped
    and kept by pattern ``k`` (nibble-sum look-ups, 4 cells at a time), computed once per draw
    and cached in ``exact``.
    """
    if np.isnan(exact[s, k]):
        # two running sums, one per nibble, combined at the end: half the chain of dependent adds
        low = 0.0
        high = 0.0
        for g in range(mask.shape[1]):
            both = mask[s, g] & packed[k, g]
            low += nibbles[s, 2 * g, both & 15]
            high += nibbles[s, 2 * g + 1, both >> 4]
        exact[s, k] = low + high
    return null[s, k] + direction * (2.0 * exact[s, k] - total[s])


_BLOCK = 128  # permutations counted together before a block is checked for unsettled values


@njit(cache=True)
def _certified_pvalues(hyb, observed, error, direction, null, total, exact, nibbles, mask, packed, mid, tol):
    """:func:`spalib._core.signs._pair_pvalues` of hybrid null values known to within
    ``error[s]``.  Each block of permutations is counted against the thresholds widened by the
    pair's bound; if no value falls between them (nearly always), every comparison is settled
    and there are no ties.  Otherwise the block is counted again with the values within the
    bound decided in float64 (:func:`_exact_hybrid`).
    """
    n_systems, n_perm = hyb.shape
    out = np.full((n_systems, n_systems), np.nan)
    for i in range(n_systems):
        for j in range(i + 1, n_systems):
            obs = observed[i] - observed[j]
            near = error[i] + error[j] + tol  # within this of obs: within the bound of a threshold
            at_least = 0
            above = 0
            for start in range(0, n_perm, _BLOCK):
                stop = min(start + _BLOCK, n_perm)
                beyond_low, beyond_high = _count_beyond(hyb[i, start:stop], hyb[j, start:stop], obs - near,
                                                        obs + near)
                if beyond_low == beyond_high:
                    at_least += beyond_high
                    above += beyond_high
                    continue
                for k in range(start, stop):
                    d = hyb[i, k] - hyb[j, k]
                    if abs(d - obs) <= near:
                        d = (_exact_hybrid(i, k, direction, null, total, exact, nibbles, mask, packed)
                             - _exact_hybrid(j, k, direction, null, total, exact, nibbles, mask, packed))
                    at_least += reaches(d, obs, tol, False)
                    above += d > obs + tol
            out[i, j] = _pvalue(at_least, above, n_perm, mid)
    return out


@njit(cache=True, parallel=True)
def _spa_of_hybrids(null_a, obs_a, null_b, obs_b, magnitude, shifts, total, size, count, unit, tiny, nibbles, masks,
                    packed, human_upper, mid, tol):
    n_draws = shifts.shape[0]
    n_systems, n_perm = null_a.shape
    out_a = np.empty(n_draws)
    out_b = np.empty(n_draws)
    for t in prange(n_draws):
        hyb_a = np.empty((n_systems, n_perm))
        hyb_b = np.empty((n_systems, n_perm))
        ta = obs_a + total[t]
        tb = obs_b - total[t]
        error = np.empty(n_systems)
        for s in range(n_systems):
            error[s] = _hybrid_error(size[t, s], magnitude[s], count[t, s], unit, tiny)
            for k in range(n_perm):
                shift = 2.0 * np.float64(shifts[t, s, k]) - total[t, s]
                hyb_a[s, k] = null_a[s, k] + shift
                hyb_b[s, k] = null_b[s, k] - shift
        exact = np.full((n_systems, n_perm), np.nan)  # float64 shifts, computed where needed
        out_a[t] = spa_from_matrix(human_upper, _certified_pvalues(hyb_a, ta, error, 1.0, null_a, total[t], exact,
                                                                   nibbles, masks[t], packed, mid, tol))
        out_b[t] = spa_from_matrix(human_upper, _certified_pvalues(hyb_b, tb, error, -1.0, null_b, total[t], exact,
                                                                   nibbles, masks[t], packed, mid, tol))
    return out_a, out_b


@njit(cache=True)
def normal_spa_of_hybrids(a, b, mask, human_upper, mid):
    """SPA with normal-approximation p-values of both hybrids of one draw (``mask``: systems x groups of
    8 segments, bit set = swapped): the one PERM hybrid SPA of the engine and the simulation lab.
    """
    a2, b2 = _hybrids(a, b, mask)
    return spa_of_uppers(human_upper, _normal_upper(a2, mid)), spa_of_uppers(human_upper, _normal_upper(b2, mid))


@njit(cache=True, parallel=True)
def _perm_both_spa_normal(a, b, masks, human_upper, mid):
    n_draws = masks.shape[0]
    out_a = np.empty(n_draws)
    out_b = np.empty(n_draws)
    for t in prange(n_draws):
        out_a[t], out_b[t] = normal_spa_of_hybrids(a, b, masks[t], human_upper, mid)
    return out_a, out_b


@njit(cache=True)
def pdp_of_hybrids(a, b, mask, human):
    """The pairwise difference Pearson correlation within segments of both hybrids of one draw."""
    a2, b2 = _hybrids(a, b, mask)
    return pdp_of_columns(human, a2), pdp_of_columns(human, b2)


@njit(cache=True, parallel=True)
def _perm_both_pdp(a, b, masks, human):
    n_draws = masks.shape[0]
    out_a = np.empty(n_draws)
    out_b = np.empty(n_draws)
    for t in prange(n_draws):
        out_a[t], out_b[t] = pdp_of_hybrids(a, b, masks[t], human)
    return out_a, out_b


@njit(cache=True)
def pa_of_hybrids(sum_a, sum_b, diff_sums, mask, human_sys, tol):
    """Pairwise accuracy of both hybrids' system means for one draw (``mask``: systems x groups
    of 8 segments, bit set = swapped), from both metrics' system totals and the subset sums of
    ``b - a`` (:func:`_subset_sums`): only each system's total moves, by the sum of its swapped
    cells' differences, 8 cells a look-up.  The one PERM hybrid PA of the engine and the lab.
    """
    n_systems, n_groups, _ = diff_sums.shape
    ta = sum_a.copy()
    tb = sum_b.copy()
    for s in range(n_systems):
        moved = 0.0
        for g in range(n_groups):
            moved += diff_sums[s, g, mask[s, g]]
        ta[s] += moved
        tb[s] -= moved
    agree_a, pairs = _pairwise_agreement(human_sys, ta, tol)
    agree_b, _ = _pairwise_agreement(human_sys, tb, tol)
    return agree_a / pairs, agree_b / pairs


@njit(cache=True, parallel=True)
def _perm_both_pa(sum_a, sum_b, diff_sums, masks, human_sys, tol):
    """:func:`pa_of_hybrids` for every draw."""
    n_draws = masks.shape[0]
    out_a = np.empty(n_draws)
    out_b = np.empty(n_draws)
    for t in prange(n_draws):
        out_a[t], out_b[t] = pa_of_hybrids(sum_a, sum_b, diff_sums, masks[t], human_sys, tol)
    return out_a, out_b


@njit(cache=True, parallel=True)
def _moved_sums(masks, steps, group, n_groups):
    """For every draw and group, the sum of ``steps`` (cells x k, cells in systems x segments row
    order; ``group``: each cell's group) over the cells its mask swaps (``masks``: draws x
    systems x groups of 8 segments), in one fixed order whatever the thread count.
    """
    n_draws, n_systems, n_bytes = masks.shape
    n_cells, k = steps.shape
    n_segments = n_cells // n_systems
    out = np.zeros((n_draws, n_groups, k))
    for t in prange(n_draws):
        for s in range(n_systems):
            for g in range(n_bytes):
                byte = masks[t, s, g]
                for bit in range(8):
                    seg = 8 * g + bit
                    if seg < n_segments and (byte >> bit) & 1:
                        cell = s * n_segments + seg
                        for j in range(k):
                            out[t, group[cell], j] += steps[cell, j]
    return out

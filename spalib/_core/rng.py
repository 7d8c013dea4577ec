"""SplitMix64: counter-based random streams, identical for any thread count.  The bootstrap's
resamples, the simulation lab's and every test between metrics' draws come from them: byte
``i`` of the stream ``key`` is a pure function of ``(key, i)``, so a draw does not depend on
the draws made before it.
"""

from __future__ import annotations

import numpy as np
from numba import njit


GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def mix64(z):
    """SplitMix64's finaliser: a bijective scramble of 64 bits (counter-based random numbers)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def stream_key(seed, index):
    """The key of stream ``index`` (a bootstrap group, a replication) under a 64-bit ``seed``:
    independent of the thread that draws from it.
    """
    return mix64(np.uint64(seed) ^ mix64((np.uint64(index) + np.uint64(1)) * GOLDEN))


@njit(cache=True)
def _word(key, counter):
    # np.uint64: a key that came through Python as an int is typed int64, and int64 + uint64 is a
    # float in numba
    return mix64(np.uint64(key) + np.uint64(counter + 1) * GOLDEN)


@njit(cache=True)
def _byte(key, index):
    """Byte ``index`` of the stream: eight bytes per 64-bit word."""
    return np.uint8((_word(key, index >> 3) >> np.uint64(8 * (index & 7))) & np.uint64(255))


@njit(cache=True)
def sign_patterns(key, first_draw, n_draws, n_segments):
    """Draws ``first_draw, ...`` of the stream as packed sign patterns (draws x groups of 8
    segments), in :class:`spalib.SignMatrix`'s layout (bit set = keep the pair as observed).
    """
    n_groups = (n_segments + 7) // 8
    packed = np.empty((n_draws, n_groups), dtype=np.uint8)
    for k in range(n_draws):
        for g in range(n_groups):
            packed[k, g] = _byte(key, (first_draw + k) * n_groups + g)
    return packed


@njit(cache=True)
def swap_masks(key, first_draw, n_draws, scheme, n_systems, n_groups):
    """Packed swap bits (draws x systems x groups), the layout of the library's PERM draws:
    every cell (``scheme`` 0, PERM-BOTH), every segment (1, PERM-INPUTS) or every system (2,
    PERM-SYSTEMS; the codes are positions in :data:`spalib._core.vocabulary.SCHEMES`) swapped
    between the two metrics with probability 1/2.
    """
    masks = np.empty((n_draws, n_systems, n_groups), dtype=np.uint8)
    for k in range(n_draws):
        draw = first_draw + k
        for s in range(n_systems):
            if scheme == 2:
                bit = _byte(key, draw * n_systems + s) & np.uint8(1)
                for g in range(n_groups):
                    masks[k, s, g] = np.uint8(255) if bit else np.uint8(0)
            else:
                for g in range(n_groups):
                    cell = s * n_groups + g if scheme == 0 else g
                    width = n_systems * n_groups if scheme == 0 else n_groups
                    masks[k, s, g] = _byte(key, draw * width + cell)
    return masks

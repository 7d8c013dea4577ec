"""SplitMix64: counter-based random streams, identical for any thread count (the bootstrap's and
the pairs test's resamples are drawn from them).
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

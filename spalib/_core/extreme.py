"""At least as extreme: the one rule by which every test of the library and of its simulation lab
counts its draws.

A draw ``d`` reaches the observed value ``o`` when ``d >= o - tol`` (one-sided, in the observed
direction) or ``|d| >= |o| - tol`` (two-sided).  The tolerance is one of two:

- **0, plain floating point**, in the PERM tests of PA and SPA (:func:`spalib.compare_metrics`
  and the lab's twin of it), as the paper's code and mt-metrics-eval compare: a draw that equals
  ``o`` in exact arithmetic may round either side of it (PA's 1/66 - 0/66 and 9/66 - 8/66 are
  different doubles), and that rule, quirks included, is the one that fits the SPA paper's
  Table 1 (the chapter "PA's ties" measures it).
- **the tie tolerance** of the terms the two values are sums or differences of
  (:func:`spalib._core.signs.tie_tolerance`: ``1e-11`` times the sum of their magnitudes)
  everywhere else: the sign-flip tests, the averages over tasks, and
  :meth:`spalib.MetricRanking.versus`'s recount for a verdict of one's own, where a tie is
  counted as a tie.  :meth:`spalib.MetricComparison.recount` keeps the test's own tolerance.
"""

from __future__ import annotations

import numpy as np
from numba import njit


def count_extreme(null: np.ndarray, observed: float, tolerance: float, alternative: str) -> int:
    """How many null draws reach ``observed`` (see the module's rule)."""
    if alternative == "two-sided":
        return int(np.sum(np.abs(null) >= abs(observed) - tolerance))
    return int(np.sum(null >= observed - tolerance))


@njit(cache=True)
def reaches(draw, observed, tolerance, two_sided):
    """:func:`count_extreme`'s rule for one draw, in the kernels."""
    if two_sided:
        return abs(draw) >= abs(observed) - tolerance
    return draw >= observed - tolerance

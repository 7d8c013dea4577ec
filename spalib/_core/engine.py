"""The one resampling engine: a loop over metric pairs with a pluggable statistic.

As scipy has ``permutation_test`` and mt-metrics-eval ``PermutationSigDiff``, every significance
test between metrics in spalib runs :func:`pair_tests`: for each pair (better, worse) of metrics
sorted best first it asks the statistic for null draws of ``stat(better') - stat(worse')`` in
blocks, counts the draws at least as extreme as the observed difference, and stops early when
asked.  A statistic is any object with a method ``pair(better, worse) -> (delta, tolerance,
draw)``: the observed difference, how far below it (in absolute value) a draw still counts as
reaching it (0: plain floating point), and ``draw(size, rng) -> ndarray`` of ``size`` null draws,
with whatever the pair needs precomputed once.

The random streams of a test are built in one place, :func:`make_streams`, and described by
:func:`describe_seed` for the result's ``settings``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm


@dataclass(frozen=True)
class Streams:
    """The named random streams of a test between metrics.

    ``signs`` draws the statistic's own sign patterns (SPA's permutation p-values): a Generator,
    or an int seed for mt-metrics-eval's recipe; ``swaps`` draws what each null draw swaps
    between the two metrics.  With the ``"bits"`` recipe both are one Generator, consumed signs
    first (so a seed gives the same results as before the streams were named).
    """

    signs: object
    swaps: np.random.Generator
    seed: object


def describe_seed(rng) -> object:
    """What reproduces a random state: an int seed, or a Generator's bit generator and its state
    before the first draw (``numpy.random.Generator(getattr(numpy.random, s["bit_generator"])())``
    with ``.bit_generator.state = s["state"]`` draws the same numbers, however it was seeded).
    """
    if isinstance(rng, numbers.Integral):
        return int(rng)
    return {"bit_generator": type(rng.bit_generator).__name__, "state": rng.bit_generator.state}


def make_streams(rng, recipe: str) -> Streams:
    """The streams of one test from a validated ``rng`` (an int seed for ``"mtme"``, else a Generator)."""
    if recipe == "mtme":
        # the toolkit's signs for this seed; the swaps get their own stream of the same seed
        return Streams(signs=int(rng), swaps=np.random.default_rng([int(rng), 1]), seed=int(rng))
    return Streams(signs=rng, swaps=rng, seed=describe_seed(rng))


def count_extreme(null: np.ndarray, delta: float, tolerance: float, alternative: str) -> int:
    """How many null draws are at least as extreme as ``delta``: ``null >= delta - tol``
    (``"greater"``) or ``|null| >= |delta| - tol`` (``"two-sided"``).
    """
    if alternative == "two-sided":
        return int(np.sum(np.abs(null) >= abs(delta) - tolerance))
    return int(np.sum(null >= delta - tolerance))


def metric_pairs(order: list) -> list[tuple]:
    """Every (better, worse) pair of metrics sorted best first, as positions ``(i, j)``, ``i < j``."""
    return [(i, j) for i in range(len(order)) for j in range(i + 1, len(order))]


def pair_tests(statistic, order: list, *, n_resamples: int, block: int, alternative: str,
               rng: np.random.Generator, early_min: float = -np.inf, early_max: float = np.inf,
               progress=False, label: str = ""):
    """p-values, draws used and null draws of every pair of ``order`` (sorted best first).

    The test of a pair stops after a block once the running p-value is below ``early_min`` or
    above ``early_max`` (mt-metrics-eval's early stopping); ``p = extreme draws / draws``, no +1.
    """
    n = len(order)
    pvalues = np.full((n, n), np.nan)
    draws = np.zeros((n, n), dtype=int)
    nulls = {}
    for i, j in tqdm(metric_pairs(order), desc=progress if isinstance(progress, str) else label,
                     disable=not progress):
        better, worse = order[i], order[j]
        delta, tolerance, draw = statistic.pair(better, worse)
        count = used = 0
        parts = []
        while used < n_resamples:
            size = min(block, n_resamples - used)
            try:
                parts.append(draw(size, rng))
            except SystemError as error:   # Ctrl-C inside a numba kernel surfaces as a SystemError
                if isinstance(error.__cause__, KeyboardInterrupt):
                    raise KeyboardInterrupt from None
                raise
            count += count_extreme(parts[-1], delta, tolerance, alternative)
            used += size
            if count / used < early_min or count / used > early_max:
                break
        pvalues[i, j] = count / used
        draws[i, j] = used
        nulls[(better, worse)] = np.concatenate(parts)
    return pvalues, draws, nulls

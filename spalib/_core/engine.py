"""The one resampling engine: a loop over metric pairs with a pluggable meta-metric.

As scipy has ``permutation_test`` and mt-metrics-eval ``PermutationSigDiff``, every significance
test between metrics in spalib runs :func:`pair_tests`: for each pair (better, worse) of metrics
sorted best first it asks the meta-metric's tester for null draws of ``stat(better') - stat(worse')`` in
blocks, counts the draws at least as extreme as the observed difference, and stops early when
asked.  A tester is any object with a method ``pair(better, worse) -> (delta, tolerance,
draw)``: the observed difference, how far below it (in absolute value) a draw still counts as
reaching it (0: plain floating point), and ``draw(key, first, size) -> ndarray``, the null draws
``first, ..., first + size - 1`` of the counter-based stream ``key``, with whatever the pair
needs precomputed once.

Each pair draws from a stream of its own, keyed by the test's int seed, the kind of draw (PERM
swaps or the pairs test's signs) and the two metrics' names (:func:`pair_key`): a pair's
p-value does not depend on which other metrics or meta-metrics share the call, and early stopping
only cuts a pair's stream short.
"""

from __future__ import annotations

import hashlib
import numbers

import numpy as np
from tqdm import tqdm

from spalib._core.extreme import count_extreme


def root_seed(rng) -> int:
    """The int seed a test's streams derive from: the int given, else one drawn from the
    Generator (``None``: a fresh one).  Passing it back as ``rng`` reproduces the test.
    """
    if isinstance(rng, numbers.Integral) and not isinstance(rng, (bool, np.bool_)):
        return int(rng)
    return int(np.random.default_rng(rng).integers(2 ** 63))


def describe_seed(rng) -> object:
    """What reproduces a random state: an int seed, or a Generator's bit generator and its state
    before the first draw (``numpy.random.Generator(getattr(numpy.random, s["bit_generator"])())``
    with ``.bit_generator.state = s["state"]`` draws the same numbers, however it was seeded).
    """
    if isinstance(rng, numbers.Integral):
        return int(rng)
    return {"bit_generator": type(rng.bit_generator).__name__, "state": rng.bit_generator.state}


def derived_seed(seed: int, *labels) -> int:
    """An int seed of its own for ``labels`` (a task, say) under ``seed``."""
    return int(pair_key(seed, *labels) >> np.uint64(1))


def pair_key(seed: int, *labels) -> np.uint64:
    """The 64-bit key of the stream of ``labels`` (stream, better, worse) under ``seed``: a hash
    of their text, the same in every process and on every machine.
    """
    text = "\x1f".join(str(part) for part in (seed, *labels))
    return np.uint64(int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little"))


def metric_pairs(order: list) -> list[tuple]:
    """Every (better, worse) pair of metrics sorted best first, as positions ``(i, j)``, ``i < j``."""
    return [(i, j) for i in range(len(order)) for j in range(i + 1, len(order))]


def pair_tests(tester, order: list, *, n_resamples: int, block: int, alternative: str, seed: int,
               stream: str, early_min: float = -np.inf, early_max: float = np.inf, progress=False,
               label: str = ""):
    """p-values, draws used, null draws and tolerances of every pair of ``order`` (sorted best first).

    A pair draws from the stream ``pair_key(seed, stream, *sorted(names))``: whichever way round
    it is tested, its swaps are the same (and its draws of the difference change sign).  The
    test of a pair stops after a block once the running p-value is below ``early_min`` or above
    ``early_max`` (mt-metrics-eval's early stopping); ``p = extreme draws / draws``, no +1.
    """
    n = len(order)
    pvalues = np.full((n, n), np.nan)
    draws = np.zeros((n, n), dtype=int)
    nulls, tolerances = {}, {}
    for i, j in tqdm(metric_pairs(order), desc=progress if isinstance(progress, str) else label,
                     disable=not progress):
        better, worse = order[i], order[j]
        delta, tolerance, draw = tester.pair(better, worse)
        key = pair_key(seed, stream, *sorted((str(better), str(worse))))   # either way round
        count = used = 0
        parts = []
        while used < n_resamples:
            size = min(block, n_resamples - used)
            try:
                parts.append(draw(key, used, size))
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
        tolerances[(better, worse)] = tolerance
    return pvalues, draws, nulls, tolerances

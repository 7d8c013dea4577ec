"""Private numba kernel of :mod:`spalib.annotators`: the within-output variance from pairs of
judgements by different annotators.  No validation here.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def _different_annotator_pairs(scores, output_codes, annotator_codes, starts):
    """Sum of (x_a - x_b)^2 / 2 and count over pairs of one output's judgements by two annotators;
    each output's judgements are contiguous, between ``starts[g]`` and ``starts[g + 1]``.
    """
    total, pairs = 0.0, 0
    for g in range(starts.size - 1):
        for a in range(starts[g], starts[g + 1]):
            for b in range(a + 1, starts[g + 1]):
                if annotator_codes[a] != annotator_codes[b]:
                    total += 0.5 * (scores[a] - scores[b]) ** 2
                    pairs += 1
    return total, pairs

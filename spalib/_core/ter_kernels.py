"""Private numba kernels of :mod:`spalib.corpus_metrics`: sacrebleu's TER sufficient statistics
(edits, reference length) of tokenised segments, equal to ``sacrebleu.metrics.TER()``'s.

The search is sacrebleu 2.6.0's (``sacrebleu/metrics/lib_ter.py``), decision for decision:

- the edit distance is a Levenshtein distance restricted to a band of 25 cells either side of the
  pseudo-diagonal ``floor(i * n_ref / n_hyp)`` (wider when the reference is over 50 times longer
  than the hypothesis); the last row is complete; ties prefer match/substitution, then deleting
  a hypothesis word, then inserting a reference word; the alignment is read back from the last
  cell;
- a shift moves a block of 1 to 10 hypothesis words that equal a reference block starting at most
  50 positions away, only when both blocks hold an alignment error and the reference block's
  first word is not aligned inside the hypothesis block; the block is tried right after the
  hypothesis word aligned to each reference word from the one before the block to the block's
  last but one (at the very start for the reference's first word), skipping a target equal to
  the one just tried;
- the best shift has the largest drop of the edit distance, then the longest block, then the
  earliest block, then the earliest target; shifts are taken while the best one lowers the
  distance, and the search stops once 1,000 shifts have been scored in the segment (the shift
  found in that last round is then not taken).

sacrebleu caches the rows of its edit-distance matrices by hypothesis prefix; the rows do not
depend on the cache (every hypothesis of a segment has the same length, hence the same beam), so
here the rows before a shift's first moved word are simply reused.  No validation here.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
BEAM_WIDTH = 25
MAX_SHIFT_CANDIDATES = 1000
INFINITY = 10**16  # sacrebleu's value for cells outside the beam
# operations in the edit-distance matrix: rewriting the hypothesis (rows) into the reference
MATCH, SUBSTITUTE, HYP_ONLY, REF_ONLY, UNDEFINED = 0, 1, 2, 3, 4


@njit(cache=True)
def _beam(n_hyp, n_ref):
    """The reference-to-hypothesis length ratio and the beam half-width sacrebleu uses."""
    ratio = n_ref / n_hyp if n_hyp > 0 else 1.0
    if BEAM_WIDTH < ratio / 2:
        return ratio, int(np.ceil(ratio / 2 + BEAM_WIDTH))
    return ratio, BEAM_WIDTH


@njit(cache=True)
def _band(i, n_hyp, n_ref, ratio, beam):
    """The columns [lo, hi) of row ``i`` that are computed; every other cell is infinite."""
    if i == 0:
        return 0, n_ref + 1
    diagonal = int(np.floor(i * ratio))
    lo = max(0, diagonal - beam)
    hi = n_ref + 1 if i == n_hyp else min(n_ref + 1, diagonal + beam)
    return lo, hi


@njit(cache=True)
def _first_row(row, ops):
    """Row 0: the reference's first j words added, j edits."""
    for j in range(row.size):
        row[j] = j
        ops[j] = REF_ONLY


@njit(cache=True)
def _next_row(previous, row, ops, word, ref, i, n_hyp, ratio, beam):
    """Row ``i`` (hypothesis word ``i - 1`` is ``word``) from row ``i - 1``, inside the band;
    cells outside a row's band are read as infinite (only the band is written).
    """
    n_ref = ref.size
    prev_lo, prev_hi = _band(i - 1, n_hyp, n_ref, ratio, beam)
    lo, hi = _band(i, n_hyp, n_ref, ratio, beam)
    for j in range(lo, hi):
        up = previous[j] if prev_lo <= j < prev_hi else INFINITY
        if j == 0:
            row[0] = up + 1
            ops[0] = HYP_ONLY
            continue
        diagonal = previous[j - 1] if prev_lo <= j - 1 < prev_hi else INFINITY
        left = row[j - 1] if j - 1 >= lo else INFINITY
        best, op = INFINITY, UNDEFINED
        # strict improvements in this order: match/substitution, hypothesis-only, reference-only
        if word == ref[j - 1]:
            if best > diagonal:
                best, op = diagonal, MATCH
        elif best > diagonal + 1:
            best, op = diagonal + 1, SUBSTITUTE
        if best > up + 1:
            best, op = up + 1, HYP_ONLY
        if best > left + 1:
            best, op = left + 1, REF_ONLY
        row[j] = best
        ops[j] = op


@njit(cache=True)
def _fill_matrix(hyp, ref, costs, ops, first, ratio, beam):
    """Rows ``first`` to ``n_hyp`` of the edit-distance matrix (rows before ``first`` are kept)."""
    if first == 0:
        _first_row(costs[0], ops[0])
        first = 1
    for i in range(first, hyp.size + 1):
        _next_row(costs[i - 1], costs[i], ops[i], hyp[i - 1], ref, i, hyp.size, ratio, beam)


@njit(cache=True)
def _distance_from(shifted, ref, costs, start, buffer, scratch_ops, ratio, beam):
    """Edit distance of ``shifted``, whose first ``start`` words are those the rows of ``costs``
    were computed for (so its rows up to ``start`` are those rows).
    """
    n_hyp = shifted.size
    previous = costs[start]
    for i in range(start + 1, n_hyp + 1):
        row = buffer[i % 2]
        _next_row(previous, row, scratch_ops, shifted[i - 1], ref, i, n_hyp, ratio, beam)
        previous = row
    return previous[ref.size]


@njit(cache=True)
def _alignment(ops, n_hyp, n_ref, ratio, beam, align, hyp_errors, ref_errors):
    """Read the edit operations back from the last cell: for each reference word the hypothesis
    position it is aligned to (-1 before the first), and cumulative error counts of hypothesis
    and reference words (``hyp_errors[k]``: errors among the first k words).  False if the path
    meets a cell outside the beam (sacrebleu raises there).
    """
    hyp_error = np.zeros(n_hyp, np.int64)
    ref_error = np.zeros(n_ref, np.int64)
    i, j = n_hyp, n_ref
    while i > 0 or j > 0:
        lo, hi = _band(i, n_hyp, n_ref, ratio, beam)
        op = ops[i, j] if lo <= j < hi else UNDEFINED
        if op == MATCH or op == SUBSTITUTE:
            align[j - 1] = i - 1
            if op == SUBSTITUTE:
                hyp_error[i - 1] = ref_error[j - 1] = 1
            i -= 1
            j -= 1
        elif op == HYP_ONLY:
            hyp_error[i - 1] = 1
            i -= 1
        elif op == REF_ONLY:
            align[j - 1] = i - 1
            ref_error[j - 1] = 1
            j -= 1
        else:
            return False
    hyp_errors[0] = ref_errors[0] = 0
    for k in range(n_hyp):
        hyp_errors[k + 1] = hyp_errors[k] + hyp_error[k]
    for k in range(n_ref):
        ref_errors[k + 1] = ref_errors[k] + ref_error[k]
    return True


@njit(cache=True)
def _shift(words, start, length, target, out):
    """``out``: ``words`` with the block ``[start, start + length)`` moved before ``target``
    (sacrebleu's ``_perform_shift``, Python's clamped slices included).
    """
    n = words.size
    k = 0
    if target < start:
        pieces = ((0, target), (start, start + length), (target, start), (start + length, n))
    elif target > start + length:
        pieces = ((0, start), (start + length, target), (start, start + length), (target, n))
    else:
        middle = min(n, length + target)
        pieces = ((0, start), (start + length, middle), (start, start + length), (middle, n))
    for a, b in pieces:
        for p in range(a, b):
            out[k] = words[p]
            k += 1


@njit(cache=True)
def _best_shift(hyp, ref, costs, align, hyp_errors, ref_errors, checked, ratio, beam, shifted,
                buffer, scratch_ops):
    """The best-ranked shift of this round (sacrebleu's ``_shift``).  Returns (found, drop in edit
    distance, block start, block length, target, shift candidates scored so far in the segment).
    """
    n_hyp, n_ref = hyp.size, ref.size
    before = costs[n_hyp, n_ref]
    found = False
    best_drop, best_length, best_start, best_target = 0, 0, 0, 0
    for start_h in range(n_hyp):
        for start_r in range(n_ref):
            if abs(start_r - start_h) > MAX_SHIFT_DIST:
                continue
            length = 0
            while hyp[start_h + length] == ref[start_r + length] and length < MAX_SHIFT_SIZE:
                length += 1
                # only a block with an error on both sides, not already aligned in place
                if (hyp_errors[start_h + length] > hyp_errors[start_h]
                        and ref_errors[start_r + length] > ref_errors[start_r]
                        and not start_h <= align[start_r] < start_h + length):
                    tried = -1
                    for offset in range(-1, length):
                        target = 0 if start_r + offset == -1 else align[start_r + offset] + 1
                        if target == tried:
                            continue
                        tried = target
                        _shift(hyp, start_h, length, target, shifted)
                        first = min(start_h, target)
                        drop = before - _distance_from(shifted, ref, costs, first, buffer,
                                                       scratch_ops, ratio, beam)
                        checked += 1
                        # ranking: larger drop, longer block, earlier block, earlier target
                        if (not found or drop > best_drop or (drop == best_drop and (
                                length > best_length or (length == best_length and (
                                    start_h < best_start or (start_h == best_start
                                                             and target < best_target)))))):
                            found = True
                            best_drop, best_length = drop, length
                            best_start, best_target = start_h, target
                    if checked >= MAX_SHIFT_CANDIDATES:
                        return found, best_drop, best_start, best_length, best_target, checked
                if n_hyp == start_h + length or n_ref == start_r + length:
                    break
    return found, best_drop, best_start, best_length, best_target, checked


@njit(cache=True)
def _segment_ter(hyp, ref):
    """The (edits, reference length) of one segment (sacrebleu's ``translation_edit_rate``);
    edits -1 if the alignment met a cell outside the beam (where sacrebleu raises).
    """
    n_hyp, n_ref = hyp.size, ref.size
    if n_ref == 0:
        return n_hyp, 0
    ratio, beam = _beam(n_hyp, n_ref)
    costs = np.empty((n_hyp + 1, n_ref + 1), np.int64)
    ops = np.empty((n_hyp + 1, n_ref + 1), np.int8)
    buffer = np.empty((2, n_ref + 1), np.int64)
    scratch_ops = np.empty(n_ref + 1, np.int8)
    align = np.empty(n_ref, np.int64)
    hyp_errors = np.empty(n_hyp + 1, np.int64)
    ref_errors = np.empty(n_ref + 1, np.int64)
    words = hyp.copy()
    shifted = np.empty_like(words)
    _fill_matrix(words, ref, costs, ops, 0, ratio, beam)
    checked, shifts = 0, 0
    while True:
        if not _alignment(ops, n_hyp, n_ref, ratio, beam, align, hyp_errors, ref_errors):
            return -1, n_ref
        found, drop, start, length, target, checked = _best_shift(
            words, ref, costs, align, hyp_errors, ref_errors, checked, ratio, beam, shifted,
            buffer, scratch_ops)
        # sacrebleu checks the candidate budget first: the last round's shift is not taken
        if checked >= MAX_SHIFT_CANDIDATES or not found or drop <= 0:
            break
        _shift(words, start, length, target, shifted)
        words[:] = shifted
        shifts += 1
        _fill_matrix(words, ref, costs, ops, min(start, target) + 1, ratio, beam)
    return shifts + costs[n_hyp, n_ref], n_ref


@njit(cache=True, parallel=True)
def ter_statistics(hyp_words, hyp_starts, ref_words, ref_starts):
    """TER statistics of every segment: segment s's words (integer ids, equal ids for equal
    tokens) are ``hyp_words[hyp_starts[s]:hyp_starts[s + 1]]`` and likewise for the reference.
    Returns segments x 2 (edits, reference length); edits -1 where sacrebleu would raise.
    Each segment is computed on its own, so the result does not depend on the thread count.
    """
    n = hyp_starts.size - 1
    out = np.empty((n, 2))
    # prange hands each thread a contiguous run of blocks; a block strides over the whole corpus,
    # so that the long segments of one language pair do not all fall to one thread
    n_blocks = min(n, 1024)
    for block in prange(n_blocks):
        for s in range(block, n, n_blocks):
            edits, ref_length = _segment_ter(hyp_words[hyp_starts[s]:hyp_starts[s + 1]],
                                             ref_words[ref_starts[s]:ref_starts[s + 1]])
            out[s, 0] = edits
            out[s, 1] = ref_length
    return out

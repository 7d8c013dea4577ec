"""Private numba kernels of :mod:`spalib.corpus_metrics`: sacrebleu's corpus formulas applied to
summed statistics, operation for operation.  No validation here.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

N_STATS = {"bleu": 10, "chrf": 18, "ter": 2}
CODE = {"bleu": 1, "chrf": 2, "ter": 3}  # 0 is the plain mean (in spalib.bootstrap)
# Python >= 3.12 sums floats with Neumaier compensation; sacrebleu's BLEU sums log precisions with sum().
_COMPENSATED_SUM = sys.version_info >= (3, 12)


@njit(cache=True)
def _python_sum(values):
    """``sum(values)`` as CPython computes it (left to right; Neumaier-compensated from 3.12)."""
    total = 0.0
    compensation = 0.0
    for x in values:
        t = total + x
        if _COMPENSATED_SUM:
            if abs(total) >= abs(x):
                compensation += (total - t) + x
            else:
                compensation += (x - t) + total
        total = t
    if _COMPENSATED_SUM and compensation != 0.0 and np.isfinite(compensation):
        total += compensation
    return total


@njit(cache=True)
def _bleu(stats):
    # sacrebleu BLEU.compute_bleu, smooth_method="exp", max order 4, no effective order
    sys_len, ref_len = stats[0], stats[1]
    bp = 1.0
    if sys_len < ref_len:
        bp = np.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    if stats[2] == 0 and stats[3] == 0 and stats[4] == 0 and stats[5] == 0:
        return 0.0
    precisions = np.zeros(4)
    smooth = 1.0
    for n in range(4):
        correct, total = stats[2 + n], stats[6 + n]
        if total == 0:
            break
        if correct == 0:
            smooth *= 2
            precisions[n] = 100.0 / (smooth * total)
        else:
            precisions[n] = 100.0 * correct / total
    logs = np.empty(4)
    for n in range(4):
        logs[n] = -9999999999.0 if precisions[n] == 0 else np.log(precisions[n])
    return bp * np.exp(_python_sum(logs) / 4)


@njit(cache=True)
def _chrf(stats):
    # sacrebleu CHRF._compute_f_score, char order 6, word order 0, beta 2, no eps smoothing
    factor = 4.0
    avg_prec, avg_rec = 0.0, 0.0
    effective_order = 0
    for i in range(6):
        n_hyp, n_ref, n_match = stats[3 * i], stats[3 * i + 1], stats[3 * i + 2]
        prec = n_match / n_hyp if n_hyp > 0 else 1e-16
        rec = n_match / n_ref if n_ref > 0 else 1e-16
        if n_hyp > 0 and n_ref > 0:
            avg_prec += prec
            avg_rec += rec
            effective_order += 1
    if effective_order == 0:
        avg_prec = avg_rec = 0.0
    else:
        avg_prec /= effective_order
        avg_rec /= effective_order
    if avg_prec + avg_rec:
        score = (1 + factor) * avg_prec * avg_rec
        score /= (factor * avg_prec) + avg_rec
        return 100 * score
    return 0.0


@njit(cache=True)
def _ter(stats):
    edits, ref_len = stats[0], stats[1]
    if ref_len > 0:
        score = edits / ref_len
    elif edits > 0:
        score = 1.0
    else:
        score = 0.0
    return 100 * score


@njit(cache=True)
def score(stats, code):
    """The corpus score of summed statistics (``code``: 1 BLEU, 2 chrF, 3 TER)."""
    if code == 1:
        return _bleu(stats)
    if code == 2:
        return _chrf(stats)
    return _ter(stats)

"""Corpus BLEU, chrF and TER from summed sufficient statistics, equal to sacrebleu's.

sacrebleu scores a corpus by summing per-segment statistics (n-gram matches and lengths for BLEU,
character n-gram counts for chrF, edits and reference lengths for TER) and applying a formula to
the sums.  A bootstrap that resamples segments therefore needs the statistics only once: each
resampled corpus is a weighted sum of them.  :func:`segment_statistics` extracts them with
sacrebleu (default settings: BLEU with the 13a tokenizer and exponential smoothing, chrF with
character order 6 and beta 2, TER without normalisation), caching the result on disk because
the extraction is slow (hundreds of microseconds per segment for BLEU and chrF, milliseconds or
more for TER); :func:`corpus_score` applies sacrebleu's formulas in numba, operation for
operation, so that the scores are equal to sacrebleu's, not merely close.
"""

from __future__ import annotations

import hashlib
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
from numba import njit

__all__ = ["CORPUS_METRICS", "segment_statistics", "corpus_score", "lower_is_better"]

CORPUS_METRICS = ("bleu", "chrf", "ter")
"""The sacrebleu metrics whose corpus score is a function of summed segment statistics."""

_N_STATS = {"bleu": 10, "chrf": 18, "ter": 2}
_CODE = {"bleu": 1, "chrf": 2, "ter": 3}  # 0 is the plain mean (in error_decomposition)
# Python >= 3.12 sums floats with Neumaier compensation; sacrebleu's BLEU sums log precisions with sum().
_COMPENSATED_SUM = sys.version_info >= (3, 12)


def lower_is_better(metric: str) -> bool:
    """True for error rates (TER), whose smaller values are better."""
    return metric == "ter"


def _check_metric(metric: str) -> str:
    if metric not in CORPUS_METRICS:
        raise ValueError(f"`metric` must be one of {', '.join(CORPUS_METRICS)}; got {metric!r}")
    return metric


def _sacrebleu_metric(metric: str):
    from sacrebleu.metrics import BLEU, CHRF, TER

    return {"bleu": BLEU, "chrf": CHRF, "ter": TER}[metric]()


def _extract(metric: str, hypotheses: list[str], references: list[str]) -> np.ndarray:
    stats = _sacrebleu_metric(metric)._extract_corpus_statistics(hypotheses, [references])
    return np.asarray(stats, dtype=np.float64).reshape(len(hypotheses), _N_STATS[metric])


def _cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "spalib" / "sacrebleu-statistics"


def segment_statistics(metric: str, hypotheses, references, *, cache: bool = True,
                       n_jobs: int | None = None) -> np.ndarray:
    """sacrebleu's sufficient statistics of every (hypothesis, reference) segment.

    Parameters
    ----------
    metric : {"bleu", "chrf", "ter"}
    hypotheses, references : sequence of str
        One reference per hypothesis, aligned.
    cache : bool
        Keep the result under ``$XDG_CACHE_HOME/spalib/sacrebleu-statistics``, keyed by the
        sacrebleu version, the metric and the texts, and reuse it next time.
    n_jobs : int, optional
        Worker processes (default: one per core).

    Returns
    -------
    ndarray, shape (n_segments, k)
        ``k`` = 10 for BLEU (hypothesis length, reference length, matches and totals for n = 1..4),
        18 for chrF (hypothesis, reference and matching counts for character n = 1..6) and 2 for
        TER (edits, reference length), in sacrebleu's order.
    """
    import sacrebleu

    metric = _check_metric(metric)
    hypotheses, references = [str(h) for h in hypotheses], [str(r) for r in references]
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    if not hypotheses:
        raise ValueError("`hypotheses` is empty")
    key = hashlib.sha256(f"{sacrebleu.__version__}\0{metric}\0".encode())
    for text in (hypotheses, references):
        key.update("\0".join(text).encode())
        key.update(b"\1")
    path = _cache_folder() / f"{metric}-{key.hexdigest()[:32]}.npy"
    if cache and path.exists():
        stats = np.load(path)
        if stats.shape == (len(hypotheses), _N_STATS[metric]):
            return stats
    n_jobs = n_jobs or os.cpu_count() or 1
    if n_jobs == 1 or len(hypotheses) < 2000:
        stats = _extract(metric, hypotheses, references)
    else:
        bounds = np.linspace(0, len(hypotheses), 8 * n_jobs + 1).astype(int)
        chunks = [(metric, hypotheses[a:b], references[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
        # fork: workers need only sacrebleu and the texts, and spawn would re-run a caller's script
        context = get_context("fork" if sys.platform == "linux" else "spawn")
        with ProcessPoolExecutor(n_jobs, mp_context=context) as pool:
            stats = np.concatenate(list(pool.map(_extract, *zip(*chunks))))
    if cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(partial, stats)
        os.replace(partial, path)
    return stats


def corpus_score(metric: str, statistics) -> float | np.ndarray:
    """The corpus score sacrebleu gives for summed statistics.

    Parameters
    ----------
    metric : {"bleu", "chrf", "ter"}
    statistics : array_like, shape (k,) or (n, k)
        Statistics summed over a corpus (one row per corpus for 2-D input), in the order of
        :func:`segment_statistics`.

    Returns
    -------
    float or ndarray
        BLEU, chrF or TER on sacrebleu's 0-100 scale (TER: lower is better).

    Examples
    --------
    >>> corpus_score("ter", [3.0, 12.0])
    25.0
    """
    metric = _check_metric(metric)
    stats = np.asarray(statistics, dtype=np.float64)
    if stats.ndim not in (1, 2) or stats.shape[-1] != _N_STATS[metric]:
        raise ValueError(f"`statistics` for {metric} must have {_N_STATS[metric]} columns; got shape {stats.shape}")
    if not np.isfinite(stats).all() or (stats < 0).any():
        raise ValueError("`statistics` must be finite and non-negative")
    rows = np.atleast_2d(stats)
    out = np.array([_score(rows[i], _CODE[metric]) for i in range(len(rows))])
    return float(out[0]) if stats.ndim == 1 else out


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
def _score(stats, code):
    """The corpus score of summed statistics (``code``: 1 BLEU, 2 chrF, 3 TER)."""
    if code == 1:
        return _bleu(stats)
    if code == 2:
        return _chrf(stats)
    return _ter(stats)

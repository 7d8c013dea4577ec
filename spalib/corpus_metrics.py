"""Corpus BLEU, chrF and TER from summed sufficient statistics, equal to sacrebleu's.

sacrebleu scores a corpus by summing per-segment statistics (n-gram matches and lengths for BLEU,
character n-gram counts for chrF, edits and reference lengths for TER) and applying a formula to
the sums.  A bootstrap that resamples segments therefore needs the statistics only once: each
resampled corpus is a weighted sum of them.  :func:`segment_statistics` extracts them (default
settings: BLEU with the 13a tokenizer and exponential smoothing, chrF with character order 6 and
beta 2, TER without normalisation): BLEU and chrF with sacrebleu itself (hundreds of microseconds
per segment), TER with sacrebleu's tokenizer and a numba restatement of its shift search
(sacrebleu's own takes milliseconds or more per segment), equal to sacrebleu's statistics;
results are cached on disk.  :func:`corpus_score` applies sacrebleu's formulas in numba,
operation for operation, so that the scores are equal to sacrebleu's, not merely close.
"""

from __future__ import annotations

import hashlib
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pandas as pd

from spalib._core.corpus_kernels import CODE, N_STATS, score
from spalib._core.ter_kernels import ter_statistics
from spalib._core.validation import choice_iv, flag_iv, positive_int_iv, real_array_iv

__all__ = ["CORPUS_METRICS", "segment_statistics", "corpus_score", "is_lower_better"]

CORPUS_METRICS = ("bleu", "chrf", "ter")
"""The sacrebleu metrics whose corpus score is a function of summed segment statistics."""


def is_lower_better(metric: str) -> bool:
    """Whether smaller values of ``metric`` are better.

    Parameters
    ----------
    metric : {"bleu", "chrf", "ter"}
        A corpus metric.

    Returns
    -------
    bool
        True for error rates (TER).  (``SystemBootstrap.lower_is_better`` and the
        ``lower_is_better`` arguments are this answer as a bool.)

    Notes
    -----
    BLEU and chrF are similarities; TER counts edits per reference word.

    References
    ----------
    Snover, M. et al. (2006). A study of translation edit rate. AMTA.

    Examples
    --------
    >>> is_lower_better("ter"), is_lower_better("bleu")
    (True, False)
    """
    return _check_metric(metric) == "ter"


def _check_metric(metric: str) -> str:
    return choice_iv(metric, "metric", CORPUS_METRICS)


def _texts_iv(texts, name: str) -> list[str]:
    """One text per segment: a sequence of str, none missing (a missing text is not the text "nan")."""
    if isinstance(texts, (str, bytes)):
        raise TypeError(f"`{name}` must be a sequence of texts, one per segment; got a single "
                        f"{type(texts).__name__} (wrap one text in a list)")
    try:
        # a pandas column's values come out 20 times faster as one object array than one by one
        texts = (texts.to_numpy(dtype=object).tolist() if isinstance(texts, (pd.Series, pd.Index))
                 else list(texts))
    except TypeError:
        raise TypeError(f"`{name}` must be a sequence of texts, one per segment; got {type(texts).__name__}") from None
    for k, text in enumerate(texts):
        if not isinstance(text, str):
            if pd.api.types.is_scalar(text) and pd.isna(text):
                raise ValueError(f"`{name}` has a missing text at position {k} ({text!r})")
            raise TypeError(f"`{name}` must hold texts (str); position {k} is {type(text).__name__} {text!r}")
    return texts


def _sacrebleu_metric(metric: str):
    from sacrebleu.metrics import BLEU, CHRF, TER

    return {"bleu": BLEU, "chrf": CHRF, "ter": TER}[metric]()


def _extract(metric: str, hypotheses: list[str], references: list[str]) -> np.ndarray:
    stats = _sacrebleu_metric(metric)._extract_corpus_statistics(hypotheses, [references])
    return np.asarray(stats, dtype=np.float64).reshape(len(hypotheses), N_STATS[metric])


def _extract_in_processes(metric: str, hypotheses: list[str], references: list[str],
                          n_jobs: int) -> np.ndarray:
    if n_jobs == 1 or len(hypotheses) < 2000:
        return _extract(metric, hypotheses, references)
    bounds = np.linspace(0, len(hypotheses), 8 * n_jobs + 1).astype(int)
    chunks = [(metric, hypotheses[a:b], references[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    # fork: workers need only sacrebleu and the texts, and spawn would re-run a caller's script
    context = get_context("fork" if sys.platform == "linux" else "spawn")
    with ProcessPoolExecutor(n_jobs, mp_context=context) as pool:
        return np.concatenate(list(pool.map(_extract, *zip(*chunks))))


def _word_ids(texts: list[str], tokenize, vocabulary: dict) -> tuple[np.ndarray, np.ndarray]:
    """The tokens of all texts as integer ids (one id per distinct token) and each text's start."""
    ids, lengths = [], []
    for text in texts:
        tokens = tokenize(text).split()
        lengths.append(len(tokens))
        ids.extend([vocabulary.setdefault(token, len(vocabulary)) for token in tokens])
    starts = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    return np.array(ids, dtype=np.int64), starts


def _ter(hypotheses: list[str], references: list[str], n_jobs: int | None) -> np.ndarray:
    """TER statistics: sacrebleu's tokenisation in Python, its shift search in numba threads."""
    import numba

    # sacrebleu's own preprocessing (rstrip, then TercomTokenizer: lowercase, whitespace split)
    tokenize = _sacrebleu_metric("ter")._preprocess_segment
    vocabulary: dict[str, int] = {}
    hyp_ids, hyp_starts = _word_ids(hypotheses, tokenize, vocabulary)
    ref_ids, ref_starts = _word_ids(references, tokenize, vocabulary)
    threads = numba.get_num_threads()
    numba.set_num_threads(min(n_jobs or threads, numba.config.NUMBA_NUM_THREADS))
    try:
        stats = ter_statistics(hyp_ids, hyp_starts, ref_ids, ref_starts)
    finally:
        numba.set_num_threads(threads)
    failed = np.flatnonzero(stats[:, 0] < 0)
    if failed.size:  # not expected: consecutive rows of sacrebleu's band always overlap
        raise RuntimeError(f"TER: no edit path inside the beam for segment {failed[0]}")
    return stats


def _cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "spalib" / "sacrebleu-statistics"


def segment_statistics(metric: str, hypotheses, references, *, cache: bool = True,
                       n_jobs: int | None = None) -> np.ndarray:
    """Sacrebleu's sufficient statistics of every (hypothesis, reference) segment.

    Parameters
    ----------
    metric : {"bleu", "chrf", "ter"}
    hypotheses, references : sequence of str
        One reference per hypothesis, aligned.
    cache : bool
        Keep the result under ``$XDG_CACHE_HOME/spalib/sacrebleu-statistics``, keyed by the
        sacrebleu version, the metric and the texts, and reuse it next time.
    n_jobs : int, optional
        Worker processes for BLEU and chrF, numba threads for TER (default: one per core).

    Returns
    -------
    ndarray, shape (n_segments, k)
        ``k`` = 10 for BLEU (hypothesis length, reference length, matches and totals for n = 1..4),
        18 for chrF (hypothesis, reference and matching counts for character n = 1..6) and 2 for
        TER (edits, reference length), in sacrebleu's order.

    Notes
    -----
    The corpus score of any multiset of segments is a function of the column sums (see
    :func:`corpus_score`), which is what makes a bootstrap over segments cheap.  TER's statistics
    come from sacrebleu's tokenizer and a numba restatement of sacrebleu's shift search (its beam,
    shift limits, candidate budget and tie-breaking; ``spalib._core.ter_kernels``), tested equal
    to ``sacrebleu.metrics.TER()``'s on real WMT outputs; each segment is computed on its own, so
    the result does not depend on the number of threads.

    References
    ----------
    Post, M. (2018). A call for clarity in reporting BLEU scores. WMT.

    Examples
    --------
    >>> segment_statistics("bleu", ["the cat sat"], ["the cat sat"], cache=False).tolist()
    [[3.0, 3.0, 3.0, 2.0, 1.0, 0.0, 3.0, 2.0, 1.0, 0.0]]
    >>> segment_statistics("ter", ["on the mat the cat sat"], ["The cat sat on the mat"],
    ...                    cache=False).tolist()  # one shift; TER ignores case by default
    [[1.0, 6.0]]
    """
    import sacrebleu

    metric = _check_metric(metric)
    hypotheses, references = _texts_iv(hypotheses, "hypotheses"), _texts_iv(references, "references")
    cache = flag_iv(cache, "cache")
    n_jobs = None if n_jobs is None else positive_int_iv(n_jobs, "n_jobs")
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
        if stats.shape == (len(hypotheses), N_STATS[metric]):
            return stats
    if metric == "ter":
        stats = _ter(hypotheses, references, n_jobs)
    else:
        stats = _extract_in_processes(metric, hypotheses, references, n_jobs or os.cpu_count() or 1)
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

    Notes
    -----
    BLEU: ``BP * exp(mean_n log p_n)`` with exponential smoothing of zero matches and
    ``BP = exp(1 - r/h)`` when ``h < r``; chrF: ``(1 + b^2) P R / (b^2 P + R)`` with ``b = 2``
    and ``P``, ``R`` averaged over the character orders present; TER: ``100 * edits / r``.
    Each is computed with sacrebleu's operations in sacrebleu's order, so that the result is
    equal to its ``corpus_score``, not only close.

    References
    ----------
    Papineni, K. et al. (2002). BLEU. ACL.  Popović, M. (2015). chrF. WMT.
    Snover, M. et al. (2006). A study of translation edit rate. AMTA.  Post, M. (2018). WMT.

    Examples
    --------
    >>> corpus_score("ter", [3.0, 12.0])
    25.0
    """
    metric = _check_metric(metric)
    stats = real_array_iv(statistics, "statistics", ndim=(1, 2))
    if stats.shape[-1] != N_STATS[metric]:
        raise ValueError(f"`statistics` for {metric} must have {N_STATS[metric]} columns; got shape {stats.shape}")
    if (stats < 0).any():
        raise ValueError("`statistics` are counts and must be non-negative")
    rows = np.atleast_2d(stats)
    out = np.array([score(rows[i], CODE[metric]) for i in range(len(rows))])
    return float(out[0]) if stats.ndim == 1 else out

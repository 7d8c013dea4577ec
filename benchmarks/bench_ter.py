"""TER statistics of the WMT21+22 to-English outputs: spalib's numba shift search against sacrebleu.

Both sides get the same deterministic sample of distinct (hypothesis, reference) pairs (a uniform
sample, so every language pair in proportion).  spalib: ``segment_statistics("ter", ...,
cache=False)`` (sacrebleu's tokenizer in Python, the shift search in numba), best of 5, on one
numba thread and on ``--jobs`` threads.  sacrebleu: ``TER()._extract_corpus_statistics``, once,
in one process (in ``--jobs`` processes for every pair, ``--pairs 0``).  The statistics are asserted
equal, segment by segment.

    python benchmarks/bench_ter.py                     # 2,000 pairs: sacrebleu takes about a minute
    python benchmarks/bench_ter.py --pairs 0 --jobs 2  # all 141,768: sacrebleu needs ~40 CPU-minutes
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

import _setup  # noqa: F401  (first: the threading layer)
from spalib import data
from spalib.corpus_metrics import _extract_in_processes, segment_statistics


def best_of(repeats, fn):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return result, min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000, help="sample size (0: every distinct pair)")
    parser.add_argument("--jobs", type=int, default=numba.config.NUMBA_NUM_THREADS)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    pairs = data.load_wmt_toen_da().outputs.drop_duplicates(["hypothesis", "reference"])
    if args.pairs:
        pairs = pairs.sample(args.pairs, random_state=0)
    hyps, refs = pairs["hypothesis"].tolist(), pairs["reference"].tolist()
    n = len(hyps)
    print(f"TER statistics of {n:,} distinct WMT21+22 to-English (hypothesis, reference) pairs, "
          f"{pairs.groupby(['year', 'lp']).ngroups} year-language pairs; up to "
          f"{max(len(t.split()) for t in hyps + refs)} words a text")
    segment_statistics("ter", hyps[:20], refs[:20], cache=False)  # compile (or load the cache)

    rates = {}
    for threads in sorted({1, args.jobs}):
        ours, seconds = best_of(args.repeats, lambda threads=threads: segment_statistics(
            "ter", hyps, refs, cache=False, n_jobs=threads))
        rates[threads] = n / seconds
        print(f"  spalib, {threads} numba thread(s), best of {args.repeats}: {seconds:8.3f} s  "
              f"{rates[threads]:12,.0f} segments/s")
    jobs = args.jobs if args.pairs == 0 else 1  # (_extract_in_processes uses one below 2,000)
    start = time.perf_counter()
    theirs = _extract_in_processes("ter", hyps, refs, jobs)
    seconds = time.perf_counter() - start
    print(f"  sacrebleu, {jobs} process(es), once:            {seconds:8.1f} s  {n / seconds:12,.1f} segments/s")
    print(f"  ratio per segment, one thread against one process: {rates[1] / (n / seconds * jobs):.0f}x"
          + ("" if jobs == 1 else " (sacrebleu's rate divided by its processes)"))
    mismatched = np.flatnonzero((ours != theirs).any(axis=1))
    for k in mismatched[:5]:
        print(f"  MISMATCH {k}: spalib {ours[k].tolist()}, sacrebleu {theirs[k].tolist()}\n"
              f"    hyp {hyps[k]!r}\n    ref {refs[k]!r}")
    assert mismatched.size == 0, f"{mismatched.size} of {n} segments differ from sacrebleu"
    print(f"  statistics equal to sacrebleu's on all {n:,} pairs "
          f"(total edits {ours[:, 0].sum():,.0f}, reference words {ours[:, 1].sum():,.0f})")


if __name__ == "__main__":
    main()

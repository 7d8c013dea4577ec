"""The README's command for a metric developer, timed as a user runs it.

Writes a new metric's score file for WMT23 en-de (the mean of z-scored chrF and COMET, a
stand-in for "your metric"), then runs, in a fresh process, exactly the command the README
shows, and prints its wall time (loading, ranking, intervals, the baseline table):

    spalib rank --test-set wmt23 --lp en-de --add MyMetric=FILE --no-qe --stat spa pa \
        --wmt-early-stopping --baseline chrF --baseline BLEU

    python benchmarks/bench_readme_command.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import _setup  # noqa: F401  (first: the threading layer)
from spalib import data

README_ARGS = ["--test-set", "wmt23", "--lp", "en-de", "--no-qe", "--stat", "spa", "pa",
               "--wmt-early-stopping", "--baseline", "chrF", "--baseline", "BLEU"]


def main():
    es = data.load_mtme("wmt23", "en-de")
    parts = [es.seg_scores(name) for name in ("chrF-refA", "COMET-refA")]
    metric = sum((p - np.nanmean(p.to_numpy())) / np.nanstd(p.to_numpy()) for p in parts) / 2
    with tempfile.TemporaryDirectory() as folder:
        path = data.write_seg_score_file(metric, Path(folder) / "en-de.seg.score")
        command = [sys.executable, "-m", "spalib", "rank", *README_ARGS, "--add", f"MyMetric={path}", "--quiet"]
        start = time.perf_counter()
        run = subprocess.run(command, capture_output=True, text=True, check=True)
        seconds = time.perf_counter() - start
    print(run.stdout[-1500:])
    print(f"README command: {seconds:.0f} s wall (a fresh process: imports, loading, ranking, intervals, "
          "baselines)")


if __name__ == "__main__":
    main()

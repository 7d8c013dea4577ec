"""Reading every WMT23 score file: the C-tokenizer path of ``read_seg_score_file`` against the
line-by-line reader it falls back to, in one run.

Loads all three WMT23 language pairs and every metric's and human score's segment- and
system-level file (645 files), each side in a fresh process (no cache), best of 3; checks that
both sides read identical frames (every value, NaN where ``None``) and prints the times and the
ratio.

    .venv/bin/python benchmarks/bench_read.py
"""

from __future__ import annotations

import _setup  # noqa: F401  (threading layer)
import json
import subprocess
import sys

RUN = r"""
import hashlib, json, sys, time
start = time.perf_counter()
from spalib import data
from spalib.data import mtme
imported = time.perf_counter()
if sys.argv[1] == "line-by-line":
    mtme._tab_fields = lambda text: None
digest, files = hashlib.sha256(), 0
for lp in ("en-de", "he-en", "zh-en"):
    es = data.load_mtme("wmt23", lp)
    for name in es.metric_names + es.human_score_names:
        for level in es.levels(name):
            if level in ("seg", "sys"):
                frame = es.seg_scores(name) if level == "seg" else es.sys_scores(name)
                digest.update(frame.to_numpy().tobytes()); files += 1
print(json.dumps({"seconds": time.perf_counter() - imported, "import": imported - start, "files": files,
                  "digest": digest.hexdigest()}))
"""


def run(side):
    out = subprocess.run([sys.executable, "-c", RUN, side], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main():
    results = {side: min((run(side) for _ in range(3)), key=lambda r: r["seconds"])
               for side in ("C tokenizer", "line-by-line")}
    for side, r in results.items():
        print(f"{side:14s} {r['seconds']:6.2f} s for {r['files']} files (import {r['import']:.2f} s)")
    fast, slow = results["C tokenizer"], results["line-by-line"]
    print(f"ratio: {slow['seconds'] / fast['seconds']:.1f}x; identical: {fast['digest'] == slow['digest']}")


if __name__ == "__main__":
    main()

"""The significance engine against an earlier revision of spalib: the same results, as fast.

Runs ``compare_metrics`` on WMT23 en-de (12 systems, 460 segments, 8 metrics = 28 pairs) for PA,
SPA with normal-limit and with permutation p-values, and acc_eq, in this tree and in a git
revision (default ``b29b37c``, the last commit before the engine was rebuilt), each in a fresh
process with the threading layer the Makefile chooses; prints each side's best-of-3 time, the ratio, and
whether every score, p-value and null draw is bit-identical.

    .venv/bin/python benchmarks/bench_engine.py [--revision REV]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN = r"""
import hashlib, inspect, json, sys, time
import numpy as np
import spalib
from spalib import data
task = data.segment_task(data.load_mtme("wmt23", "en-de"))
names = sorted(task.metrics)[:8]
metrics = {n: task.metrics[n] for n in names}
out = {}
# the keyword's name in the revision measured (meta_metric= since the rename, statistic= before)
word = "meta_metric" if "meta_metric" in inspect.signature(spalib.compare_metrics).parameters else "statistic"
for label, kw in [("pa", {word: "pa"}), ("spa normal", dict(spa_method="normal")),
                  ("spa permutation", dict()), ("acc_eq", {word: "acc_eq"})]:
    best = np.inf
    for _ in range(3):
        start = time.perf_counter()
        c = spalib.compare_metrics(task.human, metrics, n_resamples=200, spa_resamples=200, rng=4, **kw)
        best = min(best, time.perf_counter() - start)
    digest = hashlib.sha256()
    for array in [c.scores.to_numpy(), c.pvalues.to_numpy(), *c.null_distributions.values()]:
        digest.update(np.ascontiguousarray(array).tobytes())
    out[label] = (best, digest.hexdigest()[:16])
print(json.dumps(out))
"""


def run(source: Path) -> dict:
    # both sides read this tree's data folder, wherever the revision is checked out
    from spalib.data import data_root
    inherited = {k: v for k, v in os.environ.items() if k != "NUMBA_THREADING_LAYER"}  # it would win
    env = {**inherited, "PYTHONPATH": str(source), "NUMBA_THREADING_LAYER_PRIORITY": "omp workqueue tbb",
           "OMP_WAIT_POLICY": "PASSIVE", "SPALIB_DATA": str(data_root())}
    result = subprocess.run([sys.executable, "-c", RUN], cwd=tempfile.gettempdir(), env=env,
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--revision", default="b29b37c")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", folder, args.revision],
                       check=True, capture_output=True)
        try:
            before = run(Path(folder))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", folder], check=True)
    after = run(ROOT)
    print(f"{'meta-metric':16} {args.revision + ' (s)':>14} {'this tree (s)':>14} {'ratio':>6}  identical")
    for label, (time_after, digest_after) in after.items():
        time_before, digest_before = before[label]
        print(f"{label:16} {time_before:14.3f} {time_after:14.3f} {time_before / time_after:6.2f}  "
              f"{digest_before == digest_after}")


if __name__ == "__main__":
    main()

"""Imported first by every benchmark: numba's threading layer as the Makefile chooses it (OpenMP
with idle workers asleep; why: see the Makefile) and the tests' NumPy restatement of
mt-metrics-eval on the path; and the seed scripts' loop over seeds.
"""

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_THREADING_LAYER_PRIORITY", "omp workqueue tbb")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def timed_runs(run, seeds, label="seed"):
    """``run(seed)`` for each seed in order, each run's seconds printed as it ends."""
    results = []
    for seed in seeds:
        start = time.perf_counter()
        results.append(run(seed))
        print(f"{label} {seed}: {time.perf_counter() - start:.0f} s", flush=True)
    return results

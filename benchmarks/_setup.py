"""Imported first by every benchmark: numba's threading layer as the Makefile chooses it (OpenMP
with idle workers asleep; why: see the Makefile) and the tests' NumPy restatement of
mt-metrics-eval on the path; the seed scripts' loop over seeds; and the stored-run scripts'
checked save.
"""

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_THREADING_LAYER_PRIORITY", "omp workqueue tbb")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
RESULTS = os.path.join(os.path.dirname(__file__), "..", "spalib", "data", "results")
"""Where the seed and stored-run scripts write: the folder that ships inside spalib."""


def timed_runs(run, seeds, label="seed"):
    """``run(seed)`` for each seed in order, each run's seconds printed as it ends."""
    results = []
    for seed in seeds:
        start = time.perf_counter()
        results.append(run(seed))
        print(f"{label} {seed}: {time.perf_counter() - start:.0f} s", flush=True)
    return results


def save_comparison(comparison, file: str) -> None:
    """``comparison.save(file)``, read back and checked: the same numbers, bit for bit."""
    import spalib   # here: the threading layer is set above before spalib loads numba
    comparison.save(file)
    back = spalib.MetricComparison.load(file).with_draws_of(comparison)   # scores, p-values, draws
    assert (back.ranks.equals(comparison.ranks) and back.alpha == comparison.alpha
            and back.tolerances == comparison.tolerances)
    print(f"{os.path.basename(file)}: {os.path.getsize(file) / 1000:.0f} kB")

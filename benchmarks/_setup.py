"""Imported first by every benchmark: numba's threading layer as the Makefile chooses it (OpenMP
with idle workers asleep; why: see the Makefile) and the tests' NumPy restatement of
mt-metrics-eval on the path.
"""

import os
import sys
from pathlib import Path

os.environ.setdefault("NUMBA_THREADING_LAYER_PRIORITY", "omp workqueue tbb")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

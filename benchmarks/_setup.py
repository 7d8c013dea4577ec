"""Imported first by every benchmark: numba's work-queue threading layer (why: see the Makefile)
and the tests' NumPy restatement of mt-metrics-eval on the path.
"""

import os
import sys
from pathlib import Path

os.environ.setdefault("NUMBA_THREADING_LAYER", "workqueue")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

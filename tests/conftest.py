"""Helpers shared by the test modules."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np


def benchmark(name: str, monkeypatch):
    """The script ``benchmarks/NAME.py`` as a module (what ``tests/test_stored_*.py`` rerun)."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    return importlib.import_module(name)


def output_per_thread_count(code: str, thread_counts=(1, 2), variable="NUMBA_NUM_THREADS") -> dict[int, str]:
    """What ``python -c code`` prints with each numba (or ``variable``'s) thread count (a fresh
    process each).
    """
    return {
        threads: subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                env={**os.environ, variable: str(threads)}).stdout
        for threads in thread_counts
    }


GOLDEN = 0x9E3779B97F4A7C15


def splitmix64(z):
    """SplitMix64's finaliser in NumPy (uint64 arrays, wrapping): the library's random streams
    restated independently of its kernels."""
    z = np.asarray(z, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))

"""Helpers shared by the test modules."""

from __future__ import annotations

import os
import subprocess
import sys


def output_per_thread_count(code: str, thread_counts=(1, 2), variable="NUMBA_NUM_THREADS") -> dict[int, str]:
    """What ``python -c code`` prints with each numba (or ``variable``'s) thread count (a fresh
    process each).
    """
    return {
        threads: subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                env={**os.environ, variable: str(threads)}).stdout
        for threads in thread_counts
    }

"""What the Makefile does besides calling the tools: forgetting stale compiled kernels."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

BOOK = Path(__file__).resolve().parents[1]


def test_make_forgets_compiled_kernels_when_any_source_changes(tmp_path):
    """numba reuses a cached kernel while its own file is unchanged, even when a kernel it calls
    from another file has changed: ``make book`` and ``make test`` delete every compiled kernel
    of spalib when any of its sources changes, and only then.
    """
    shutil.copy(BOOK / "Makefile", tmp_path)
    (tmp_path / "spalib" / "_core" / "__pycache__").mkdir(parents=True)
    caller, callee = tmp_path / "spalib" / "caller.py", tmp_path / "spalib" / "_core" / "callee.py"
    caller.write_text("from spalib._core.callee import f\n")
    callee.write_text("def f(): return 1\n")
    compiled = [tmp_path / "spalib" / "_core" / "__pycache__" / f"caller.g-3.py311.{ext}" for ext in ("nbi", "nbc")]

    def make_kernels():
        subprocess.run(["make", "-s", "kernels"], cwd=tmp_path, check=True, capture_output=True)
        return [path.exists() for path in compiled]

    for path in compiled:
        path.touch()
    assert make_kernels() == [False, False]    # no record of the sources they were compiled from
    for path in compiled:
        path.touch()
    assert make_kernels() == [True, True]      # the sources are unchanged
    callee.write_text("def f(): return 2\n")
    assert make_kernels() == [False, False]    # the callee changed, not the caller's file

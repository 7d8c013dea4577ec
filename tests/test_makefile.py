"""What the Makefile does besides calling the tools: a numba cache per state of spalib's sources."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

BOOK = Path(__file__).resolve().parents[1]


def test_make_compiles_kernels_anew_for_every_state_of_the_sources(tmp_path):
    """numba reuses a cached kernel while its own file is unchanged, even when a kernel it calls
    from another file has changed: ``make book`` and ``make test`` give numba a cache folder per
    state of spalib's sources (a caller's own choice of folder kept), and ``make kernels``
    removes the folders of earlier states.
    """
    shutil.copy(BOOK / "Makefile", tmp_path)
    (tmp_path / "spalib" / "_core").mkdir(parents=True)
    caller, callee = tmp_path / "spalib" / "caller.py", tmp_path / "spalib" / "_core" / "callee.py"
    caller.write_text("from spalib._core.callee import f\n")
    callee.write_text("def f(): return 1\n")
    environment = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}

    def make(*args, **extra):
        return subprocess.run(["make", "-s", *args], cwd=tmp_path, check=True, capture_output=True, text=True,
                              env={**environment, **extra}).stdout.strip()

    def cache_folder(**extra):
        return make("--eval", "show: ; @echo $$NUMBA_CACHE_DIR", "show", **extra)

    first = cache_folder()
    assert first.startswith(str(tmp_path / "_build" / "numba-cache")) and cache_folder() == first
    assert cache_folder(NUMBA_CACHE_DIR="/elsewhere") == "/elsewhere"
    Path(first).mkdir(parents=True)
    callee.write_text("def f(): return 2\n")      # the callee changed, not the caller's file
    second = cache_folder()
    assert second != first
    Path(second).mkdir(parents=True)
    make("kernels")
    assert not Path(first).exists() and Path(second).is_dir()

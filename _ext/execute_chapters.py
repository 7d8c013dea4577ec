"""Execute the book's chapters side by side into Jupyter Book's execution cache.

``make book`` runs this before ``jupyter-book build``, which then finds every chapter in its
cache (``execute_notebooks: cache``) and executes nothing itself.  It runs the chapters that are
not cached yet one per core, longest first, each kernel on one thread (numba and BLAS): on two
cores that is about a third faster than one chapter at a time on every thread, because a chapter
spends most of its time in single-threaded Python and a parallel kernel's threads wait on each
other when two processes share the cores.  The results do not depend on the thread count.
:data:`ALONE` run last, one at a time, on every thread.

A chapter's cache entry is keyed, as Jupyter Book keys it, by its code cells and kernel: it is
the notebook MyST-NB reads (``myst_nb_md``), executed in its own folder with the book's
``timeout`` and ``allow_errors``.  A chapter that fails is not cached; the script reports its
error, runs the others, and exits with 1.

Usage: ``python _ext/execute_chapters.py [--jobs N]`` from the book's folder.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import yaml
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from jupyter_cache.executors.utils import single_nb_execution
from myst_nb.core.read import is_myst_markdown_notebook, myst_nb_reader_plugin

BOOK = Path(__file__).resolve().parent.parent
CACHE = BOOK / "_build" / ".jupyter_cache"
ALONE = ("chapters/fast.md",)
"""Chapters that time the library's threads (and vary their number): run alone, on every thread."""
TYPICAL_SECONDS = {"chapters/spa_procedures.md": 85, "chapters/simulation.md": 85, "chapters/own_metric.md": 78,
                   "chapters/wei_jia.md": 64, "chapters/spa_table1.md": 34, "chapters/ties.md": 18}
"""One-thread run times on two cores (2026-11-24), to order a first build's queue longest first;
later builds order it by the times recorded in :data:`SECONDS` (any chapter not listed: 10 s)."""
SECONDS = BOOK / "_build" / ".chapter-seconds.json"
ONE_THREAD = {name: "1" for name in ("NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                      "MKL_NUM_THREADS")}


def chapters() -> list[Path]:
    """The table of contents' files that are MyST notebooks, in its order."""
    def files(entry):
        if isinstance(entry, dict):
            if "file" in entry:
                yield entry["file"]
            for value in entry.values():
                yield from files(value)
        elif isinstance(entry, list):
            for item in entry:
                yield from files(item)

    toc = yaml.safe_load((BOOK / "_toc.yml").read_text(encoding="utf-8"))
    paths = [BOOK / f"{name}.md" for name in [toc["root"], *files(toc["parts"])]]
    return [p for p in paths if p.exists() and is_myst_markdown_notebook(p.read_text(encoding="utf-8"))]


def execute(path: Path, timeout: int, allow_errors: bool, environment: dict):
    """Execute one chapter in its folder; returns the executed notebook, seconds and error text."""
    os.environ.update(environment)   # the kernel inherits it
    notebook = myst_nb_reader_plugin(str(path))
    result = single_nb_execution(notebook, cwd=str(path.parent), timeout=timeout, allow_errors=allow_errors)
    return notebook, result.time, None if result.err is None else result.exc_string


def main() -> int:
    """Execute the chapters not in the cache; 1 if any failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="chapters at once (default: cores)")
    jobs = parser.parse_args().jobs
    settings = yaml.safe_load((BOOK / "_config.yml").read_text(encoding="utf-8")).get("execute", {})
    timeout, allow_errors = settings.get("timeout", 30), settings.get("allow_errors", False)
    cache = get_cache(str(CACHE))
    pending = []
    for path in chapters():
        try:
            cache.match_cache_notebook(myst_nb_reader_plugin(str(path)))
        except KeyError:
            pending.append(path)
    # longest first, so that the last to start are short
    seconds = TYPICAL_SECONDS | (json.loads(SECONDS.read_text()) if SECONDS.exists() else {})
    pending.sort(key=lambda p: seconds.get(p.relative_to(BOOK).as_posix(), 10), reverse=True)
    alone = [p for p in pending if p.relative_to(BOOK).as_posix() in ALONE]
    rest = [p for p in pending if p not in alone]
    print(f"execute_chapters: {len(pending)} to run, {jobs} at a time on one thread each, then {len(alone)} alone")
    failed = []

    def store(path, notebook, took, error):
        name = path.relative_to(BOOK).as_posix()
        if error is not None:
            failed.append(name)
            print(f"execute_chapters: {name} failed after {took:.1f} s:\n{error}", file=sys.stderr)
            return
        cache.cache_notebook_bundle(CacheBundleIn(notebook, str(path), data={"execution_seconds": took}),
                                    check_validity=False, overwrite=True)
        print(f"execute_chapters: {name} {took:.1f} s", flush=True)
        seconds[name] = round(took, 1)
        SECONDS.write_text(json.dumps(seconds, indent=1, sort_keys=True))

    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(execute, path, timeout, allow_errors, ONE_THREAD): path for path in rest}
        for future in as_completed(futures):
            store(futures[future], *future.result())
    for path in alone:   # last: the others have compiled most of the kernels it loads
        store(path, *execute(path, timeout, allow_errors, {}))
    print(f"execute_chapters: done in {time.perf_counter() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Execute the book's chapters side by side into Jupyter Book's execution cache.

``make book`` runs this before ``jupyter-book build``, which then finds every chapter in its
cache (``execute_notebooks: cache``) and executes nothing itself.  It runs the chapters that are
not cached yet one per core, longest first, each kernel with numba and BLAS on one thread: on two
cores that is about a third faster than one chapter at a time on every thread, because a chapter
spends most of its time in single-threaded Python and a parallel kernel's threads wait on each
other when two processes share the cores.  The results do not depend on the thread count.
:data:`ALONE` run last, one at a time, on every thread.

A chapter is read as the build reads it (the book's final Sphinx configuration, MyST-NB's
reader), executed as MyST-NB executes it (its folder or a temporary one, the book's timeout and
``allow_errors``) and cached under the key the build looks up.  A chapter with notebook-level
MyST-NB settings, or any chapter when kernel aliases are configured, is left to the build.  A
chapter that fails is not cached: the script reports it, runs the others, and exits with 1.

Usage: ``python _ext/execute_chapters.py [--jobs N]`` from the book's folder.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import nullcontext
from functools import partial
from pathlib import Path, PurePosixPath

import yaml
from jupyter_book.config import get_final_config
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from jupyter_cache.executors.utils import single_nb_execution
from myst_nb.core.config import NbParserConfig
from myst_nb.core.read import create_nb_reader
from myst_parser.config.main import MdParserConfig

BOOK = Path(__file__).resolve().parent.parent
ALONE = ("chapters/fast.md",)
"""Chapters that time the library's multi-threaded kernels (and vary the thread count): run alone,
on every thread."""
TYPICAL_SECONDS = {"chapters/own_metric.md": 65, "chapters/wei_jia.md": 35, "chapters/simulation.md": 29,
                   "chapters/own_metric_verdict.md": 21, "chapters/wei_jia_annotators.md": 19,
                   "chapters/spa_table1.md": 18, "chapters/simulation_intervals.md": 18, "chapters/data.md": 18,
                   "chapters/spa.md": 16, "chapters/ties_practice.md": 16, "chapters/ties.md": 15,
                   "chapters/williams.md": 14, "chapters/spa_procedures.md": 13,
                   "chapters/segment_da_metrics.md": 13, "chapters/spa_table1_ties.md": 10,
                   "chapters/summeval.md": 9}
"""One-thread run times on two cores (2026-12-01, a fresh clone's build, the heavy runs stored),
to order a first build's queue longest first; later builds order it by the times recorded in
:data:`SECONDS` (any chapter not listed: 10 s)."""
SECONDS = BOOK / "_build" / ".chapter-seconds.json"
ONE_THREAD = {name: "1" for name in ("NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                      "MKL_NUM_THREADS")}


def book_settings() -> tuple[MdParserConfig, NbParserConfig]:
    """The MyST and MyST-NB settings of ``jupyter-book build``, from the book's final configuration."""
    config, _ = get_final_config(user_yaml=BOOK / "_config.yml", sourcedir=BOOK,
                                 cli_config={"latex_individualpages": False})

    def settings(cls, prefix):
        names = {f.name for f in dataclasses.fields(cls)}
        return {k[len(prefix):]: v for k, v in config.items() if k.startswith(prefix) and k[len(prefix):] in names}

    md = settings(MdParserConfig, "myst_")
    md["enable_extensions"] = set(md.get("enable_extensions", ()))
    nb = NbParserConfig(**settings(NbParserConfig, "nb_"))
    return MdParserConfig(**md), nb.copy(execution_cache_path=nb.execution_cache_path
                                         or str(BOOK / "_build" / ".jupyter_cache"))


def chapters() -> list[Path]:
    """The table of contents' files, in its order."""
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
    return [p for name in [toc["root"], *files(toc["parts"])] if (p := BOOK / f"{name}.md").exists()]


def read(path: Path, md_config: MdParserConfig, nb_config: NbParserConfig):
    """The chapter as the build reads it, or None if it is not a notebook."""
    text = path.read_text(encoding="utf-8")
    reader = create_nb_reader(str(path), md_config, nb_config, text)
    return None if reader is None else reader.read(text)


KERNEL_STARTS = 3
"""Tries to start a chapter's kernel: two kernels starting at the same moment can pick the same
free TCP port, and the second then dies before it runs a cell ("Address already in use")."""


def execute(notebook, folder: Path, nb_config: NbParserConfig, environment: dict):
    """Execute a chapter's notebook in place; returns it, the seconds taken and the error text."""
    os.environ.update(environment)   # the kernel inherits it
    for attempt in range(1, KERNEL_STARTS + 1):
        with tempfile.TemporaryDirectory() if nb_config.execution_in_temp else nullcontext(str(folder)) as cwd:
            try:
                result = single_nb_execution(notebook, cwd=cwd, timeout=nb_config.execution_timeout,
                                             allow_errors=nb_config.execution_allow_errors)
                break
            except RuntimeError as error:   # no cell has run: the notebook is as it was
                if "Kernel died before replying to kernel_info" not in str(error) or attempt == KERNEL_STARTS:
                    raise
                print(f"execute_chapters: a kernel did not start ({error}); starting another", file=sys.stderr)
    return notebook, result.time, None if result.err is None else result.exc_string


def recorded_seconds() -> dict:
    """The run times recorded by earlier builds (none if the file is missing or damaged)."""
    try:
        return json.loads(SECONDS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def main() -> int:
    """Execute the chapters not in the cache; 1 if any failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)),
                        help="chapters at once (default: the cores this process may use)")
    jobs = parser.parse_args().jobs
    md_config, nb_config = book_settings()
    if nb_config.execution_mode != "cache":
        print(f"execute_chapters: execute_notebooks is {nb_config.execution_mode!r}, not 'cache': nothing to do")
        return 0
    cache = get_cache(nb_config.execution_cache_path)
    pending = {}
    for path in chapters():
        name = path.relative_to(BOOK).as_posix()
        notebook = read(path, md_config, nb_config)
        if notebook is None or any(PurePosixPath(path.as_posix()).match(pattern)
                                   for pattern in nb_config.execution_excludepatterns):
            continue
        if nb_config.kernel_rgx_aliases or nb_config.metadata_key in notebook.metadata:
            print(f"execute_chapters: {name} has settings of its own or kernel aliases: left to jupyter-book")
            continue
        try:
            cache.match_cache_notebook(notebook)
        except KeyError:
            pending[path] = notebook
    seconds = TYPICAL_SECONDS | recorded_seconds()
    order = sorted(pending, key=lambda p: seconds.get(p.relative_to(BOOK).as_posix(), 10), reverse=True)
    alone = [p for p in order if p.relative_to(BOOK).as_posix() in ALONE]
    side_by_side = [p for p in order if p not in alone]
    print(f"execute_chapters: {len(order)} to run, {jobs} at a time on one thread each, then {len(alone)} alone")
    failed = []

    def store(path, run):
        name = path.relative_to(BOOK).as_posix()
        try:
            notebook, took, error = run()
        except Exception as crash:   # the kernel died, say; the error of a cell comes back as `error`
            notebook, took, error = None, float("nan"), repr(crash)
        if error is not None:
            failed.append(name)
            print(f"execute_chapters: {name} failed after {took:.1f} s:\n{error}", file=sys.stderr)
            return
        cache.cache_notebook_bundle(CacheBundleIn(notebook, str(path), data={"execution_seconds": took}),
                                    check_validity=False, overwrite=True)
        print(f"execute_chapters: {name} {took:.1f} s", flush=True)
        seconds[name] = round(took, 1)
        written = SECONDS.with_suffix(".partial")   # replaced whole: a cut-short write leaves the old file
        written.write_text(json.dumps(seconds, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(written, SECONDS)

    start = time.perf_counter()
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"))
    try:
        futures = {pool.submit(execute, pending[p], p.parent, nb_config, ONE_THREAD): p for p in side_by_side}
        for future in as_completed(futures):
            store(futures[future], future.result)
    except BaseException:   # Ctrl-C: start no other chapter
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    for path in alone:   # last: the others have compiled most of the kernels it loads
        store(path, partial(execute, pending[path], path.parent, nb_config, {}))
    print(f"execute_chapters: done in {time.perf_counter() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

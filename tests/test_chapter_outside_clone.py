"""A chapter downloaded from the book runs with only the installed library and the data folder.

The page's notebook holds the chapter's code cells as written; nothing they read may come from the
clone's folders (the papers' published values and the seed sweeps ship inside spalib).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import spalib.data

BOOK = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BOOK / "_ext"))
from execute_chapters import book_settings, read  # noqa: E402
from test_chapters import CHAPTERS, code_cells  # noqa: E402

CLONE_PATH = re.compile(r"""["'](\.\./|published/|results/|benchmarks/|chapters/)""")


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_no_code_cell_reads_a_file_of_the_clone(chapter):
    for line in code_cells(chapter.read_text(encoding="utf-8")).splitlines():
        if CLONE_PATH.search(line):
            assert "book_table(" in line, f"{chapter.name} reads a file of the clone: {line.strip()}"


def test_a_downloaded_chapter_runs_outside_the_clone(tmp_path, monkeypatch):
    """segment_da, as its download holds it, top to bottom in a folder outside the clone, with
    spalib installed from the clone as a package (not the clone's own sources)."""
    source, site, run = tmp_path / "source", tmp_path / "site", tmp_path / "run"
    for name in ("pyproject.toml", "README.md"):     # built from a copy: setuptools writes build/
        source.mkdir(exist_ok=True)
        shutil.copy2(BOOK / name, source / name)
    shutil.copytree(BOOK / "spalib", source / "spalib", ignore=shutil.ignore_patterns("__pycache__"))
    uv = Path(sys.executable).with_name("uv")
    subprocess.run([str(uv), "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                    "--python", sys.executable, str(source)], check=True)
    md_config, nb_config = book_settings()
    notebook = read(BOOK / "chapters" / "segment_da.md", md_config, nb_config)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(
        "import os, pathlib, spalib\n"
        f"assert pathlib.Path(spalib.__file__).is_relative_to({str(site)!r}), spalib.__file__\n"
        f"assert not pathlib.Path(os.getcwd()).is_relative_to({str(BOOK)!r})"))
    run.mkdir()
    monkeypatch.setenv("PYTHONPATH", str(site))            # before the clone's editable install
    monkeypatch.setenv("SPALIB_DATA", str(spalib.data.data_root()))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba-cache"))
    for name in ("NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.setenv(name, "1")
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(run)}}).execute()
    assert not any(o.get("output_type") == "error" for c in notebook.cells for o in c.get("outputs", []))

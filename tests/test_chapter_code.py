"""The chapters' code as the book's rules want it: cells of at most 25 lines, lines of at most 88
characters, and clean under ruff (the library's rule families, with what notebooks need)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jupytext
import pytest

CHAPTERS = sorted((Path(__file__).resolve().parents[1] / "chapters").glob("*.md"))
# E402: imports after a notebook's first cell; B018: a cell's last expression is its output
RUFF = ["--isolated", "--line-length", "88", "--select", "E,F,W,B", "--ignore", "E402,E731,E741,B905,B018"]


def code_cells(path):
    return [cell.source for cell in jupytext.read(path).cells if cell.cell_type == "code"]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_cells_are_short_and_lines_fit_the_page(path):
    for k, source in enumerate(code_cells(path)):
        lines = source.splitlines()
        assert len(lines) <= 25, f"{path.name}: code cell {k} has {len(lines)} lines"
        long = [line for line in lines if len(line) > 88]
        assert not long, f"{path.name}: code cell {k} has lines over 88 characters: {long[0]!r}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_code_passes_ruff(path):
    code = "\n\n\n".join(code_cells(path)) + "\n"
    out = subprocess.run([sys.executable, "-m", "ruff", "check", *RUFF, "--stdin-filename", f"{path.stem}.py",
                          "--output-format", "concise", "-"], input=code, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr

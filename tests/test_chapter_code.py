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


def cell_blocks(path):
    """Each code cell as written in the chapter: (first line number, every line between its
    fences, the cell's metadata and caption included)."""
    lines, blocks, start = path.read_text(encoding="utf-8").split("\n"), [], None
    for number, line in enumerate(lines, 1):
        if line.startswith("```{code-cell}"):
            start = number
        elif start is not None and line.startswith("```"):
            blocks.append((start, lines[start:number - 1]))
            start = None
    return blocks


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_cells_are_short_and_lines_fit_the_page(path):
    # counted as the project's standing check counts them: every line of the cell block, and
    # a line's length in UTF-8 bytes (stricter than characters for Greek letters)
    for start, lines in cell_blocks(path):
        assert len(lines) <= 25, f"{path.name}:{start}: code cell has {len(lines)} lines"
        long = [line for line in lines if len(line.encode()) > 88]
        assert not long, f"{path.name}:{start}: code cell has lines over 88 characters: {long[0]!r}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_code_passes_ruff(path):
    code = "\n\n\n".join(code_cells(path)) + "\n"
    out = subprocess.run([sys.executable, "-m", "ruff", "check", *RUFF, "--stdin-filename", f"{path.stem}.py",
                          "--output-format", "concise", "-"], input=code, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr

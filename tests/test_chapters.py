"""The chapters call only names that spalib has (caught here in seconds, not in the book build)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import spalib
import spalib.corpus_metrics
import spalib.data
import spalib.plotting  # noqa: F401  (chapters import from the submodules too)

CHAPTERS = sorted((Path(__file__).resolve().parent.parent / "chapters").glob("*.md"))


def code_cells(text: str) -> str:
    return "\n".join(re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", text, flags=re.S))


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_chapters_use_existing_spalib_names(chapter):
    code = code_cells(chapter.read_text(encoding="utf-8"))
    for module, name in re.findall(r"(?<![/\w.])(spalib|data)\.([A-Za-z_]\w*)", code):   # not a file name
        owner = spalib if module == "spalib" else spalib.data
        assert hasattr(owner, name), f"{chapter.name} uses {module}.{name}, which does not exist"

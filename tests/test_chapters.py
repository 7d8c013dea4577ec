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


def test_the_rank_benchmark_ranks_the_own_metric_chapters_pairs_with_its_draws():
    """own_metric.md describes benchmarks/bench_rank.py's run by the chapter's own settings."""
    book = CHAPTERS[0].parent.parent
    chapter = (book / "chapters" / "own_metric.md").read_text(encoding="utf-8")
    bench = (book / "benchmarks" / "bench_rank.py").read_text(encoding="utf-8")
    lps = [re.search(r"^LPS = (.*)$", text, re.M).group(1) for text in (chapter, bench)]
    assert lps[0] == lps[1]
    chapter_k = re.search(r"call = dict\(meta_metrics=.*?n_resamples=(\d+)", chapter, re.S).group(1)
    bench_k = re.search(r'meta_metrics=\("spa", "pa"\), n_resamples=(\d+)', bench).group(1)
    assert chapter_k == bench_k

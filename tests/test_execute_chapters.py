"""The script that executes the chapters side by side before the build (_ext/execute_chapters.py):
it must cache each chapter under the key Jupyter Book looks for, or the build runs it again.
"""

import re
import sys
from pathlib import Path

import nbformat
import pytest
import yaml
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from myst_nb.core.read import read_myst_markdown_notebook
from myst_parser.config.main import MdParserConfig

BOOK = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BOOK / "_ext"))
import execute_chapters  # noqa: E402

CHAPTERS = execute_chapters.chapters()


def test_every_chapter_of_the_table_of_contents_is_executed():
    listed = set(re.findall(r"file: (chapters/\w+)", (BOOK / "_toc.yml").read_text(encoding="utf-8")))
    names = {p.relative_to(BOOK).with_suffix("").as_posix() for p in CHAPTERS}
    assert names == listed == {f"chapters/{p.stem}" for p in (BOOK / "chapters").glob("*.md")}
    assert {name.removesuffix(".md") for name in [*execute_chapters.ALONE, *execute_chapters.TYPICAL_SECONDS]} <= names


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_a_chapter_is_cached_under_the_key_the_book_build_looks_up(chapter, tmp_path):
    # the notebook MyST-NB reads inside Sphinx: the book's MyST extensions, a source map, its path
    config = yaml.safe_load((BOOK / "_config.yml").read_text(encoding="utf-8"))
    md_config = MdParserConfig(enable_extensions=set(config["parse"]["myst_enable_extensions"]))
    in_sphinx = read_myst_markdown_notebook(chapter.read_text(encoding="utf-8"), config=md_config,
                                            add_source_map=True, path=str(chapter))
    cache = get_cache(str(tmp_path))
    executed = execute_chapters.myst_nb_reader_plugin(str(chapter))
    for number, cell in enumerate(c for c in executed.cells if c.cell_type == "code"):
        cell.execution_count = number + 1
        cell.outputs = [nbformat.v4.new_output("stream", text="ran\n")]
    cache.cache_notebook_bundle(CacheBundleIn(executed, str(chapter)), check_validity=True)
    assert cache.match_cache_notebook(in_sphinx).uri == str(chapter)
    _, merged = cache.merge_match_into_notebook(in_sphinx)
    assert all(c.outputs for c in merged.cells if c.cell_type == "code")

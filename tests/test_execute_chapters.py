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

SETTINGS = execute_chapters.book_settings()
CHAPTERS = [p for p in execute_chapters.chapters() if execute_chapters.read(p, *SETTINGS) is not None]


def test_every_chapter_of_the_table_of_contents_is_executed():
    listed = set(re.findall(r"file: (chapters/\w+)", (BOOK / "_toc.yml").read_text(encoding="utf-8")))
    names = {p.relative_to(BOOK).with_suffix("").as_posix() for p in CHAPTERS}
    assert names == listed == {f"chapters/{p.stem}" for p in (BOOK / "chapters").glob("*.md")}
    assert {name.removesuffix(".md") for name in [*execute_chapters.ALONE, *execute_chapters.TYPICAL_SECONDS]} <= names


def test_it_executes_as_the_build_would():
    config = yaml.safe_load((BOOK / "_config.yml").read_text(encoding="utf-8"))["execute"]
    _, nb_config = SETTINGS
    assert (nb_config.execution_mode, nb_config.execution_timeout, nb_config.execution_allow_errors,
            nb_config.execution_in_temp) == (config["execute_notebooks"], config["timeout"],
                                             config["allow_errors"], config["run_in_temp"])
    assert nb_config.execution_cache_path == str(BOOK / "_build" / ".jupyter_cache")


def test_a_damaged_record_of_run_times_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setattr(execute_chapters, "SECONDS", tmp_path / "seconds.json")
    assert execute_chapters.recorded_seconds() == {}
    (tmp_path / "seconds.json").write_text('{"chapters/spa.md": 1', encoding="utf-8")   # cut short
    assert execute_chapters.recorded_seconds() == {}


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_a_chapter_is_cached_under_the_key_the_book_build_looks_up(chapter, tmp_path):
    # the notebook MyST-NB reads inside Sphinx: the book's MyST extensions, a source map, its path
    config = yaml.safe_load((BOOK / "_config.yml").read_text(encoding="utf-8"))
    md_config = MdParserConfig(enable_extensions=set(config["parse"]["myst_enable_extensions"]))
    in_sphinx = read_myst_markdown_notebook(chapter.read_text(encoding="utf-8"), config=md_config,
                                            add_source_map=True, path=str(chapter))
    cache = get_cache(str(tmp_path))
    executed = execute_chapters.read(chapter, *SETTINGS)
    for number, cell in enumerate(c for c in executed.cells if c.cell_type == "code"):
        cell.execution_count = number + 1
        cell.outputs = [nbformat.v4.new_output("stream", text="ran\n")]
    cache.cache_notebook_bundle(CacheBundleIn(executed, str(chapter)), check_validity=True)
    assert cache.match_cache_notebook(in_sphinx).uri == str(chapter)
    _, merged = cache.merge_match_into_notebook(in_sphinx)
    assert all(c.outputs for c in merged.cells if c.cell_type == "code")


def test_a_failing_cell_comes_back_as_its_error(tmp_path):
    cells = [nbformat.v4.new_code_cell("from pathlib import Path; Path('ran').touch()"),
             nbformat.v4.new_code_cell("raise ValueError('the chapter is wrong')")]
    notebook = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})
    executed, seconds, error = execute_chapters.execute(notebook, tmp_path, SETTINGS[1], {})
    assert "ValueError" in error and "the chapter is wrong" in error and seconds > 0
    assert executed.cells[0].execution_count == 1 and (tmp_path / "ran").exists()   # in its folder


def test_a_kernel_that_did_not_start_is_started_again(tmp_path, monkeypatch, capsys):
    """Two kernels starting at once can take the same TCP port; the second dies before any cell."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")], metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})
    real, starts = execute_chapters.single_nb_execution, []

    def flaky(*args, **kwargs):
        starts.append(1)
        if len(starts) == 1:
            raise RuntimeError("Kernel died before replying to kernel_info")
        return real(*args, **kwargs)

    monkeypatch.setattr(execute_chapters, "single_nb_execution", flaky)
    executed, _, error = execute_chapters.execute(notebook, tmp_path, SETTINGS[1], {})
    assert error is None and len(starts) == 2 and executed.cells[0].outputs
    assert "a kernel did not start" in capsys.readouterr().err

    def broken(*args, **kwargs):
        raise RuntimeError("something else")

    monkeypatch.setattr(execute_chapters, "single_nb_execution", broken)
    with pytest.raises(RuntimeError, match="something else"):   # not a start-up failure: not retried
        execute_chapters.execute(notebook, tmp_path, SETTINGS[1], {})

"""The downloadable chapter notebooks: MyST written out, exercises numbered, solutions hidden."""

import sys
from pathlib import Path
from types import SimpleNamespace

import nbformat
from pybtex.database import parse_string

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "_ext"))
from notebook_download import _Writer, with_outputs  # noqa: E402

BIB = parse_string("""
@article{one2020, author = {Graham, Yvette}, title = {T}, year = {2020}}
@article{two2021, author = {Wei, Johnny and Jia, Robin}, title = {T}, year = {2021}}
@article{many2024, author = {Thompson, Brian and Mathur, Nitika and Deutsch, Daniel},
          title = {T}, year = {2024}}
""", "bibtex")


def writer(glued):
    domains = {"std": SimpleNamespace(labels={"ch-spa": ("chapters/spa", "id", "Soft Pairwise Accuracy")}),
               "math": SimpleNamespace(equations={"eq-spa": ("chapters/spa", 2)})}
    app = SimpleNamespace(env=SimpleNamespace(get_domain=domains.__getitem__))
    return _Writer(app, glued, BIB)


def glue_entry(text):
    return {"data": {"text/plain": text}}


def test_roles_are_written_out():
    w = writer({"pa": glue_entry("0.83912"), "name": glue_entry("'COMET'")})
    text = w.text("(ch-x)=\nPA {glue:text}`pa:.3f` of {glue:text}`name`, see {ref}`ch-spa`, "
                  "{ref}`the test <ch-spa>`, eq. {eq}`eq-spa`, {term}`PERM-BOTH`,\n"
                  "{cite:t}`many2024` and {cite:p}`one2020,two2021`.\n$$\nx\n$$ (eq-spa)")
    assert text == ("PA 0.839 of COMET, see Soft Pairwise Accuracy, the test, eq. (2), PERM-BOTH,\n"
                    "Thompson et al. (2024) and (Graham 2020; Wei and Jia 2021).\n$$\nx\n$$")


def test_exercises_are_numbered_and_solutions_hidden():
    executed = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("## Exercises\n\n```{exercise}\n:label: ex-a-1\n\nDo {glue:text}`k`.\n```"
                                      "\n\n```{solution-start} ex-a-1\n:class: dropdown\n```"),
        nbformat.v4.new_code_cell("answer = 1"),
        nbformat.v4.new_markdown_cell("It is one.\n\n```{solution-end}\n```\n\nAfter."),
        nbformat.v4.new_code_cell("plot()", metadata={"mystnb": {"figure": {"caption": "A  plot\n of {glue:text}`k`."}}}),
    ])
    out = writer({"k": glue_entry("3")}).notebook(executed)
    kinds = [(c.cell_type, c.source if c.cell_type == "markdown" else c.metadata.get("jupyter"))
             for c in out.cells[1:]]
    assert kinds == [
        ("markdown", "## Exercises"),
        ("markdown", "**Exercise 1.** Do 3.\n\n*(The solution follows, collapsed.)*"),
        ("code", {"source_hidden": True, "outputs_hidden": True}),
        ("markdown", "<details><summary>Solution</summary>\n\nIt is one.\n\n</details>"),
        ("markdown", "After."),
        ("code", None),
        ("markdown", "*Figure: A plot of 3.*"),
    ]


def test_the_downloadable_notebook_gets_the_outputs_the_cache_holds(tmp_path):
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    kernel = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    run = nbformat.v4.new_notebook(metadata=kernel, cells=[
        nbformat.v4.new_markdown_cell("Text."),
        nbformat.v4.new_code_cell("1 + 1", execution_count=1, outputs=[
            nbformat.v4.new_output("execute_result", data={"text/plain": "2"}, execution_count=1)])])
    get_cache(tmp_path).cache_notebook_bundle(CacheBundleIn(run, "chapter.ipynb"), check_validity=False)
    read = nbformat.v4.new_notebook(metadata=kernel, cells=[
        nbformat.v4.new_markdown_cell("Text."), nbformat.v4.new_code_cell("1 + 1")])   # as MyST-NB writes it
    merged = with_outputs(read, tmp_path)
    assert merged.cells[1].outputs[0]["data"]["text/plain"] == "2"
    other = nbformat.v4.new_notebook(metadata=kernel, cells=[nbformat.v4.new_code_cell("2 + 2")])
    assert with_outputs(other, tmp_path) is other                  # not in the cache: as it was

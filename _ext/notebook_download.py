"""Offer every chapter as an executed notebook whose text reads as the page does.

MyST-NB writes each chapter to ``_build/jupyter_execute`` (without outputs when they come from
the execution cache: :func:`with_outputs` merges them back), but its markdown still holds the
MyST roles and directives: opened in Jupyter it shows raw ``{glue:text}`` roles and every
solution in plain sight.  After the HTML build this extension writes
``_sources/<chapter>.ipynb`` beside the page's source with the glued values, references and
citations written out, exercises numbered and solutions collapsed (markdown in ``<details>``,
code cells with ``source_hidden``/``outputs_hidden``, which JupyterLab and Notebook 7 honour),
and each figure's caption after its cell; the page's download menu links it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
from jupyter_cache import get_cache
from myst_nb.core.variables import format_plain_text
from pybtex.database import parse_file
from sphinx.util import logging

ROLE = re.compile(r"\{(?P<name>[a-z:]+)\}`(?P<text>[^`]+)`")
LABEL_LINE = re.compile(r"^\(([\w-]+)\)=\s*$")
EQUATION_LABEL = re.compile(r"^(\$\$)\s*\([\w-]+\)\s*$")
FENCE = re.compile(r"^```\{(?P<name>[\w-]+)\}\s*(?P<arg>.*)$")
EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^>]+)>$")

PREFACE = """*This notebook is a chapter of the book as it was executed when the HTML pages were
built: the outputs, the values in the text and the figures are that run's.  To run it yourself,
in any folder, you need the library and the data: `pip install` the book's repository (which
installs `spalib`, with the papers' published values), then `python -m spalib.data ensure` and
`python -m spalib.data prepare` once, or set `SPALIB_DATA` to a folder your teacher prepared.
Solutions are collapsed: click a "Solution" line or a hidden cell to open it.*"""


def _cite(keys: str, kind: str, bib) -> str:
    parts = []
    for key in (k.strip() for k in keys.split(",")):
        entry = bib.entries[key]
        names = [" ".join(p.last_names) for p in entry.persons.get("author", [])]
        who = (names[0] if len(names) == 1 else " and ".join(names) if len(names) == 2
               else f"{names[0]} et al.")
        year = entry.fields.get("year", "")
        parts.append(f"{who} ({year})" if kind == "t" else f"{who} {year}")
    return "; ".join(parts) if kind == "t" else f"({'; '.join(parts)})"


class _Writer:
    """Turns one executed chapter notebook into its downloadable form."""

    def __init__(self, app, glued: dict, bib):
        self.labels = app.env.get_domain("std").labels
        self.equations = app.env.get_domain("math").equations
        self.glued, self.bib = glued, bib
        self.exercises = 0

    def role(self, match: re.Match) -> str:
        name, text = match["name"], match["text"]
        if name == "glue:text":
            key, _, spec = text.partition(":")
            return format_plain_text(self.glued[key]["data"]["text/plain"], spec)
        explicit = EXPLICIT.match(text)
        if name in ("ref", "numref", "term"):
            if explicit:
                return explicit["text"]
            return self.labels[text][2] if name != "term" else text
        if name.startswith("cite:"):
            return _cite(text, name[5:], self.bib)
        if name == "eq":
            return f"({self.equations[text][1]})"
        return text

    def text(self, source: str) -> str:
        lines = [EQUATION_LABEL.sub(r"\1", line) for line in source.splitlines()
                 if not LABEL_LINE.match(line)]
        return ROLE.sub(self.role, "\n".join(lines)).strip()

    def markdown(self, source: str, state: dict) -> list[str]:
        """Markdown cells for one source cell; ``state['solution']`` carries across cells."""
        cells, buffer, lines = [], [], iter(source.splitlines())

        def flush():
            text = self.text("\n".join(buffer))
            if text:
                cells.append(f"<details><summary>Solution</summary>\n\n{text}\n\n</details>"
                             if state["solution"] else text)
            buffer.clear()

        for line in lines:
            fence = FENCE.match(line)
            if not fence:
                buffer.append(line)
                continue
            flush()
            body = []
            for inner in lines:             # the directive's options and body
                if inner.startswith("```"):
                    break
                body.append(inner)
            body = [b for b in body if not b.startswith(":")]   # drop the options
            if fence["name"] == "exercise":
                self.exercises += 1
                text = self.text("\n".join(body))
                cells.append(f"**Exercise {self.exercises}.** {text}\n\n"
                             "*(The solution follows, collapsed.)*")
            elif fence["name"] in ("solution-start", "solution-end"):
                state["solution"] = fence["name"] == "solution-start"
            else:                            # an admonition or other block: keep its text
                title = fence["arg"] or fence["name"].capitalize()
                cells.append(f"**{title}.** {self.text(chr(10).join(body))}")
        flush()
        return cells

    def notebook(self, executed) -> nbformat.NotebookNode:
        out = nbformat.v4.new_notebook(metadata=executed.metadata)
        out.cells.append(nbformat.v4.new_markdown_cell(PREFACE))
        state = {"solution": False}
        for cell in executed.cells:
            if cell.cell_type == "markdown":
                out.cells += [nbformat.v4.new_markdown_cell(t)
                              for t in self.markdown(cell.source, state)]
                continue
            cell = nbformat.from_dict(cell)
            if state["solution"]:
                cell.metadata["jupyter"] = {"source_hidden": True, "outputs_hidden": True}
            out.cells.append(cell)
            caption = cell.metadata.get("mystnb", {}).get("figure", {}).get("caption")
            if caption:
                out.cells.append(nbformat.v4.new_markdown_cell(
                    f"*Figure: {self.text(' '.join(caption.split()))}*"))
        return out


def _chapters(app) -> list[str]:
    return sorted(d for d in app.env.found_docs if d.startswith("chapters/"))


def _page_context(app, pagename, templatename, context, doctree):
    if pagename in _chapters(app):
        context["ipynb_source"] = f"{pagename}.ipynb"   # read by the theme's download menu


def with_outputs(notebook, cache_path):
    """``notebook`` with its outputs from the execution cache at ``cache_path``.

    With ``execute_notebooks: cache``, MyST-NB renders a cached chapter from the cache's outputs
    but writes ``jupyter_execute/<chapter>.ipynb`` from the notebook it read, without them; the
    cache matches a notebook by its code, so the outputs are merged back the same way.  A
    notebook the cache does not hold is returned as it is.
    """
    try:
        return get_cache(cache_path).merge_match_into_notebook(notebook)[1]
    except KeyError:       # jupyter-cache's "no cache record matches"
        return notebook


def _write_notebooks(app, exception):
    if exception is not None or app.builder.name != "html":
        return
    executed_root = Path(app.outdir).parent / "jupyter_execute"
    bib = parse_file(Path(app.srcdir) / "references.bib")
    cache_path = app.env.mystnb_config.execution_cache_path
    for docname in _chapters(app):
        executed = with_outputs(nbformat.read(executed_root / f"{docname}.ipynb", as_version=4), cache_path)
        code = [c for c in executed.cells if c.cell_type == "code"]
        if code and not any(c.outputs for c in code):   # the preface promises the run's outputs
            logging.getLogger(__name__).warning(f"{docname}: no outputs for its downloadable notebook")
        glued = json.loads((executed_root / f"{docname}.glue.json").read_text(encoding="utf-8"))
        notebook = _Writer(app, glued, bib).notebook(executed)
        target = Path(app.outdir) / "_sources" / f"{docname}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, target)


def setup(app):
    """Register the download link and the notebooks' writer with Sphinx."""
    app.connect("html-page-context", _page_context, priority=500)   # before the theme's 501
    app.connect("build-finished", _write_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

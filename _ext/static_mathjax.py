"""Keep the book's copy of MathJax out of every page's script list.

Jupyter Book adds every ``.js`` file under ``_static`` to every page. For the MathJax copy in
``_static/mathjax`` that meant 45 extra scripts per page: a second, synchronous MathJax, every TeX
extension, and ``ui/lazy.js``, which typesets a formula only once it scrolls into view (the
browser check twice saw 0 of 23 formulas typeset). MathJax loads the parts it needs itself, from
``mathjax_path``.
"""


def _drop_mathjax_parts(app, config):
    config.html_js_files = [entry for entry in config.html_js_files
                            if not _name(entry).startswith("mathjax/")]


def _name(entry):
    return entry[0] if isinstance(entry, tuple) else entry


def setup(app):
    """Register the filter; it runs before the HTML builder reads ``html_js_files``."""
    app.connect("config-inited", _drop_mathjax_parts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""One look for every figure in the book."""

from __future__ import annotations

import matplotlib as mpl
import seaborn as sns

__all__ = ["set_book_style", "pair_heatmap", "style_ledger"]


# The smallest text of a figure, in the image's own pixels, travels with the PNG as this text
# chunk, so that the browser check can tell how large it is where the page shows the image.
MIN_FONT_KEY = "spalib-min-font-px"


def smallest_text_px(fig) -> float:
    """The smallest font of the figure's visible, non-empty texts, in pixels at ``fig.dpi``."""
    from matplotlib.text import Text

    fig.canvas.draw()
    sizes = [t.get_fontsize() for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip() and t.get_figure() is fig]
    return min(sizes, default=float("inf")) * fig.dpi / 72


def _png_with_font_size(fig):
    from IPython.core.pylabtools import print_figure

    metadata = {MIN_FONT_KEY: f"{smallest_text_px(fig):.2f}"}
    return print_figure(fig, fmt="png", base64=True, metadata=metadata)


def set_book_style() -> None:
    """Seaborn's white grid, the colour-blind palette, and a size that fits the book's column.

    In IPython, figures are shown as PNGs that record their smallest font (``MIN_FONT_KEY``).
    """
    sns.set_theme(style="whitegrid", palette="colorblind")
    mpl.rcParams.update({
        "figure.figsize": (7.0, 4.0),
        "figure.dpi": 110,
        "savefig.dpi": 110,
        "savefig.bbox": "tight",
        "axes.titlesize": "medium",
    })
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        from matplotlib.figure import Figure

        if "inline" in mpl.get_backend():
            # importing the inline backend resets the figure formatters: do it before ours
            import matplotlib_inline.backend_inline  # noqa: F401
        shell.display_formatter.formatters["image/png"].for_type(Figure, _png_with_font_size)


def pair_heatmap(ax, matrix, labels, *, title=None, cmap="RdBu", vmin=0.0, vmax=1.0, annotate=False, fmt=".2f",
                 label_size=7, annotation_size=5.5):
    """Heatmap of an upper-triangular systems x systems matrix (NaN cells left blank)."""
    import numpy as np

    values = np.asarray(matrix, dtype=float)
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=vmin, vmax=vmax)
    ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=label_size)
    ax.set_yticks(range(len(labels)), labels, fontsize=label_size)
    ax.grid(False)
    if title:
        ax.set_title(title)
    if annotate:
        for (i, j), v in np.ndenumerate(values):
            if np.isfinite(v):
                ax.text(j, i, format(v, fmt), ha="center", va="center", fontsize=annotation_size,
                        color=_ink_on(image.cmap(image.norm(v))))
    return image


def _ink_on(rgba) -> str:
    """Black or white text, whichever contrasts more with a cell of colour ``rgba``."""
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3])
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b        # WCAG relative luminance
    return "black" if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) else "white"


def style_ledger(ledger):
    """A reproduction ledger (:func:`spalib.reproduction_ledger`) as a table: published numbers as
    printed, ours to four significant digits, missing ones as a dash, differences flagged by colour.
    """
    colours = {"match": "#e6f4ea", "differs": "#fde8e8", "different data": "#fff4d6"}

    def row_colour(row):
        colour = colours.get(row["status"].split(":")[0], "")
        return [f"background-color: {colour}" if colour else ""] * len(row)
    numbers = ["ours", "|difference|", "tolerance"]
    cells = [  # padding, so that neighbouring numbers never run together
        {"selector": "th, td", "props": "padding: 0.2em 0.6em; vertical-align: top;"},
        {"selector": "td", "props": "text-align: right;"},
        {"selector": "td.col4, td.col5", "props": "text-align: left;"}]
    return (ledger.style.format("{:.4g}", subset=numbers, na_rep="—")
            .format(lambda x: x if isinstance(x, str) else f"{x:.4g}", subset=["published"])
            .apply(row_colour, axis=1).set_table_styles(cells))

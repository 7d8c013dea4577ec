"""One look for every figure in the book."""

from __future__ import annotations

import matplotlib as mpl
import seaborn as sns

__all__ = ["set_book_style", "pair_heatmap", "style_ledger"]


def set_book_style() -> None:
    """Seaborn's white grid, the colour-blind palette, and a size that fits the book's column."""
    sns.set_theme(style="whitegrid", palette="colorblind")
    mpl.rcParams.update({
        "figure.figsize": (7.0, 4.0),
        "figure.dpi": 110,
        "savefig.dpi": 110,
        "savefig.bbox": "tight",
        "axes.titlesize": "medium",
    })


def pair_heatmap(ax, matrix, labels, *, title=None, cmap="RdBu", vmin=0.0, vmax=1.0, annotate=False, fmt=".2f"):
    """Heatmap of an upper-triangular systems x systems matrix (NaN cells left blank)."""
    import numpy as np

    values = np.asarray(matrix, dtype=float)
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=vmin, vmax=vmax)
    ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.grid(False)
    if title:
        ax.set_title(title)
    if annotate:
        for (i, j), v in np.ndenumerate(values):
            if np.isfinite(v):
                ax.text(j, i, format(v, fmt), ha="center", va="center", fontsize=5.5,
                        color="white" if abs(v - (vmin + vmax) / 2) > 0.35 * (vmax - vmin) else "black")
    return image


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

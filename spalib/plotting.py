"""One look for every figure in the book."""

from __future__ import annotations

import matplotlib as mpl
import seaborn as sns

__all__ = ["set_book_style"]


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

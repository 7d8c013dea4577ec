"""The book's figure style: the smallest text travels with the PNG; annotation ink contrasts."""

import base64
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from spalib import plotting  # noqa: E402


def test_the_png_records_the_smallest_text_in_image_pixels():
    plotting.set_book_style()
    fig, ax = plt.subplots(dpi=144)
    ax.plot([0, 1])
    ax.text(0.5, 0.5, "small", fontsize=6)
    ax.text(0.5, 0.2, "", fontsize=2)                  # empty: not text a reader sees
    ax.text(0.5, 0.1, "hidden", fontsize=3).set_visible(False)
    assert plotting.smallest_text_px(fig) == 6 * 144 / 72
    png = Image.open(io.BytesIO(base64.b64decode(plotting._png_with_font_size(fig))))
    assert float(png.info[plotting.MIN_FONT_KEY]) == 12.0
    plt.close(fig)


def test_annotations_take_the_ink_that_contrasts_with_their_cell():
    assert plotting._ink_on((1.0, 1.0, 1.0, 1.0)) == "black"
    assert plotting._ink_on((0.0, 0.27, 0.11, 1.0)) == "white"    # Greens' darkest
    fig, ax = plt.subplots()
    values = np.array([[0.0, 1.0], [np.nan, 0.5]])
    plotting.pair_heatmap(ax, values, ["a", "b"], cmap="Greens", annotate=True)
    inks = {t.get_text(): t.get_color() for t in ax.texts}
    assert inks == {"0.00": "black", "1.00": "white", "0.50": "black"}
    plt.close(fig)

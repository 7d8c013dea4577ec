"""benchmarks/prose_stats.py counts what the closing notes quote: the main text's words and
sentences, and the code a reader sees."""

from __future__ import annotations

from tests.conftest import benchmark

CHAPTER = """\
---
kernelspec:
  name: python3
---
# A chapter

## In brief
The test flips signs at random. A glued {glue:text}`p-value` counts as one word here.[^a]

- a list item is a sentence of its own
- and so is this one, with $x_i$ as one word

:::{dropdown} How we know
This sentence sits in a dropdown and is not main text at all.
:::

```{code-cell} ipython3
x = 1
print(x)
```

```{code-cell} ipython3
:tags: [hide-cell]
glue("p-value", 0.5)
assert x == 1
```

```{code-cell} ipython3
glue("shown", 2)
```

```{code-cell} ipython3
:tags: [hide-input]
table = build_the_table()
```

```{code-cell} ipython3
---
tags: [hide-input]
---
plot_the_table()
```

```{code-cell} ipython3
---
mystnb:
  figure:
    caption: "Options are not code."
---
plot(x)
```

[^a]: A footnote is not main text either,
    nor are the indented lines that continue it.

## Exercises
Everything after this heading is left out of the main text.
"""


def test_main_text_keeps_paragraphs_and_list_items_and_drops_the_rest(monkeypatch):
    prose = benchmark("prose_stats", monkeypatch)
    text = prose.main_text(CHAPTER)
    assert "dropdown" not in text and "footnote" not in text and "Everything" not in text
    assert "continue" not in text
    assert "print(x)" not in text
    assert prose.sentence_lengths(text) == [6, 8, 9, 10]


def test_chapter_stats_counts_words_sentences_and_the_visible_code(monkeypatch, tmp_path):
    prose = benchmark("prose_stats", monkeypatch)
    path = tmp_path / "toy.md"
    path.write_text(CHAPTER, encoding="utf-8")
    assert prose.chapter_stats(path) == {
        "words": 33, "sentences": 4, "mean": 8.2, "over 40 %": 0.0,
        "code lines": 4, "glue shown": 1, "assert shown": 0, "footnotes": 1}


def test_a_sentence_over_forty_words_is_counted(monkeypatch):
    prose = benchmark("prose_stats", monkeypatch)
    long = " ".join(["word"] * 41) + ". Short one here."
    assert prose.sentence_lengths(prose.main_text(long)) == [41, 3]


def test_a_bold_run_in_heading_ends_its_sentence(monkeypatch):
    prose = benchmark("prose_stats", monkeypatch)
    text = "**On real data.** Real pairs differ in gap. So we draw again."
    assert prose.sentence_lengths(prose.main_text(text)) == [3, 5, 4]


def test_a_label_is_not_prose_but_a_line_opening_with_a_parenthesis_is(monkeypatch):
    prose = benchmark("prose_stats", monkeypatch)
    text = "(sec-toy)=\nA short first line\n(and its second line) ends here."
    assert prose.sentence_lengths(prose.main_text(text)) == [10]

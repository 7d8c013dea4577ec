"""How the chapters read: the main text's length and sentence lengths, and the code a reader sees.

Counted as prose: markdown paragraphs and list items before a heading "Exercises", "Notes and
checks" or "Reproduction ledger". Left out: code cells and every other directive's content
(dropdowns, exercises, figures), math blocks, tables, headings and footnote definitions.
Visible code: the lines of code cells whose source is not collapsed or removed (no ``hide-cell``,
``hide-input``, ``remove-cell`` or ``remove-input`` tag).
The targets (``../shared/design/CHAPTER_STYLE.md``): about 20 words a sentence or fewer, at most
5% of sentences over 40 words, about 2,000-2,500 words a chapter.

Usage: .venv/bin/python benchmarks/prose_stats.py [--long] [chapters/NAME.md ...]
(--long first prints every main-text sentence over 40 words.)
"""

from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path

END = re.compile(r"^#+\s+(Exercises|Notes and checks|Notes|Reproduction ledger)\b", re.I)
CELL = re.compile(r"```\{code-cell\}[^\n]*\n(.*?)```", re.S)
OPTION_BLOCK = re.compile(r"\A---\n.*?\n---\n", re.S)     # a cell's options in YAML form
SOURCE_HIDDEN = re.compile(r"^:?tags:.*\b(hide-cell|hide-input|remove-cell|remove-input)\b", re.M)


def main_text(markdown: str) -> str:
    """The prose a reader meets first, one paragraph break per skipped block."""
    out, fence, colons, in_math, in_footnote = [], None, 0, False, False
    markdown = re.sub(r"\A---\n.*?\n---\n", "", markdown, flags=re.S)   # the front matter
    for line in markdown.splitlines():
        s = line.strip()
        if re.match(r"^\[\^[^\]]+\]:", s):
            in_footnote = True
        elif s and not line[0].isspace():
            in_footnote = False
        if in_footnote:                                       # a definition and its indented lines
            out.append("\n")
            continue
        if fence:
            if s.startswith(fence) and not s.strip("`~"):
                fence = None
            continue
        if m := re.match(r"^(`{3,}|~{3,})", s):
            fence = m.group(1)
            continue
        if re.match(r"^:{3,}\{", s):
            colons += 1
            continue
        if colons and re.match(r"^:{3,}\s*$", s):
            colons -= 1
            continue
        if colons:
            continue
        if s.startswith("$$"):
            in_math ^= not (len(s) > 2 and s.endswith("$$"))
            continue
        if in_math:
            continue
        if END.match(s):
            break
        skip = (not s or s.startswith(("|", "#", "---", "[^")) or re.match(r"^:\w+:", s)
                or re.match(r"^\([\w-]+\)=$", s))                # a MyST label, (name)=
        if item := re.match(r"^([-*+]|\d+\.)\s+", s):   # a list item is read on its own
            out.append("\n")
            s = s[item.end():]                            # and its marker is not a word
        out.append("\n" if skip else s)
    text = " ".join(out)
    text = re.sub(r"\{glue:text\}`[^`]*`", "N", text)       # a glued number is one word
    text = re.sub(r"\{[a-z:]+\}`([^`]*)`", r"\1", text)      # a role shows its text
    text = re.sub(r"\[\^[^\]]*\]", "", text)                  # footnote marks
    return re.sub(r"\$[^$]*\$", "X", text)                    # inline maths is one word


def sentences(text: str) -> list[str]:
    """Split after . ! or ? (a bold run-in heading's closing ** too) before a capital."""
    parts = re.split(r"(?<=[.!?])\**\s+(?=[A-Z*(`])|\n", text)
    return [s for s in (p.strip() for p in parts) if len(s.split()) >= 3]


def sentence_lengths(text: str) -> list[int]:
    return [len(s.split()) for s in sentences(text)]


def chapter_stats(path: Path) -> dict:
    markdown = path.read_text(encoding="utf-8")
    lengths = sentence_lengths(main_text(markdown))
    visible = [line for cell in CELL.findall(markdown)
               if not SOURCE_HIDDEN.search(cell)
               for line in OPTION_BLOCK.sub("", cell).splitlines()
               if line.strip() and not line.startswith(":")]
    return {"words": sum(lengths), "sentences": len(lengths),
            "mean": round(statistics.mean(lengths), 1) if lengths else 0.0,
            "over 40 %": round(100 * sum(n > 40 for n in lengths) / max(len(lengths), 1), 1),
            "code lines": len(visible),
            "glue shown": sum("glue(" in line for line in visible),
            "assert shown": sum(line.lstrip().startswith("assert") for line in visible),
            "footnotes": len(set(re.findall(r"^\[\^([^\]]+)\]:", markdown, re.M)))}


def main(argv: list[str]) -> None:
    book = Path(__file__).resolve().parent.parent
    paths = [Path(p) for p in argv if p != "--long"] or sorted((book / "chapters").glob("*.md"))
    if "--long" in argv:                       # the sentences to split first
        for path in paths:
            for sentence in sentences(main_text(path.read_text(encoding="utf-8"))):
                if len(sentence.split()) > 40:
                    print(f"{path.stem}: {sentence}\n")
    rows = {p.stem: chapter_stats(p) for p in paths}
    columns = list(next(iter(rows.values())))
    print("chapter".ljust(26) + "".join(c.rjust(14) for c in columns))
    for name, row in rows.items():
        print(name.ljust(26) + "".join(str(row[c]).rjust(14) for c in columns))
    words = sum(r["words"] for r in rows.values())
    n_sentences = sum(r["sentences"] for r in rows.values())
    print(f"all: {words} words in {n_sentences} sentences, {words / max(n_sentences, 1):.1f} words a sentence")


if __name__ == "__main__":
    main(sys.argv[1:])

"""read_seg_score_file's two paths: pandas' C tokenizer for plain NAME<TAB>SCORE files, the
line-by-line reader for everything else; the same frame, value for value, and the same errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from spalib import data
from spalib.data import mtme


def line_by_line(monkeypatch, path, n_segments, **kw):
    with monkeypatch.context() as m:
        m.setattr(mtme, "_tab_fields", lambda text: None)
        return data.read_seg_score_file(path, n_segments, **kw)


@pytest.mark.parametrize("lp", ["en-de", "he-en", "zh-en"])
def test_every_wmt23_segment_file_reads_the_same_both_ways(monkeypatch, lp):
    es = data.load_mtme("wmt23", lp)
    n = 0
    for name in es.metric_names + es.human_score_names:
        if "seg" not in es.levels(name):
            continue
        path = es._file(name, "seg")
        assert mtme._tab_fields(mtme.read_text(path)) is not None        # the fast path is taken
        fast = data.read_seg_score_file(path, len(es.segments), systems=es.systems)
        pd.testing.assert_frame_equal(fast, line_by_line(monkeypatch, path, len(es.segments), systems=es.systems))
        n += 1
    assert n > 20


@pytest.mark.parametrize("text", [
    "a\t0.1\nb\t-2.5e-3\na\tNone\nb\t7\n",                       # tabs, None, exponent
    "a\t0.1\nb\t0.2\na\t0.30000000000000004\nb\tNone",            # no final newline, None last
    "a 0.1\nb\t0.2\na\t0.3\nb\t0.4\n",                            # a space: line by line
    "a\t0.1\r\nb\t0.2\r\na\t0.3\r\nb\t0.4\r\n",                   # CRLF: line by line
])
def test_plain_and_other_files_read_the_same_both_ways(tmp_path, monkeypatch, text):
    path = tmp_path / "m.seg.score"
    path.write_text(text, encoding="utf-8", newline="")
    fast = data.read_seg_score_file(path, 2)
    pd.testing.assert_frame_equal(fast, line_by_line(monkeypatch, path, 2))
    assert list(fast.index) == ["a", "b"]


@pytest.mark.parametrize("text, message", [
    ("a\t0.1\nb\tnan\na\t0.3\nb\t0.4\n", "line 2|:2: score 'nan' is not a finite number"),
    ("a\t0.1\nb\tinf\na\t0.3\nb\t0.4\n", ":2: score 'inf' is not a finite number"),
    ("a\t0.1\nb\tx\na\t0.3\nb\t0.4\n", ":2: score 'x' is not a number"),
    ("a\t0.1\n\na\t0.3\nb\t0.4\n", ":2: expected 2 fields"),
    ("a\t0.1\tz\nb\t0.2\na\t0.3\nb\t0.4\n", ":1: expected 2 fields"),
    ("a\t0.1\nb\nа\t0.3\nb\t0.4\n", ":2: expected 2 fields"),
    ("a\t0.1\nb\t0.2\na\t0.3\n", "system 'a' has 2 lines|system 'b' has 1 lines"),
])
def test_malformed_files_are_refused_by_line_as_before(tmp_path, text, message):
    path = tmp_path / "m.seg.score"
    path.write_text(text, encoding="utf-8", newline="")
    with pytest.raises(ValueError, match=message):
        data.read_seg_score_file(path, 2)
    assert mtme._tab_fields(text) is None or "lines" in message


def test_the_tab_path_parses_floats_as_python_does():
    values = ["0.1", "1e-320", "123456789.123456789", "-0.0", "2.5000000000000004"]
    text = "".join(f"s{k}\t{v}\n" for k, v in enumerate(values))
    names, scores = mtme._tab_fields(text)
    assert list(names) == [f"s{k}" for k in range(len(values))]
    np.testing.assert_array_equal(scores, [float(v) for v in values])
    assert np.signbit(scores[3])

"""The runs ``chapters/segment_da_metrics.md`` reads from ``spalib/data/results/`` are what the
library computes.

``benchmarks/segment_da_metrics.py`` writes them once because they are slow; the chapter rescores
WMT13 cs-en and reruns WMT17 lv-en.  This file rescores WMT13 en-de and reruns WMT17 tr-en.
"""

import pandas as pd

from spalib import data
from conftest import benchmark


def stored(name):
    return pd.read_csv(data.book_table(f"results/segment_da_metrics_{name}.csv"))


def test_the_wmt13_file_holds_what_en_de_scores(monkeypatch):
    script = benchmark("segment_da_metrics", monkeypatch)
    scores = stored("wmt13")
    assert list(scores["lp"].unique()) == list(data.WMT13_LPS)
    expected = scores[scores["lp"] == "en-de"].reset_index(drop=True)
    pd.testing.assert_frame_equal(script.wmt13_scores("en-de"), expected, check_exact=True)


def test_the_wmt17_files_hold_what_tr_en_gives(monkeypatch):
    script = benchmark("segment_da_metrics", monkeypatch)
    rows, tests = stored("wmt17"), stored("wmt17_tests")
    assert list(rows["lp"]) == script.WMT17_LPS
    row, lp_tests = script.wmt17_run("tr-en")
    pd.testing.assert_frame_equal(row[rows.columns], rows[rows["lp"] == "tr-en"].reset_index(drop=True),
                                  check_exact=True)
    pd.testing.assert_frame_equal(lp_tests, tests[tests["lp"] == "tr-en"].reset_index(drop=True),
                                  check_exact=True)

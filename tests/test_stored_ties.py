"""``spalib/data/results/ties_*.csv`` (written by ``benchmarks/ties.py``) hold what the library
computes.  ``chapters/ties.md`` recomputes WMT22 zh-en's tie rates; this file reruns WMT23 he-en's
and the chapter's ungrouped tenth.
"""

import pandas as pd

from spalib import data
from conftest import benchmark


def test_the_tie_rates_file_holds_what_wmt23_he_en_gives(monkeypatch):
    stored = pd.read_csv(data.book_table("results/ties_rates.csv"))
    script = benchmark("ties", monkeypatch)
    assert stored["set"].unique().tolist() == [" ".join(key) for key in script.EVAL_SETS]
    rerun = pd.DataFrame(script.rate_rows(("wmt23", "he-en")))
    pd.testing.assert_frame_equal(rerun, stored[stored["set"] == "wmt23 he-en"].reset_index(drop=True),
                                  check_exact=True)


def test_the_ungrouped_file_holds_the_chapters_tenth(monkeypatch):
    stored = pd.read_csv(data.book_table("results/ties_ungrouped.csv"))
    assert len(stored) == 1
    assert benchmark("ties", monkeypatch).ungrouped() == stored["epsilon"].iloc[0]

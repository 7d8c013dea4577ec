"""The runs ``chapters/spa_table1_ties.md`` reads from ``spalib/data/results/`` are what the library
computes.

``benchmarks/spa_table1_ties.py`` writes them once because they are slow; the chapter recounts
en-de's tie rules and reruns the first zh-en drop on five metrics.  This file reruns he-en's tie
rules and the second drop, every metric pair.
"""

import pandas as pd

from spalib import data
from conftest import benchmark


def test_the_tie_rule_files_hold_what_he_en_gives(monkeypatch):
    script = benchmark("spa_table1_ties", monkeypatch)
    runs = pd.read_csv(data.book_table("results/spa_table1_ties_rules.csv"))
    pairs = pd.read_csv(data.book_table("results/spa_table1_ties_pairs.csv"))
    assert list(runs["lp"]) == list(script.LANGUAGE_PAIRS)
    row, lp_pairs = script.tie_rules("he-en")
    pd.testing.assert_frame_equal(pd.DataFrame([row]), runs[runs["lp"] == "he-en"].reset_index(drop=True),
                                  check_exact=True)
    pd.testing.assert_frame_equal(pd.DataFrame(lp_pairs),
                                  pairs[pairs["lp"] == "he-en"].reset_index(drop=True), check_exact=True)


def test_the_drop_files_hold_what_the_second_drop_gives(monkeypatch):
    script = benchmark("spa_table1_ties", monkeypatch)
    drops = pd.read_csv(data.book_table("results/spa_table1_ties_drops.csv"))
    pvalues = pd.read_csv(data.book_table("results/spa_table1_ties_drop_pairs.csv"))
    zh, zh_distinct = script.zh_en()
    assert list(drops["system"]) == script.kept_systems(zh, zh_distinct)
    second = drops["system"].iloc[1]
    row, p = script.drop(zh, second)
    assert row == drops.iloc[1].to_dict()
    expected = pvalues[pvalues["system"] == second].reset_index(drop=True)
    pd.testing.assert_frame_equal(p[list(expected.columns)], expected, check_exact=True)

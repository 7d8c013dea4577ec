"""The runs ``chapters/summeval.md`` reads from ``spalib/data/results/summeval_*`` are what
``benchmarks/summeval.py`` computes.

The chapter recomputes the error table's first seed, ranks the best two metrics and the crowd
again, reruns each statistic's more-seed test with the largest stored p-value and ranks
exercise 2's best two again; this file reruns other slices: the error table's second seed,
three other metrics of the ranking, the last test of the last more seed and exercise 2's last
two metrics.
"""


import numpy as np
import pandas as pd
import pytest

import spalib
from spalib import data
from conftest import benchmark


@pytest.fixture(scope="module")
def script():
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield benchmark("summeval", monkeypatch)


@pytest.fixture(scope="module")
def book(script):
    return script.Book()


def test_the_table1_file_holds_what_the_second_seed_gives(script, book):
    stored = pd.read_csv(data.book_table("results/summeval_table1.csv"))
    assert stored["seed"].tolist() == [k for k in range(script.N_SEEDS) for _ in range(5)]
    rerun = script.table1_rows(script.table1_run(book, 1), 1)
    expected = stored[stored["seed"] == 1].reset_index(drop=True)
    pd.testing.assert_frame_equal(rerun, expected, check_exact=True)


def test_the_ranking_file_holds_what_three_other_metrics_rank_to(script, book):
    stored = spalib.MetricRanking.load(data.book_table("results/summeval_ranking.json"))
    names = ["ROUGE-1", "ROUGE-L", "BERTScore"]    # the chapter reruns the best two and the crowd
    lent = stored.with_draws_of(script.ranking(book, names))   # refuses unless equal, bit for bit
    assert len(lent.versus("ROUGE-1", ["ROUGE-L", "BERTScore"])) == 2 * len(script.STATS)
    for comparison in stored.comparisons.values():
        assert set(comparison.scores.index) == set(book.metrics)
        assert comparison.pvalues.notna().to_numpy().sum() == len(book.metrics) * (len(book.metrics) - 1) // 2


def test_the_seeds_file_holds_what_the_last_test_of_the_last_seed_gives(script, book):
    stored = pd.read_csv(data.book_table("results/summeval_seeds.csv"))
    assert sorted(stored["seed"].unique()) == list(script.EXTRA_SEEDS)
    best = spalib.MetricRanking.load(data.book_table("results/summeval_ranking.json")).comparisons[
        "SummEval", "spa"].scores.idxmax()
    seed, k = script.EXTRA_SEEDS[-1], len(book.metrics) - 2    # the last other metric
    for stat in script.STATS:
        rerun = script.more_seed_tests(book, best, seed, stat, ks=[k])
        expected = stored[(stored["seed"] == seed) & (stored["statistic"] == stat) & (stored["k"] == k)]
        pd.testing.assert_frame_equal(rerun, expected.reset_index(drop=True), check_exact=True,
                                      check_dtype=False)
    assert len(stored) == len(script.EXTRA_SEEDS) * len(script.STATS) * (len(book.metrics) - 1)


def test_the_by_crowd_file_holds_what_its_last_two_metrics_rank_to(script, book):
    stored = spalib.MetricRanking.load(data.book_table("results/summeval_by_crowd.json"))
    (comparison,) = stored.comparisons.values()
    names = list(comparison.scores.index[-2:])     # the chapter reruns the best two
    lent = stored.with_draws_of(script.by_crowd(book, names))
    assert np.isfinite(lent.comparisons["crowd", "spa"].null_draws(*names)).all()
    assert set(comparison.scores.index) == set(book.metrics) - {"crowd"}

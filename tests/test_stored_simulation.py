"""The simulation chapter's stored runs are what the library computes.

``benchmarks/simulation.py`` writes the three slow runs of ``chapters/simulation.md`` (the twins'
size table, the noisier pair's two-sided tests, early stopping) once; the chapter reruns the first
100 test sets of each case.  Each test set draws from a stream of its own, so the first ``n`` test
sets of a run come out the same when tested alone: this file reruns the first 300 of every case
(200 the chapter does not) and checks them against the files, bit for bit.
"""


import numpy as np
import pandas as pd
import pytest

from spalib import data
from conftest import benchmark

N_SETS = 300


def first(field, n):
    """The first ``n`` values of a stored field of space-separated values, as stored."""
    return " ".join(field.split()[:n])


@pytest.fixture(scope="module")
def rerun():
    with pytest.MonkeyPatch.context() as monkeypatch:
        return benchmark("simulation", monkeypatch).runs(N_SETS)


def test_the_twins_file_holds_what_the_first_test_sets_give(rerun):
    table = rerun[0]
    stored = pd.read_csv(data.book_table("results/simulation_twins.csv"))
    assert (stored["test sets"] == 2000).all() and len(stored) == 24
    assert (table["test sets"] == N_SETS).all()
    expected = stored.drop(columns="seconds").assign(**{"test sets": N_SETS})
    expected["extreme"] = [first(field, N_SETS) for field in expected["extreme"]]
    pd.testing.assert_frame_equal(table, expected, check_exact=True)


def test_the_better_file_holds_what_the_first_test_sets_give(rerun):
    stored = pd.read_csv(data.book_table("results/simulation_better.csv"))
    assert len(stored) == 2000
    pd.testing.assert_frame_equal(rerun[1], stored.iloc[:N_SETS], check_exact=True)


def test_the_early_stopping_file_holds_what_the_first_test_sets_give(rerun):
    table = rerun[2]
    stored = pd.read_csv(data.book_table("results/simulation_early_stopping.csv"))
    assert (stored["test sets"] == 1000).all()
    expected = stored.drop(columns="seconds").assign(**{"test sets": N_SETS})
    for column in ("extreme", "draws"):
        expected[column] = [first(field, N_SETS) for field in expected[column]]
    pd.testing.assert_frame_equal(table.drop(columns="seconds"), expected, check_exact=True)
    draws = np.array(stored.loc[1, "draws"].split(), dtype=int)
    assert (draws < 1000).any() and (np.array(stored.loc[0, "draws"].split(), dtype=int) == 1000).all()

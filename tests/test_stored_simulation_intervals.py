"""The stored runs of the intervals chapter are what the library computes.

``benchmarks/simulation_intervals.py`` writes the slow runs of ``chapters/simulation_intervals.md``
once (the clusters, SPA's targets, the intervals, the permutation test of two correlations, the
first exercise's table); the chapter recomputes the first 20 test sets of each and the exercise's
first size.  This file reruns other slices and checks them against the files, bit for bit: the
first 60 clusterings, SPA on the first 60 test sets, every PA interval at 100 segments and the first
SPA intervals, the first 50 data sets of the correlation tests, and the exercise's first two sizes.
A run that draws from the chapter's generator set after set starts from the state the file stores
after the run before it; where a slice leaves the generator where the full run does, that is
checked too.  ``benchmarks/simulation_intervals_seeds.py``'s file of rates on more seeds is
checked on seed 1's clusters.
"""


import numpy as np
import pandas as pd
import pytest

from spalib import data
from conftest import benchmark


@pytest.fixture(scope="module")
def script():
    with pytest.MonkeyPatch.context() as monkeypatch:
        return benchmark("simulation_intervals", monkeypatch)


@pytest.fixture(scope="module")
def runs():
    return pd.read_csv(data.book_table("results/simulation_intervals_runs.csv"), dtype=str).set_index("run")


def stored(run):
    return pd.read_csv(data.book_table(f"results/simulation_intervals_{run}.csv"))


def state(script, rng):
    """The generator's state as the runs file stores it, read as text."""
    return {k: str(v) for k, v in script.state_of(rng).items()}


def first(table, n):
    return table.iloc[:n].reset_index(drop=True)


def test_the_clusters_file_holds_what_the_first_60_test_sets_give(script):
    rerun = script.clusters(script.generator(), n_sets=60)
    table = stored("clusters")
    pd.testing.assert_frame_equal(rerun, first(table, 120), check_exact=True)
    assert len(table) == 2 * script.CLUSTER_R


def test_the_spa_file_holds_what_the_first_60_test_sets_give(script, runs):
    rng = script.generator()
    script.resume(rng, "clusters", runs)
    rerun = script.spa_targets(rng, n_sets=60)
    table = stored("spa")
    pd.testing.assert_frame_equal(rerun, first(table, 60), check_exact=True)
    assert len(table) == script.BIG_R
    assert state(script, rng) == runs.loc["spa"].drop("seconds").to_dict()   # the intervals start here


def test_the_intervals_file_holds_every_pa_interval_at_100_segments_and_the_first_spa_ones(script, runs):
    rng = script.generator()
    script.resume(rng, "spa", runs)
    n = script.CI_R + 20
    rerun = script.intervals(rng, n_rows=n)
    table = stored("intervals")
    pd.testing.assert_frame_equal(rerun, first(table, n), check_exact=True)
    assert rerun["statistic"].iloc[-1] == "spa"
    assert len(table) == 2 * 3 * script.CI_R


def test_the_correlations_and_exercise_files_hold_what_their_first_data_sets_give(script, runs):
    rng = script.generator()
    script.resume(rng, "intervals", runs)
    script.before_correlations(rng)
    rerun = script.correlations(rng, n_sets=50)
    table = stored("correlations")
    pd.testing.assert_frame_equal(rerun, first(table, 50), check_exact=True)
    assert len(table) == script.COR_R
    assert state(script, rng) == runs.loc["correlations"].drop("seconds").to_dict()   # as the full run
    rerun = script.ex3(rng, n_sizes=2)
    pd.testing.assert_frame_equal(rerun, first(stored("ex3"), 2), check_exact=True)


def test_the_more_seeds_file_holds_what_seed_1_gives_for_the_clusters():
    with pytest.MonkeyPatch.context() as monkeypatch:
        seeds = benchmark("simulation_intervals_seeds", monkeypatch)
    rng = np.random.default_rng([seeds.si.SEED, 1, 1])
    clusters = pd.DataFrame(seeds.split_rates(rng)).set_index("check")["rate"]
    stored_rates = pd.read_csv(data.book_table("results/simulation_intervals_seeds.csv"))
    seed_1 = stored_rates[stored_rates["seed"] == 1].set_index("check")["rate"]
    assert (clusters == seed_1[clusters.index]).all()
    assert set(seed_1.index) >= {"Williams, heavy scores", "permutation, normal scores",
                                 "95% interval of pa, limit, 100 segments"}

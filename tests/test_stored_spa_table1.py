"""The runs ``chapters/spa_table1.md`` reads from ``spalib/data/results/spa_table1*`` (Table 1's
rows, each comparison's JSON, the distinct SPA values and the simulation) are what
``benchmarks/spa_table1.py`` computes.

The chapter recomputes WMT23 he-en, its seed-4 distinct SPA values and the simulation's first row;
this file reruns other slices: WMT23 en-de, seed 1's distinct SPA values in every language pair,
and the simulation's first two rows (its rows draw in turn from one Generator, so only a run from
the first row is a slice of the stored run).  A rerun comparison is checked against the stored
one by ``MetricComparison.with_draws_of``, which refuses it unless its numbers are equal, bit for bit.
"""


import numpy as np
import pandas as pd
import pytest

import spalib
from spalib import data
from conftest import benchmark

EN_DE = ("wmt23", "en-de")


def stored(name):
    return pd.read_csv(data.book_table(f"results/spa_table1{name}.csv"))


def of(table, key):
    return table[(table["test set"] == key[0]) & (table["lp"] == key[1])].reset_index(drop=True)


def comparison(key, stat):
    """One stored comparison: ``spa_table1_<test set>_<lp>_<meta-metric>.json``."""
    file = f"results/spa_table1_{key[0]}_{key[1]}_{stat}.json"
    return spalib.MetricComparison.load(data.book_table(file))


@pytest.fixture(scope="module")
def script():
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield benchmark("spa_table1", monkeypatch)


def test_the_files_hold_four_language_pairs_and_every_pair_of_metrics(script):
    table = stored("")
    assert list(zip(table["test set"], table["lp"])) == script.LANGUAGE_PAIRS
    for key, row in zip(script.LANGUAGE_PAIRS, table.to_dict("records")):
        for stat in script.STATISTICS:
            c = comparison(key, stat)
            assert c.meta_metric == stat and len(c.scores) == row["metrics"]
            above = np.triu_indices(row["metrics"], 1)   # each pair once, better first
            assert c.pvalues.notna().to_numpy().sum() == len(above[0])
            assert (c.draws.to_numpy()[above] == 1000).all()
            # the table's counts are the comparison's
            assert c.n_significant == row[f"significant {stat.upper()}"]
            assert c.ranks.max() == row[f"clusters {stat.upper()}"]


def test_the_files_hold_what_wmt23_en_de_gives(script):
    row, comparisons = script.language_pair(EN_DE)
    table = of(stored(""), EN_DE).drop(columns="seconds")
    pd.testing.assert_frame_equal(pd.DataFrame([row]).drop(columns="seconds"), table,
                                  check_exact=True)
    for stat, c in comparisons.items():
        kept = comparison(EN_DE, stat)
        kept.with_draws_of(c)   # refused unless scores, p-values, draws and settings match
        pd.testing.assert_series_equal(c.ranks, kept.ranks, check_exact=True)


def test_the_distinct_spa_file_holds_what_seed_1_gives(script):
    table = stored("_distinct_spa")
    seeds = pd.read_csv(data.book_table("results/table1_seeds.csv"))
    assert table[["seed", "test set", "lp"]].equals(seeds[["seed", "test set", "lp"]])
    tasks = {key: script.load_task(key) for key in script.LANGUAGE_PAIRS}
    rerun = script.distinct_spa_table(tasks, seeds=[1])
    pd.testing.assert_frame_equal(rerun, table[table["seed"] == 1].reset_index(drop=True),
                                  check_exact=True)


def test_the_simulation_file_holds_what_its_first_two_rows_give(script):
    table = stored("_simulation")
    assert len(table) == script.SIM_R and table.shape[1] == 8
    rerun = script.simulation(n_rows=2)
    pd.testing.assert_frame_equal(rerun, table[list(rerun.columns)], check_exact=True)

"""The stored run of ``chapters/wei_jia.md`` is what the library computes.

``benchmarks/wei_jia.py`` bootstraps all pairs once because it is slow and writes
``spalib/data/results/wei_jia_{tables,pairs,systems,neural_shares}.csv``; the chapter bootstraps
WMT21 cs-en alone and checks it against them (and its neural zh-en bootstraps against the shares).
This reruns other slices of the same run: WMT21 de-en (with
cs-en, which sorts before it: each system's trials are keyed by its place in sorted order), the
worker bootstrap's first more seed (the metrics' first 1,000 trials of their row bootstraps, drawn
from the generator where Table 1's run has it) and zh-en's second more seed (the chapter checks
the first's BLEU row).
"""

import copy

import numpy as np
import pandas as pd
import pytest

import spalib
from spalib import data
from conftest import benchmark


@pytest.fixture(scope="module")
def stored():
    def read(name):
        return pd.read_csv(data.book_table(f"results/wei_jia_{name}.csv"))
    return read("tables"), read("pairs"), read("systems")


@pytest.fixture(scope="module")
def book():
    with pytest.MonkeyPatch.context() as monkeypatch:
        script = benchmark("wei_jia", monkeypatch)
        return script, script.Book()


def stored_table(tables, name, seed=0):
    rows = tables[(tables["table"] == name) & (tables["seed"] == seed)]
    return rows.set_index("row").rename_axis(None)[["error", "c0_noise", "bias", "c1_var"]]


def test_the_file_holds_what_wmt21_de_en_gives(book, stored):
    script, b = book
    tables, pairs, systems = stored
    rows, first_pairs = b.language_pairs(2)           # cs-en and de-en
    assert set(first_pairs["lp"]) == {"cs-en", "de-en"} and set(first_pairs["year"]) == {2021}
    boots = script.table1_bootstraps(b, rows, np.random.default_rng(script.SEED))
    labels, predictors = script.table1_predictors(*boots, first_pairs)
    de_en = (first_pairs["lp"] == "de-en").to_numpy()
    pd.testing.assert_frame_equal(script.decomposition_table(predictors, labels.loc[:, de_en]),
                                  stored_table(tables, "WMT21 de-en"), check_exact=True)
    rerun = script.pair_terms(labels, predictors, boots[0], boots[2], first_pairs)
    expected = pairs.set_index(["year", "lp", "first", "second"]).loc[rerun.index]
    pd.testing.assert_frame_equal(rerun, expected, check_exact=True)
    rerun_sd = script.system_sd(boots[0]).reset_index()
    pd.testing.assert_frame_equal(rerun_sd, systems.iloc[:len(rerun_sd)], check_exact=True)


def test_the_file_holds_what_the_worker_bootstraps_first_more_seed_gives(book, stored):
    script, b = book
    tables = stored[0]
    # the labels' and the human sample's draws, on cs-en alone, leave the generator where the run
    # has it; each metric's first 1,000 trials of all rows are then drawn from a copy of it, and
    # its cs-en bootstrap moves the generator on by its 10,000 trials
    rng = np.random.default_rng(script.SEED)
    cs_rows, _ = b.language_pairs(1)
    for _ in range(2):
        spalib.bootstrap_system_scores(cs_rows["raw"], cs_rows[script.KEYS], n_resamples=script.N_TRIALS,
                                       rng=rng)
    keys, predictors = b.judgements[script.KEYS], {}
    for m, s in b.stats_per_output.items():
        first = spalib.bootstrap_system_scores(s[b.judgements["output"]], keys, metric=m, n_resamples=1000,
                                               rng=copy.deepcopy(rng))
        predictors[script.METRICS[m]] = (first.predictions(b.pairs), False)
        spalib.bootstrap_system_scores(s[cs_rows["output"]], cs_rows[script.KEYS], metric=m,
                                       n_resamples=script.N_TRIALS, rng=rng)
    systems = spalib.bootstrap_system_scores(b.judgements["raw"], keys, n_resamples=1, rng=0)
    rerun = script.worker_decomposition(b, systems, predictors, np.random.default_rng([script.SEED, 1, 1]))
    pd.testing.assert_frame_equal(rerun, stored_table(tables, "workers", seed=1), check_exact=True)


def test_the_file_holds_what_zh_ens_second_more_seed_gives(book, stored):
    # the chapter checks the first seed's BLEU row
    script, b = book
    tables = stored[0]
    assert sorted(tables.loc[tables["table"] == "WMT22 zh-en", "seed"].unique()) == [0, *script.MORE_SEEDS]
    pd.testing.assert_frame_equal(script.zh_seed_table(b, 2), stored_table(tables, "WMT22 zh-en", seed=2),
                                  check_exact=True)

"""The seed runs the chapters read from ``spalib/data/results/`` are what the library computes.

``benchmarks/table1_seeds.py`` (with and without ``--permutation-spa``), ``wei_jia_seeds.py``,
``simulation_seeds.py``, ``ties_tenths.py``, ``own_metric_seeds.py`` and ``own_metric_ranking.py``
write them once because they are slow; the chapters recompute a seed, or a few metrics, where it is
quick.  This file reruns another seed or other metrics.
"""


import pandas as pd
import pytest

import spalib
from spalib import data
from conftest import benchmark


def test_the_toolkit_settings_file_holds_what_seed_4_gives():
    stored = pd.read_csv(data.book_table("results/table1_toolkit_spa.csv")).set_index("seed")
    task = data.segment_task(data.load_mtme("wmt23", "en-de"))
    c = spalib.compare_metrics(task.human, task.metrics, meta_metric="spa", permutation="both", rng=4,
                               signs="mtme", early_stopping=spalib.WMT_EARLY_STOPPING)
    assert (c.n_significant, int(c.ranks.max())) == tuple(stored.loc[4, ["significant SPA", "clusters SPA"]])
    assert list(stored.index) == list(range(1, 8))


def test_the_permutation_spa_file_holds_what_seed_4_gives(monkeypatch):
    # SPA with permuted inner p-values, the toolkit's float32 signs: about a minute
    stored = pd.read_csv(data.book_table("results/table1_permutation_spa.csv"))
    assert stored["seed"].tolist() == list(range(1, 6))
    task = data.segment_task(data.load_mtme("wmt23", "en-de"))
    rerun = benchmark("table1_seeds", monkeypatch).permutation_spa_row(task, 4)
    assert rerun == stored[stored["seed"] == 4].iloc[0].to_dict()


def test_the_wei_jia_seeds_file_holds_what_seed_1_gives(monkeypatch):
    stored = pd.read_csv(data.book_table("results/wei_jia_seeds.csv"))
    assert sorted(stored["seed"].unique()) == [1, 2, 3, 4]
    rerun = pd.DataFrame(benchmark("wei_jia_seeds", monkeypatch).table1(1))
    pd.testing.assert_frame_equal(rerun, stored[stored["seed"] == 1].reset_index(drop=True), check_exact=True)


def test_the_simulation_seeds_file_holds_what_seed_1_gives(monkeypatch):
    stored = pd.read_csv(data.book_table("results/simulation_seeds.csv"))
    assert sorted(stored["seed"].unique()) == [1, 2, 3, 4, 5]
    rerun = benchmark("simulation_seeds", monkeypatch).size_table(1)
    pd.testing.assert_frame_equal(rerun, stored[stored["seed"] == 1].reset_index(drop=True), check_exact=True)


def test_the_early_stopping_seeds_file_holds_what_seed_1_gives(monkeypatch):
    stored = pd.read_csv(data.book_table("results/simulation_early_stopping_seeds.csv"))
    assert sorted(stored["seed"].unique()) == [1, 2, 3, 4, 5]
    assert sorted(stored["run"].unique()) == ["WMT early stopping", "all draws"]
    rerun = benchmark("simulation_seeds", monkeypatch).early_stopping_table(1)
    pd.testing.assert_frame_equal(rerun, stored[stored["seed"] == 1].reset_index(drop=True), check_exact=True)


def test_the_exercise_two_seeds_file_holds_what_seed_1_gives(monkeypatch):
    stored = pd.read_csv(data.book_table("results/simulation_exercise2_seeds.csv"))
    assert sorted(stored["seed"].unique()) == [1, 2, 3, 4, 5]
    rerun = benchmark("simulation_seeds", monkeypatch).exercise_two_table(1)
    pd.testing.assert_frame_equal(rerun, stored[stored["seed"] == 1].reset_index(drop=True), check_exact=True)


@pytest.mark.parametrize("name", ["power", "better"])
def test_the_power_and_better_seeds_files_hold_what_seed_1_gives(monkeypatch, name):
    stored = pd.read_csv(data.book_table(f"results/simulation_{name}_seeds.csv"))
    assert sorted(stored["seed"].unique()) == [1, 2, 3, 4, 5]
    rerun = getattr(benchmark("simulation_seeds", monkeypatch), f"{name}_table")(1)
    pd.testing.assert_frame_equal(rerun, stored[stored["seed"] == 1].reset_index(drop=True), check_exact=True)


def test_the_ties_tenths_file_holds_what_tenth_1_gives(monkeypatch):
    stored = pd.read_csv(data.book_table("results/ties_tenths.csv"))
    assert stored["tenth"].tolist() == [1, 2, 3, 4]
    assert benchmark("ties_tenths", monkeypatch).tenth(1) == stored.iloc[0].to_dict()


def test_the_own_metric_seeds_file_holds_what_its_second_seed_gives(monkeypatch, tmp_path):
    # the chapters check the first seed's rows (their ranking's own seed) themselves
    script = benchmark("own_metric_seeds", monkeypatch)
    stored = pd.read_csv(data.book_table("results/own_metric_seeds.csv"))
    assert sorted(stored["seed"].unique()) == script.SEEDS
    second = script.SEEDS[1]
    rerun = script.versus(script.ensemble_tasks(tmp_path), second).reset_index(drop=True)
    expected = stored[stored["seed"] == second].reset_index(drop=True)[list(rerun.columns)]
    pd.testing.assert_frame_equal(rerun, expected, check_exact=True, check_dtype=False)


def test_the_own_metric_ranking_file_holds_what_three_other_metrics_rank_to(monkeypatch, tmp_path):
    # the chapters rerun the ensemble and its two parts; here BLEU, chrF and COMET
    script = benchmark("own_metric_ranking", monkeypatch)
    stored = spalib.MetricRanking.load(data.book_table("results/own_metric_ranking.json"))
    tasks = script.ensemble_tasks(tmp_path, metrics=("BLEU", "chrF", "COMET"))
    rerun = script.ranking(tasks)
    lent = stored.with_draws_of(rerun)   # refuses unless equal, bit for bit
    assert len(lent.versus("COMET", ["BLEU", "chrF"])) == 2 * len(stored.comparisons)
    assert all(len(c.scores) == 15 for c in stored.comparisons.values())
    for name, average in script.other_averages(rerun).items():
        kept = spalib.AveragedComparison.load(data.book_table(f"results/own_metric_average_{name}.json"))
        assert kept.with_draws_of(average).scores.index.size == 15

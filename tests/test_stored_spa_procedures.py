"""The runs ``chapters/spa_procedures.md`` reads from ``spalib/data/results/spa_procedures_*`` are
what ``benchmarks/spa_procedures.py`` computes.

The chapter reruns PA on every pair, the figure's pair of the permuted-SPA run, PERM-BOTH's seed 5 and
he-en's seed 4; this file reruns another slice: SPA's three runs on three metrics (the pair on which
the normal approximation and permutations disagree, and chrF), PERM-BOTH's seed 8 and he-en's seed 1.
A pair's draws depend only on the seed and the pair, so a run on three metrics gives its three pairs'
numbers in the full run: ``MetricComparison.with_draws_of`` refuses the rerun unless they are equal,
bit for bit.
"""

from pathlib import Path

import pandas as pd
import pytest

import spalib
from spalib import data
from conftest import benchmark

METRICS = ["BLEURT-20-refA", "XCOMET-XXL-refA", "chrF-refA"]


def stored(script, name, suffix=".json"):
    """A file the script wrote: a run's comparison (``.json``) or a table (``.csv``)."""
    path = data.book_table(f"results/{Path(script.path(name, suffix)).name}")
    return spalib.MetricComparison.load(path) if suffix == ".json" else pd.read_csv(path)


@pytest.mark.parametrize("run", ["inputs spa", "both spa", "inputs spa permutation"])
def test_spa_runs_on_three_metrics_are_the_stored_ones(monkeypatch, run):
    script = benchmark("spa_procedures", monkeypatch)
    c = script.run(script.load_task(), run, METRICS)
    assert len(c.null_distributions) == 3
    stored(script, run).with_draws_of(c)   # refused unless bit for bit
    if run in script.ONE_SIDED:
        stored(script, f"{run} one sided").with_draws_of(c.recount(alternative="greater"))
    if run == script.WITH_EXTREME:
        marks = script.extreme_table(c)
        table = stored(script, f"{run} extreme", ".csv").set_index(["better", "worse"])
        pairs = list(zip(marks["better"], marks["worse"]))
        expected = table.loc[pairs].reset_index()[list(marks.columns)]
        pd.testing.assert_frame_equal(marks, expected, check_exact=True)


def test_the_last_perm_both_seed_and_the_first_he_en_seed_are_the_stored_ones(monkeypatch):
    script = benchmark("spa_procedures", monkeypatch)
    seeds = stored(script, "seeds", ".csv").set_index(["quantity", "seed"])["value"]
    assert list(seeds.loc["PERM-BOTH PA two-sided significant"].index) == script.BOTH_PA_SEEDS
    assert list(seeds.loc["he-en paper's-wording clusters PA"].index) == script.HEEN_SEEDS
    last = script.BOTH_PA_SEEDS[-1]
    for row in script.both_pa_counts(script.load_task(), last):
        assert row["value"] == seeds[row["quantity"], last]
    first = script.HEEN_SEEDS[0]
    row = script.heen_row(script.load_task("he-en"), first)
    assert row["value"] == seeds[row["quantity"], first]

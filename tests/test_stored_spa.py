"""The runs ``chapters/spa.md`` reads from ``spalib/data/results/spa_*.csv`` are what
``benchmarks/spa.py`` computes.

The chapter rescores en-de's subsets of its own draw and of the first extra seed, and reruns its
own bootstrap; this file reruns other slices: he-en's subsets of the chapter's draw, the second
extra seed's summary in full and its bootstrap.
"""


import numpy as np
import pandas as pd
import pytest

from spalib import data
from conftest import benchmark


# The stored runs may come from another processor. Pearson's r calls BLAS (np.vecdot), so its
# last bits follow the processor; SPA also sums the toolkit's float32 signs with BLAS, where a
# tied null sum can round either way and move a p-value by one draw's share (an Intel machine
# against runs stored on an AMD one: he-en's SPA r by up to 2e-4). PA's r: up to BLAS's bits.
SPA_ATOL, PA_ATOL = 1e-3, 1e-12


def assert_as_stored(rerun, stored, pa):
    """Equal but for rounding: every float within SPA_ATOL, PA's (the ``pa`` values) within
    PA_ATOL, counts and labels exactly."""
    pd.testing.assert_frame_equal(rerun, stored, check_exact=False, rtol=0, atol=SPA_ATOL)
    np.testing.assert_allclose(pa(rerun), pa(stored), rtol=0, atol=PA_ATOL)


@pytest.fixture(scope="module")
def script():
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield benchmark("spa", monkeypatch)


@pytest.fixture(scope="module")
def tasks(script):
    return script.load_tasks()


@pytest.fixture(scope="module")
def prepared(script, tasks):
    return script.prepare(tasks)


def test_the_ablation_file_holds_what_the_chapters_draw_gives_for_he_en(script, prepared):
    stored = pd.read_csv(data.book_table("results/spa_ablation.csv"))
    subsets = sum(len(p[3]) - script.MIN_SYSTEMS for p in prepared.values()) * script.N_SUBSETS
    assert len(stored) == 2 * subsets
    assert stored["set"].unique().tolist() == [f"{t} {lp}" for t, lp in script.LANGUAGE_PAIRS]
    rerun = script.ablate(prepared, script.chapter_generator(), scored=[("wmt23", "he-en")])
    expected = stored[stored["set"] == "wmt23 he-en"].reset_index(drop=True)
    assert_as_stored(rerun, expected, lambda run: run["r"][run["meta-metric"] == "PA"])


def test_the_seeds_file_holds_what_the_second_extra_seed_gives(script, prepared):
    stored = pd.read_csv(data.book_table("results/spa_ablation_seeds.csv"))
    assert stored["seed"].unique().tolist() == script.EXTRA_SEEDS
    seed = script.EXTRA_SEEDS[1]
    rerun = script.summarize(script.ablate(prepared, np.random.default_rng(seed)))
    expected = stored[stored["seed"] == seed].drop(columns="seed").reset_index(drop=True)
    assert_as_stored(rerun, expected, lambda run: run["PA"])


def test_the_bootstrap_file_holds_what_the_second_extra_seed_gives(script, tasks):
    stored = pd.read_csv(data.book_table("results/spa_bootstrap.csv"))
    assert stored["run"].unique().tolist() == [0, *script.EXTRA_SEEDS]
    seed = script.EXTRA_SEEDS[1]
    rerun = script.bootstrap(tasks[script.FIG3_TASK], np.random.default_rng(seed))
    expected = stored[stored["run"] == seed].drop(columns="run")
    expected = expected.set_index(["metric", "meta-metric", "segments"])
    expected.columns = expected.columns.astype(float)
    pd.testing.assert_frame_equal(rerun, expected, check_exact=True)

"""The run ``chapters/williams.md`` reads from ``spalib/data/results/williams_power.csv`` is what
``benchmarks/williams.py`` computes.

The chapter runs the simulation's first setting again (ρ23 = 0.8, Δ = 0); this file reruns two
later ones, the second and the last, after drawing the earlier settings' data sets from the same
Generator, as the full run does.
"""

import numpy as np
import pandas as pd

from spalib import data
from conftest import benchmark


def test_the_power_file_holds_what_the_second_and_last_settings_give(monkeypatch):
    script = benchmark("williams", monkeypatch)
    stored = pd.read_csv(data.book_table("results/williams_power.csv"))
    settings = script.settings()
    assert list(stored.groupby(["ρ23", "Δ"], sort=False).groups) == [
        (rho23, delta) for rho23, delta, _ in settings]
    assert list(stored["test"]) == ["Williams", "Fisher r-to-z"] * len(settings)
    tested = [1, len(settings) - 1]
    rerun = script.power_rows(np.random.default_rng(script.SEED), script.n_systems(), tested)
    expected = pd.concat([stored.iloc[2 * k:2 * k + 2] for k in tested], ignore_index=True)
    pd.testing.assert_frame_equal(rerun, expected, check_exact=True)

"""The size table of ``chapters/simulation.md`` (two equally good metrics, PA and SPA, three swap
schemes, one- and two-sided, errors uncorrelated and correlated) on more seeds: the seeds the chapter
checks its summary's claims on, besides its own run.

The procedure is the chapter's cell: 6 systems of qualities 0 to 0.5, 100 segments, 2,000 null data
sets per error correlation, 200 swap draws per test, both sides from the same draws, all drawn from
one generator in the cell's order.  For each seed it writes each case's share of null data sets with
p <= 0.05.

    python benchmarks/simulation_seeds.py     # seeds 1-5, writes spalib/data/results/simulation_seeds.csv

``tests/test_stored_results.py`` reruns seed 1 and checks it against the file.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import spalib
from spalib import MetricModel

OUT = os.path.join(_setup.RESULTS, "simulation_seeds.csv")
QUALITIES, SEGMENTS, REPLICATIONS, DRAWS, RHOS = np.linspace(0, 0.5, 6), 100, 2000, 200, (0.0, 0.9)
SCHEMES, STATS, ALTERNATIVES, ALPHA = ("inputs", "systems", "both"), ("pa", "spa"), ("greater", "two-sided"), 0.05


def size_table(seed: int) -> pd.DataFrame:
    """Each case's rejection rate at ``ALPHA`` with the cell's draws seeded by ``seed``."""
    rng = np.random.default_rng(seed)
    rows, p_columns = [], {}
    for rho in RHOS:
        twins = {name: MetricModel(error_correlation=rho) for name in "ab"}
        sim = spalib.simulate_replications(QUALITIES, SEGMENTS, twins, REPLICATIONS, rng=rng)
        for stat in STATS:
            for scheme in SCHEMES:
                p = spalib.metric_test_pvalues(sim, "a", "b", meta_metric=stat, permutation=scheme,
                                               alternative=ALTERNATIVES, n_resamples=DRAWS, rng=rng)
                for alternative in ALTERNATIVES:
                    p_columns[len(rows)] = p["pvalue_" + alternative.replace("-", "_")].to_numpy()
                    rows.append({"seed": seed, "ρ": rho, "statistic": stat, "scheme": f"PERM-{scheme.upper()}",
                                 "alternative": alternative, "segments": SEGMENTS,
                                 "replications": REPLICATIONS, "draws": DRAWS})
    table = pd.DataFrame(rows)
    table["size"] = spalib.rejection_rates(pd.DataFrame(p_columns), alphas=[ALPHA])[ALPHA]["rate"].to_numpy()
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    args = parser.parse_args()
    table = pd.concat(_setup.timed_runs(size_table, args.seeds), ignore_index=True)
    table.to_csv(OUT, index=False)
    print(table.pivot_table(index=["statistic", "scheme", "alternative", "ρ"], columns="seed",
                            values="size").round(4).to_string())


if __name__ == "__main__":
    main()

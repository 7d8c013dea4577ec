"""The measured rates of ``chapters/simulation_intervals.md`` on more seeds: how often the clusters
split the twins, how often each bootstrap interval covers its target, and how often each test of two
dependent correlations rejects under the null.  The chapter checks that each rate's verdict in its
table of promises, and the clusters' one-sided excess, are the same on every seed.

The procedure is the chapter's (``simulation_intervals.py``'s functions and settings), each seed
on a generator of its own, ``default_rng([SEED, 1, seed])``; the chapter's own run is
``default_rng([SEED, 1])``.

    python benchmarks/simulation_intervals_seeds.py   # seeds 1-4, writes simulation_intervals_seeds.csv

``tests/test_stored_simulation_intervals.py`` reruns seed 1's clusters and checks them against the
file.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import simulation_intervals as si
import spalib

OUT = os.path.join(_setup.RESULTS, "simulation_intervals_seeds.csv")
ALPHA = 0.05


def split_rates(rng) -> list[dict]:
    """The share of test sets in which each alternative's clusters split the twins."""
    table = si.clusters(rng)
    return [{"check": f"twins split, {alternative}", "rate": float(rows["twins split"].mean()),
             "replications": si.CLUSTER_R}
            for alternative, rows in table.groupby("alternative", sort=False)]


def coverage_rates(rng) -> list[dict]:
    """Each interval's coverage of the statistic's mean at its size (and PA's of its limit)."""
    targets = {}
    for length in si.LENGTHS_CI:
        many = spalib.simulate_replications(si.CMP_Q, length, si.FAIR, si.BIG_R, rng=rng)
        means = many.human.mean(axis=2), many.metrics["m"].mean(axis=2)
        targets["pa", length] = {"mean at L": np.mean([spalib.pairwise_accuracy(h, m)
                                                       for h, m in zip(*means)]), "limit": 1.0}
        targets["spa", length] = {"mean at L": np.mean([si.spa_of(many, r) for r in range(si.BIG_R)])}
    big = spalib.simulate_task(si.CMP_Q, si.ACC_L, si.FAIR, human="mqm", rng=rng)
    acc_eq = spalib.kendall_tau(big.human, big.metrics["m"], variant="acc_eq", epsilon=si.EPSILON,
                                grouping="item").statistic
    for length in si.LENGTHS_CI:
        targets["acc_eq", length] = {"mean at L": acc_eq}
    rows = []
    for (length, stat), ci in si.intervals(rng).groupby(["segments", "statistic"], sort=False):
        for kind, value in targets[stat, length].items():
            hit = ((ci["low"] <= value) & (value <= ci["high"])).mean()
            rows.append({"check": f"95% interval of {stat}, {kind}, {length} segments",
                         "rate": float(hit), "replications": si.CI_R})
    return rows


def correlation_rates(rng) -> list[dict]:
    """Each two-sided test's rejection rate at ``ALPHA`` in the null data sets of each kind."""
    rows = []
    for tails in ("normal", "heavy"):
        h, m1, m2 = si.null_correlations(rng, tails)
        r12, r13, r23 = (np.array([np.corrcoef(a, b)[0, 1] for a, b in zip(x, y)])
                         for x, y in ((h, m1), (h, m2), (m1, m2)))
        p = pd.DataFrame({
            "Williams": [spalib.williams_test(a, b, c, si.N_ITEMS, alternative="two-sided").pvalue
                         for a, b, c in zip(r12, r13, r23)],
            "Fisher (independent)": [spalib.fisher_z_test(a, si.N_ITEMS, b, si.N_ITEMS,
                                                          alternative="two-sided").pvalue
                                     for a, b in zip(r12, r13)],
            "permutation": spalib.correlation_test_pvalues(h, m1, m2, n_resamples=si.COR_K,
                                                           rng=rng)["pvalue"]})
        rates = spalib.rejection_rates(p, alphas=[ALPHA])[ALPHA]["rate"]
        rows += [{"check": f"{test}, {tails} scores", "rate": float(rate), "replications": si.COR_R}
                 for test, rate in rates.items()]
    return rows


def seed_rates(seed: int) -> pd.DataFrame:
    """Every rate of the chapter's checks with the draws seeded by ``seed``."""
    rng = np.random.default_rng([si.SEED, 1, seed])
    rows = split_rates(rng) + coverage_rates(rng) + correlation_rates(rng)
    return pd.DataFrame(rows).assign(seed=seed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    args = parser.parse_args()
    table = pd.concat(_setup.timed_runs(seed_rates, args.seeds), ignore_index=True)
    table.to_csv(OUT, index=False)
    print(table.pivot_table(index="check", columns="seed", values="rate").round(4).to_string())


if __name__ == "__main__":
    main()

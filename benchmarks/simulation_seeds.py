"""Runs of ``chapters/simulation.md`` on more seeds: the seeds the chapter measures its
yardstick's spread on and checks its summary's claims on, besides its own run.

- The size table (two equally good metrics, PA and SPA, three swap schemes, one- and two-sided,
  errors uncorrelated and correlated): 6 systems of qualities 0 to 0.5, 100 segments, 2,000 null
  data sets per error correlation, 200 swap draws per test, both sides from the same draws, all
  drawn from one generator in the cell's order.  ``simulation_seeds.csv``: each case's share of
  null data sets with p <= 0.05.
- WMT's early stopping: the one-sided SPA test of the same twins (uncorrelated errors) on 1,000
  null data sets, with all 1,000 draws and with early stopping.
  ``simulation_early_stopping_seeds.csv``: each run's share with p <= 0.05.
- The power of the two systems' paired test (one-sided; 6 true differences δ, 50, 100 and 200
  segments, 1,000 data sets each, 500 draws): ``simulation_power_seeds.csv``, each rate of the
  permutation test (``ge``) and of its normal form, and the standard error of their paired gap.
- The two-sided tests of a less and a more noisy metric (noise SD 0.5 and 1.0; the size table's
  systems, segments, data sets and draws): ``simulation_better_seeds.csv``, how often each test
  finds which metric, and two paired comparisons on the same test sets (z of a rate difference).
- The second exercise: the two-sided PA tests of the same twins with 12 systems of qualities 0 to
  0.5 (1,000 null data sets, 200 draws), then how often the twins' PAs tie (2,000 data sets each)
  with 6 systems, 12 systems over 0 to 0.5 and 12 over 0 to 1.
  ``simulation_exercise2_seeds.csv``: each size and each share of ties.

    python benchmarks/simulation_seeds.py     # seeds 1-5, writes the five files in spalib/data/results/

``tests/test_stored_results.py`` reruns seed 1 of each and checks it against the file.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import spalib
from simulation import ES_K, ES_R, ES_RUNS   # the chapter's early-stopping settings
from spalib import MetricModel

OUT = os.path.join(_setup.RESULTS, "simulation_seeds.csv")
OUT_EARLY_STOPPING = os.path.join(_setup.RESULTS, "simulation_early_stopping_seeds.csv")
OUT_EXERCISE_TWO = os.path.join(_setup.RESULTS, "simulation_exercise2_seeds.csv")
OUT_POWER = os.path.join(_setup.RESULTS, "simulation_power_seeds.csv")
OUT_BETTER = os.path.join(_setup.RESULTS, "simulation_better_seeds.csv")
QUALITIES, SEGMENTS, REPLICATIONS, DRAWS, RHOS = np.linspace(0, 0.5, 6), 100, 2000, 200, (0.0, 0.9)
SCHEMES, STATS, ALTERNATIVES, ALPHA = ("inputs", "systems", "both"), ("pa", "spa"), ("greater", "two-sided"), 0.05
EX2_R, TIE_R = 1000, 2000    # the exercise's null data sets for the tests, and for the ties
POWER_DELTAS, POWER_LENGTHS, POWER_R, POWER_K = [0, 0.05, 0.1, 0.15, 0.2, 0.3], [50, 100, 200], 1000, 500
BETTER_SDS = {"a": 0.5, "b": 1.0}   # the noise of the less and the more noisy metric
EX2_DESIGNS = {"6 systems, 0-0.5": QUALITIES, "12 systems, 0-0.5": np.linspace(0, 0.5, 12),
               "12 systems, 0-1.0": np.linspace(0, 1.0, 12)}


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


def early_stopping_table(seed: int) -> pd.DataFrame:
    """Each early-stopping run's rejection rate at ``ALPHA``, both runs on the same null data sets."""
    rng = np.random.default_rng(seed)
    twins = {name: MetricModel() for name in "ab"}
    sim = spalib.simulate_replications(QUALITIES, SEGMENTS, twins, ES_R, rng=rng)
    p = pd.DataFrame({label: spalib.metric_test_pvalues(
        sim, "a", "b", meta_metric="spa", n_resamples=ES_K, early_stopping=stopping, rng=rng)["pvalue"]
        for label, stopping in ES_RUNS})
    rates = spalib.rejection_rates(p, alphas=[ALPHA])[ALPHA]["rate"]
    return pd.DataFrame({"seed": seed, "run": rates.index, "segments": SEGMENTS, "replications": ES_R,
                         "draws": ES_K, "size": rates.to_numpy()})


def power_table(seed: int) -> pd.DataFrame:
    """The power of the one-sided paired test of two systems δ apart, and of its normal form."""
    rng = np.random.default_rng(seed)
    rows = []
    for length in POWER_LENGTHS:
        for delta in POWER_DELTAS:
            sim = spalib.simulate_replications([delta, 0.0], length, {"m": MetricModel()}, POWER_R, rng=rng)
            p = spalib.pair_test_pvalues(sim.human[:, 0] - sim.human[:, 1], n_resamples=POWER_K, rng=rng)
            found = p[["ge", "normal"]] <= ALPHA
            gap = spalib.rate_difference(found["ge"], found["normal"])   # the same test sets
            rows.append({"seed": seed, "segments": length, "δ": delta, **found.mean().to_dict(),
                         "gap se": gap.se, "replications": POWER_R, "draws": POWER_K})
    return pd.DataFrame(rows)


def better_table(seed: int) -> pd.DataFrame:
    """The two-sided tests of a less ("a") and a more noisy ("b") metric: how often each finds
    which, and two paired comparisons on the same test sets (z of a rate difference).
    """
    rng = np.random.default_rng(seed)
    pair = {name: MetricModel(noise_sd=sd) for name, sd in BETTER_SDS.items()}
    sim = spalib.simulate_replications(QUALITIES, SEGMENTS, pair, REPLICATIONS, rng=rng)
    finds = {}
    for stat in STATS:
        for scheme in SCHEMES:
            p = spalib.metric_test_pvalues(sim, "a", "b", meta_metric=stat, permutation=scheme,
                                           alternative="two-sided", n_resamples=DRAWS, rng=rng)
            rejected = p["pvalue"].to_numpy() <= ALPHA
            finds[stat, scheme] = {"a": rejected & (p["delta"].to_numpy() > 0),
                                   "b": rejected & (p["delta"].to_numpy() < 0)}
    rows = [{"seed": seed, "statistic": stat, "scheme": f"PERM-{scheme.upper()}",
             "finds a": found["a"].mean(), "finds b": found["b"].mean(),
             "z finds a, against PERM-SYSTEMS": spalib.rate_difference(
                 found["a"], finds[stat, "systems"]["a"]).z if scheme != "systems" else np.nan,
             "z finds b, SPA against PA": spalib.rate_difference(
                 found["b"], finds["pa", scheme]["b"]).z if stat == "spa" else np.nan,
             "noise sd a": BETTER_SDS["a"], "noise sd b": BETTER_SDS["b"],
             "segments": SEGMENTS, "replications": REPLICATIONS, "draws": DRAWS}
            for (stat, scheme), found in finds.items()]
    return pd.DataFrame(rows)


def exercise_two_table(seed: int) -> pd.DataFrame:
    """The second exercise on one seed: the 12 systems' two-sided PA sizes, then each design's ties."""
    rng = np.random.default_rng(seed)
    twins = {name: MetricModel() for name in "ab"}
    twelve = spalib.simulate_replications(EX2_DESIGNS["12 systems, 0-0.5"], SEGMENTS, twins, EX2_R, rng=rng)
    rows = [{"quantity": f"size PERM-{scheme.upper()}", "design": "12 systems, 0-0.5", "replications": EX2_R,
             "value": float(np.mean(spalib.metric_test_pvalues(
                 twelve, "a", "b", meta_metric="pa", permutation=scheme, alternative="two-sided",
                 n_resamples=DRAWS, rng=rng)["pvalue"] <= ALPHA))} for scheme in SCHEMES]
    for design, quality in EX2_DESIGNS.items():
        sim = spalib.simulate_replications(quality, SEGMENTS, twins, TIE_R, rng=rng)
        gaps = spalib.metric_test_pvalues(sim, "a", "b", meta_metric="pa", n_resamples=1, rng=rng)["delta"]
        rows.append({"quantity": "PA tied", "design": design, "replications": TIE_R,
                     "value": float(np.mean(gaps == 0))})   # the PAs' gap: zero where they tie
    return pd.DataFrame(rows).assign(seed=seed, segments=SEGMENTS, draws=DRAWS)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    args = parser.parse_args()
    table = pd.concat(_setup.timed_runs(size_table, args.seeds), ignore_index=True)
    table.to_csv(OUT, index=False)
    print(table.pivot_table(index=["statistic", "scheme", "alternative", "ρ"], columns="seed",
                            values="size").round(4).to_string())
    early = pd.concat(_setup.timed_runs(early_stopping_table, args.seeds), ignore_index=True)
    early.to_csv(OUT_EARLY_STOPPING, index=False)
    print(early.pivot_table(index="run", columns="seed", values="size").round(4).to_string())
    exercise = pd.concat(_setup.timed_runs(exercise_two_table, args.seeds), ignore_index=True)
    exercise.to_csv(OUT_EXERCISE_TWO, index=False)
    print(exercise.pivot_table(index=["quantity", "design"], columns="seed", values="value").round(4).to_string())
    power = pd.concat(_setup.timed_runs(power_table, args.seeds), ignore_index=True)
    power.to_csv(OUT_POWER, index=False)
    print(power.pivot_table(index=["segments", "δ"], columns="seed", values="ge").round(3).to_string())
    better = pd.concat(_setup.timed_runs(better_table, args.seeds), ignore_index=True)
    better.to_csv(OUT_BETTER, index=False)
    print(better.set_index(["seed", "statistic", "scheme"]).iloc[:, :4].round(4).to_string())


if __name__ == "__main__":
    main()

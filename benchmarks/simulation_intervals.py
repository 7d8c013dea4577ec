"""The slow runs of ``chapters/simulation_intervals.md``, stored so that the book builds fast: the
clusters of four metrics, SPA's targets, the bootstrap intervals, the permutation test of two
correlations and the first exercise's table.

The procedure is the chapter's, cell for cell and draw for draw: one generator seeded as the
chapter seeds it, drawn in the chapter's order (the cells between these runs are replayed as the
chapter runs them), the same library calls with the same settings.  What is stored, in
``spalib/data/results/``:

- ``simulation_intervals_clusters.csv``: a row per test set (300) and alternative of the clusters
  section: whether the twins land in different clusters, and whether the best metric is in the
  top cluster;
- ``simulation_intervals_spa.csv``: the normal-approximation SPA of each of the 2,000 test sets of
  100 and of 400 segments whose mean is the intervals' target for SPA;
- ``simulation_intervals_intervals.csv``: the 95% bootstrap interval (``low``, ``high``) of PA,
  SPA and acc_eq on each of the 300 test sets of each size, in the chapter's order;
- ``simulation_intervals_correlations.csv``: the permutation test's p-value in each of the 8,000
  null data sets with normal and with heavy-tailed scores;
- ``simulation_intervals_ex3.csv``: the first exercise's table, a row per size;
- ``simulation_intervals_runs.csv``: a row per run: its ``seconds`` (processor time, one thread)
  and the generator's state after it (PCG64: ``state``, ``inc``, ``has_uint32``, ``uinteger``).

    python benchmarks/simulation_intervals.py     # writes the six files

The clusters and the intervals draw from the chapter's generator test set after test set: the
chapter recomputes the first ones (``CHECK_R``), then sets the generator to the state stored after
the run (its ``resume``).  SPA's targets draw nothing beyond their test sets, which the chapter
draws itself.  The permutation test draws one seed per call and gives each data set a stream of
its own, so its first data sets come out the same when tested alone and leave the generator where
the full run leaves it.  The exercise's table is the chapter's next draw after the correlations,
and its last; the chapter recomputes its first size.  ``tests/test_stored_simulation_intervals.py`` reruns other slices.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import spalib
from spalib import MetricModel

RESULTS = _setup.RESULTS
NAME = "simulation_intervals_{}.csv"
RUNS = ("clusters", "spa", "intervals", "correlations", "ex3")

SEED, R = 20261123, 2000                       # the chapter's seed and replications
CMP_Q, CMP_L, CMP_K = np.linspace(0, 0.5, 6), 100, 200
ALTERNATIVES = ("greater", "two-sided")
CLUSTER_R = 300
FOUR = {"best": MetricModel(noise_sd=0.5), "twin 1": MetricModel(),
        "twin 2": MetricModel(), "weak": MetricModel(noise_sd=2.0)}
CI_R, CI_B, BIG_R, EPSILON, ACC_L, CI_LEVEL = 300, 500, 2000, 0.5, 20_000, 0.95
LENGTHS_CI, FAIR = (CMP_L, 4 * CMP_L), {"m": MetricModel(noise_sd=0.5)}
N_ITEMS, SHARED, T_DF, COR_R, COR_K = 20, 0.5, 3, 4 * R, 1000
EX3_REPS = {50: 2000, 100: 2000, 400: 500, 1600: 500}
EX3_Q = np.linspace(0, 0.5, 6)
EX3_MODELS = {"biased": MetricModel(noise_sd=0.3, bias=(0, 0, 0.15, 0, 0, 0)),
              "fair": MetricModel(noise_sd=1.0)}


def generator() -> np.random.Generator:
    """The chapter's generator as its first cell makes it."""
    return np.random.default_rng([SEED, 1])


def resume(rng: np.random.Generator, run: str, runs: pd.DataFrame) -> None:
    """Set ``rng`` where the stored ``run`` left the chapter's generator (``runs``: the runs file
    read with ``dtype=str``, indexed by run), as the chapter's ``resume`` does.
    """
    s = runs.loc[run]
    rng.bit_generator.state = {"bit_generator": "PCG64", "has_uint32": int(s["has_uint32"]),
                               "uinteger": int(s["uinteger"]),
                               "state": {"state": int(s["state"]), "inc": int(s["inc"])}}


def clusters(rng, n_sets=None) -> pd.DataFrame:
    """The clusters section: the one-sided and the two-sided clusters of the first ``n_sets`` test
    sets (all for None), a row per test set and alternative.
    """
    sim = spalib.simulate_replications(CMP_Q, CMP_L, FOUR, CLUSTER_R, rng=rng)
    rows = []
    for r in range(CLUSTER_R if n_sets is None else n_sets):
        task = sim.task(r)
        for alternative in ALTERNATIVES:
            ranks = spalib.compare_metrics(task.human, task.metrics, meta_metric="pa", n_resamples=CMP_K,
                                           rng=rng, alternative=alternative).ranks
            rows.append({"test set": r, "alternative": alternative,
                         "twins split": ranks["twin 1"] != ranks["twin 2"],
                         "best in top cluster": ranks["best"] == 1})
    return pd.DataFrame(rows)


def spa_of(replications, r) -> float:
    """The chapter's ``point_of(replications, r, "m", "spa")``: normal-approximation SPA."""
    h, m = replications.human[r], replications.metrics["m"][r]
    return spalib.soft_pairwise_accuracy(h, m, method="normal").statistic


def spa_targets(rng, n_sets=None) -> pd.DataFrame:
    """SPA of the first ``n_sets`` of the 2,000 test sets of each size behind the intervals'
    targets, a column per size; then the long test set of acc_eq's target, drawn as the chapter
    draws it (it is not scored here: the chapter scores it).
    """
    columns = {}
    for length in LENGTHS_CI:
        many = spalib.simulate_replications(CMP_Q, length, FAIR, BIG_R, rng=rng)
        columns[f"{length} segments"] = [spa_of(many, r) for r in range(BIG_R if n_sets is None else n_sets)]
    spalib.simulate_task(CMP_Q, ACC_L, FAIR, human="mqm", rng=rng)
    return pd.DataFrame(columns).rename_axis("test set").reset_index()


def intervals(rng, n_rows=None) -> pd.DataFrame:
    """The 95% intervals of every size, statistic and test set in the chapter's order, stopping
    after the first ``n_rows`` intervals (all for None).
    """
    opts = dict(n_resamples=CI_B, epsilons={"m": EPSILON}, confidence_level=CI_LEVEL)
    rows = []
    for length in LENGTHS_CI:
        for human, names in (("continuous", ("pa", "spa")), ("mqm", ("acc_eq",))):
            sim = spalib.simulate_replications(CMP_Q, length, FAIR, CI_R, human=human, rng=rng)
            for stat in names:
                for r in range(CI_R):
                    if n_rows is not None and len(rows) == n_rows:
                        return pd.DataFrame(rows)
                    t = sim.task(r)
                    ci = spalib.metric_intervals(t.human, t.metrics, rng=rng, meta_metric=stat, **opts)
                    rows.append({"segments": length, "statistic": stat, "test set": r,
                                 "low": ci.loc["m", "low"], "high": ci.loc["m", "high"]})
    return pd.DataFrame(rows)


def before_correlations(rng) -> None:
    """The draws of the chapter's cells between the intervals and the correlations: SPA against
    PA (its test sets and one test seed per statistic and size) and the sweep's test sets.
    """
    better = {"better": MetricModel(noise_sd=0.8), "worse": MetricModel(noise_sd=1.0)}
    for length in (50, 100, 200):
        sim = spalib.simulate_replications(CMP_Q, length, better, R, rng=rng)
        for stat in ("pa", "spa"):
            spalib.metric_test_pvalues(sim, "better", "worse", meta_metric=stat, n_resamples=1, rng=rng)
    noises, sweep_r = (0.1, 0.25, 0.5, 0.8, 1.0, 2.0), 1000
    spalib.simulate_replications(CMP_Q, CMP_L, {n: MetricModel(noise_sd=n) for n in noises}, sweep_r, rng=rng)


def null_correlations(rng, tails):
    """The chapter's ``COR_R`` null data sets of one kind ("normal" or "heavy"): the humans' and
    two interchangeable metrics' scores of ``N_ITEMS`` systems, drawn in the chapter's order.
    """
    def draw(size):
        if tails == "normal":
            return rng.standard_normal(size)
        return rng.standard_t(T_DF, size) / np.sqrt(T_DF / (T_DF - 2))

    h, shared = draw((COR_R, N_ITEMS)), draw((COR_R, N_ITEMS))
    m1, m2 = (h + np.sqrt(SHARED) * shared + np.sqrt(1 - SHARED) * draw(h.shape) for _ in "ab")
    return h, m1, m2


def correlations(rng, n_sets=None) -> pd.DataFrame:
    """The permutation test's p-values in the first ``n_sets`` null data sets of each kind (all for
    None), a column per kind; every data set is drawn, as in the chapter.
    """
    columns = {}
    for tails in ("normal", "heavy"):
        h, m1, m2 = null_correlations(rng, tails)
        n = COR_R if n_sets is None else n_sets
        columns[tails] = spalib.correlation_test_pvalues(h[:n], m1[:n], m2[:n], n_resamples=COR_K,
                                                         rng=rng)["pvalue"].to_numpy()
    return pd.DataFrame(columns).rename_axis("data set").reset_index()


def ex3(rng, n_sizes=None) -> pd.DataFrame:
    """The first exercise's table for its first ``n_sizes`` sizes (all for None): the share of
    test sets in which PA scores the biased metric higher, ties the two, scores the fair one
    higher.
    """
    rows = {}
    for length, reps in list(EX3_REPS.items())[:n_sizes]:
        sim = spalib.simulate_replications(EX3_Q, length, EX3_MODELS, reps, rng=rng)
        delta = spalib.metric_test_pvalues(sim, "biased", "fair", n_resamples=1, rng=rng)["delta"]
        rows[length] = {"biased higher": np.mean(delta > 0), "tied": np.mean(delta == 0),
                        "fair higher": np.mean(delta < 0)}
    return pd.DataFrame(rows).T.rename_axis("segments").reset_index()


def state_of(rng) -> dict:
    """The generator's state as the runs file stores it."""
    s = rng.bit_generator.state
    assert s["bit_generator"] == "PCG64"
    return {"state": str(s["state"]["state"]), "inc": str(s["state"]["inc"]),
            "has_uint32": s["has_uint32"], "uinteger": s["uinteger"]}


def main():
    rng, tables, runs = generator(), {}, []
    for run, compute, before in (("clusters", clusters, None), ("spa", spa_targets, None),
                                 ("intervals", intervals, None),
                                 ("correlations", correlations, before_correlations),
                                 ("ex3", ex3, None)):
        if before is not None:
            before(rng)
        start = time.process_time()
        tables[run] = compute(rng)
        runs.append({"run": run, "seconds": round(time.process_time() - start, 1), **state_of(rng)})
        print(f"{run}: {runs[-1]['seconds']} s", flush=True)
    tables["runs"] = pd.DataFrame(runs)
    for run, table in tables.items():
        path = os.path.join(RESULTS, NAME.format(run))
        table.to_csv(path, index=False)
        stored = pd.read_csv(path, dtype=str if run == "runs" else None)
        if run != "runs":                                  # the CSV holds every value exactly
            pd.testing.assert_frame_equal(stored, table, check_exact=True, check_dtype=False)
            for name in table:
                assert stored[name].dtype == table[name].dtype or table[name].dtype == object, name
        print(f"{os.path.relpath(path)}: {os.path.getsize(path) / 1000:.0f} kB")
    stored = pd.read_csv(os.path.join(RESULTS, NAME.format("runs")), dtype=str).set_index("run")
    assert stored.loc["ex3", "state"] == str(rng.bit_generator.state["state"]["state"])


if __name__ == "__main__":
    main()

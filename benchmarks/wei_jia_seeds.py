"""Wei & Jia's Table 1 on the WMT21-22 to-English data over several seeds: the bootstrap seeds that
``chapters/wei_jia.md`` checks its claims on, besides its own.

The procedure (``chapters/wei_jia.md``, Table 1): 10,000 trials of a bootstrap of each system's
judged rows for the labels, another for a second human sample, and one for each of BLEU, chrF and
TER (their corpus score on the resampled rows), all drawn in that order from one generator; each
predictor's error decomposed against the labels.  For each seed it writes the error and the bias
of the Optimal, Human, BLEU, chrF and TER rows.

    python benchmarks/wei_jia_seeds.py     # seeds 1-4, writes spalib/data/results/wei_jia_seeds.csv

``tests/test_stored_results.py`` reruns seed 1 and checks it against the file.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import spalib
from spalib import data

OUT = os.path.join(_setup.RESULTS, "wei_jia_seeds.csv")
N_TRIALS = 10_000
KEYS = ["year", "lp", "system"]
METRICS = {"bleu": "BLEU", "chrf": "chrF", "ter": "TER"}


def table1(seed: int) -> list[dict]:
    """The error and bias of each Table 1 row with the bootstraps seeded by ``seed``."""
    da = data.load_wmt_toen_da()
    judgements = da.judgements
    keys = judgements[KEYS]
    pairs = spalib.system_pairs(keys.drop_duplicates(), within=["year", "lp"])
    rng = np.random.default_rng(seed)

    def predictions(values, metric="mean"):
        boot = spalib.bootstrap_system_scores(values, keys, metric=metric, n_resamples=N_TRIALS, rng=rng)
        return boot.predictions(pairs)

    labels = predictions(judgements["raw"])
    optimal = (labels.mean(axis=0) > 0.5).astype(np.int8)
    predictors = {"Optimal": (optimal, True), "Human": (predictions(judgements["raw"]), True)}
    for m, name in METRICS.items():
        stats = data.prepare_statistics(m, da=da)[judgements["output"]]
        predictors[name] = (predictions(stats, m), False)
    rows = []
    for name, (pred, unbiased) in predictors.items():
        d = spalib.decompose_pairwise_error(pred[labels.columns], labels, no_bias=unbiased)
        rows.append({"seed": seed, "row": name, "error": d.error, "bias": d.bias})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    args = parser.parse_args()
    table = pd.DataFrame([row for rows in _setup.timed_runs(table1, args.seeds) for row in rows])
    table.to_csv(OUT, index=False)
    print(table.pivot(index="row", columns="seed", values="bias").round(4).to_string())


if __name__ == "__main__":
    main()

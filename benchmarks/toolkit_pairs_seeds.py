"""mt-metrics-eval's pairs permutation test on its own test example, on ten seeds.

The toolkit's ``PairwisePermutationSigDiff`` (``mt_metrics_eval/stats.py``) with 1,000 draws, run
after ``np.random.seed(s)`` for s = 0..9 on the test vectors of its ``stats_test.py`` (4 systems x 2
segments, group-by-item acc_eq): the ties_practice chapter sets these p-values beside the exact p
that enumerating every swap gives.  ``--write`` stores them in
``spalib/data/results/toolkit_pairs_seeds.csv``.  mt-metrics-eval is not a dependency of the book:
point ``--mtme`` at a checkout of it (commit 68a481a was used).

    .venv/bin/python benchmarks/toolkit_pairs_seeds.py --mtme ../mt-metrics-eval [--write]
"""

from __future__ import annotations

import _setup  # noqa: F401  (first: the threading layer; puts tests/ on the path)
import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from test_rank_correlations import TV6_GOLD, TV6_M1, TV6_M2

OUT = Path(__file__).resolve().parents[1] / "spalib" / "data" / "results" / "toolkit_pairs_seeds.csv"
# the toolkit's PairwisePermutationSigDiffTest vectors, as the test suite holds them
GOLD, METRIC1, METRIC2 = (v.astype(int).ravel().tolist() for v in (TV6_GOLD, TV6_M1, TV6_M2))
DRAWS, SEEDS = 1000, range(10)


def toolkit_pvalues(mtme_dir: str) -> pd.DataFrame:
    """The toolkit's p-value that its second metric is better, one row per seed."""
    sys.path.insert(0, mtme_dir)
    from mt_metrics_eval import stats

    first, second = (stats.Correlation(4, GOLD, m) for m in (METRIC1, METRIC2))
    rows = []
    for seed in SEEDS:
        np.random.seed(seed)
        p, _, k, _ = stats.PairwisePermutationSigDiff(first, second, "acc23", "item", k=DRAWS,
                                                      sample_rate=1.0)
        rows.append({"seed": seed, "draws": k, "pvalue": p})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mtme", required=True, help="a checkout of mt-metrics-eval")
    parser.add_argument("--write", action="store_true", help=f"store the p-values in {OUT.name}")
    args = parser.parse_args()
    table = toolkit_pvalues(args.mtme)
    print(table.to_string(index=False))
    print(f"mean {table['pvalue'].mean():.4f}, SD {table['pvalue'].std():.4f}")
    if args.write:
        table.to_csv(OUT, index=False)


if __name__ == "__main__":
    main()

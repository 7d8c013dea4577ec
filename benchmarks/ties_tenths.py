"""Tie calibration without grouping on four more random tenths of the pairs: the draws that
``chapters/ties.md`` (exercise 2) sets beside its own.

The chapter's call: MetricX-23 (``metricx_xxl_MQM_2020-refA``) against the MQM scores of WMT22
zh-en, ``grouping="none"``, ``sample_rate=0.1`` (each pair kept with probability 0.1, as the
authors' notebook does without grouping), one call per tenth, tenth ``k`` drawn by
``np.random.default_rng([SEED, k])``.  Each call enumerates all ~4e8 pairs of the test set
(about 12 s), so the book computes one tenth and reads these.

    python benchmarks/ties_tenths.py     # tenths 1-4, writes spalib/data/results/ties_tenths.csv

``tests/test_stored_results.py`` reruns tenth 1 and checks it against the file.
"""

from __future__ import annotations

import argparse
import functools
import os

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import spalib
from spalib import data

OUT = os.path.join(_setup.RESULTS, "ties_tenths.csv")
SEED = 20231206          # the chapter's
METRIC = "metricx_xxl_MQM_2020-refA"
# the chapter's metric set: no reference or the standard one; of GEMBA's GPT-4 runs, -DA only
EXCLUDE = ("GEMBA-GPT4-C", "GEMBA-GPT4-S")


@functools.cache
def zhen22_task():
    """WMT22 zh-en with the chapter's metric set (read once for all tenths)."""
    return data.segment_task(data.load_mtme("wmt22", "zh-en"), reference_free=True, exclude_metrics=EXCLUDE)


def tenth(k: int) -> dict:
    """The ungrouped epsilon* of MetricX-23 on WMT22 zh-en from the tenth seeded by ``[SEED, k]``."""
    task = zhen22_task()
    result = spalib.tie_calibration(task.human, task.metrics[METRIC], grouping="none", sample_rate=0.1,
                                    rng=np.random.default_rng([SEED, k]))
    return {"tenth": k, "epsilon": result.epsilon}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenths", type=int, nargs="+", default=[1, 2, 3, 4])
    args = parser.parse_args()
    table = pd.DataFrame(_setup.timed_runs(tenth, args.tenths, "tenth"))
    table.to_csv(OUT, index=False)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()

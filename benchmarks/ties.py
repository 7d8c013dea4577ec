"""The slow runs of ``chapters/ties.md``: the tie rates of its four test sets, and its own
ungrouped tie calibration (exercise 2).

The tie rates: for WMT22 zh-en and WMT23 en-de, he-en and zh-en, the chapter's metric set (no
reference or the standard one; of GEMBA's GPT-4 runs, -DA only), each metric's share of
within-segment pairs it ties, then the humans' share (one row per set and scores, in the
chapter's order).

The ungrouped draw: MetricX (``metricx_xxl_MQM_2020-refA``) against the MQM scores of WMT22 zh-en,
``grouping="none"``, ``sample_rate=0.1``, drawn by ``np.random.default_rng(SEED)``, the chapter's
``rng``, which nothing draws from before.  It enumerates all ~4e8 pairs of the test set.  Its four
further tenths are ``benchmarks/ties_tenths.py``'s.

    python benchmarks/ties.py
        # writes spalib/data/results/ties_rates.csv (per set and scores) and
        # spalib/data/results/ties_ungrouped.csv (the chapter's draw and its seconds)

The chapter recomputes WMT22 zh-en's tie rates and checks them against the file;
``tests/test_stored_ties.py`` reruns WMT23 he-en and the ungrouped draw.
"""

from __future__ import annotations

import functools
import os
import time

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import spalib
from spalib import data

RESULTS = _setup.RESULTS
OUT_RATES = os.path.join(RESULTS, "ties_rates.csv")
OUT_UNGROUPED = os.path.join(RESULTS, "ties_ungrouped.csv")
SEED = 20231206          # the chapter's
METRIC = "metricx_xxl_MQM_2020-refA"
EVAL_SETS = [("wmt22", "zh-en"), ("wmt23", "en-de"), ("wmt23", "he-en"), ("wmt23", "zh-en")]
# the chapter's metric set: no reference or the standard one; of GEMBA's GPT-4 runs, -DA only
EXCLUDE = ("GEMBA-GPT4-C", "GEMBA-GPT4-S")


@functools.cache
def task(key):
    """The chapter's task of test set ``key`` (read once)."""
    return data.segment_task(data.load_mtme(*key), reference_free=True, exclude_metrics=EXCLUDE)


def tie_rates(human, metric):
    """The chapter's ``tie_rates``: shares of within-segment pairs tied by the humans and by the
    metric, from spalib's pair counts.
    """
    res = spalib.kendall_tau(human, metric, variant="a", grouping="item")
    total = res.concordant + res.discordant + res.ties_human + res.ties_metric + res.ties_both
    return (res.ties_human + res.ties_both) / total, (res.ties_metric + res.ties_both) / total


def rate_rows(key) -> list[dict]:
    """The chapter's rows of one test set: each metric's tie rate, then the humans'."""
    t, rows = task(key), []
    for name, frame in t.metrics.items():
        human_rate, metric_rate = tie_rates(t.human, frame)  # same human_rate each time
        rows.append({"set": " ".join(key), "scores": name, "tie rate": metric_rate})
    rows.append({"set": " ".join(key), "scores": "MQM (human)", "tie rate": human_rate})
    return rows


def ungrouped() -> float:
    """The chapter's ungrouped epsilon* of MetricX on WMT22 zh-en (a tenth of the pairs)."""
    t = task(("wmt22", "zh-en"))
    return spalib.tie_calibration(t.human, t.metrics[METRIC], grouping="none", sample_rate=0.1,
                                  rng=np.random.default_rng(SEED)).epsilon


def _save(table: pd.DataFrame, file: str) -> None:
    """Write ``table`` and check that it reads back the same, bit for bit."""
    table.to_csv(file, index=False)
    pd.testing.assert_frame_equal(pd.read_csv(file), table, check_exact=True)
    print(f"{os.path.basename(file)}: {os.path.getsize(file) / 1000:.1f} kB")


def main():
    rates = pd.DataFrame([row for key in EVAL_SETS for row in rate_rows(key)])
    _save(rates, OUT_RATES)
    start = time.perf_counter()
    epsilon = ungrouped()
    seconds = time.perf_counter() - start
    _save(pd.DataFrame({"epsilon": [epsilon], "seconds": [round(seconds, 1)]}), OUT_UNGROUPED)
    print(f"ungrouped epsilon* {epsilon!r} ({seconds:.1f} s)")


if __name__ == "__main__":
    main()

"""Every tie calibration of the WMT23 metrics task's segment level, reading included: spalib
against mt-metrics-eval's ``KendallWithTiesOpt``, in one run.

The WMT23 task scores segments with acc-t: ``acc_eq`` grouped by item, every pair used
(``sample_rate=1``; mt-metrics-eval ``tasks.py`` at 68a481a).  Its metrics per language pair are
those scored against the standard reference or against none: 25 + 18 for each of en-de, he-en
and zh-en, 129 calibrations.  spalib's side runs in a fresh process, best of 3, and counts reading
the score files (the human scores and 129 metric files) and the calibrations; import is shown
apart.  mt-metrics-eval's side calibrates the same matrices (its own reader needs apache_beam,
so its reading is not counted: the ratio flatters it).  Both sides must give the same
statistic for every metric (within 1e-9); where several thresholds reach the best value, the two
may pick different ones, which is counted and shown.

mt-metrics-eval is not a dependency of the book: point ``--mtme`` at a checkout of it
(``git clone https://github.com/google-research/mt-metrics-eval``).

    .venv/bin/python benchmarks/bench_calibration.py --mtme ../mt-metrics-eval
"""

from __future__ import annotations

import _setup  # noqa: F401  (first: the threading layer)
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

LANGUAGE_PAIRS = ("en-de", "he-en", "zh-en")


def calibration_inputs(es):
    """The task's (metric name, human scores, metric scores) of one evaluation set."""
    human = es.seg_scores("mqm").drop(index=es.std_ref, errors="ignore")
    for name in es.metric_names:
        if name.endswith(("-" + es.std_ref, "-src")) and "seg" in es.levels(name):
            yield name, human, es.seg_scores(name).reindex(index=human.index, columns=human.columns)


# run from the benchmarks folder (the working directory of the subprocess)
SPALIB_SIDE = r"""
import json, sys, time
start = time.perf_counter()
import spalib
from spalib import data
from bench_calibration import calibration_inputs
imported = time.perf_counter()
results = {}
for lp in sys.argv[1:]:
    for name, human, metric in calibration_inputs(data.load_mtme("wmt23", lp)):
        res = spalib.tie_calibration(human, metric, variant="acc_eq", grouping="item")
        results[f"{lp} {name}"] = (res.statistic, res.epsilon)
print(json.dumps({"seconds": time.perf_counter() - imported, "import": imported - start,
                  "results": results}))
"""


def spalib_side():
    out = subprocess.run([sys.executable, "-c", SPALIB_SIDE, *LANGUAGE_PAIRS], capture_output=True,
                         text=True, check=True, cwd=Path(__file__).parent)
    return json.loads(out.stdout)


def as_list(frame):
    """mt-metrics-eval's packed vector: systems one after another, None where missing."""
    return [None if np.isnan(x) else float(x) for x in frame.to_numpy().ravel()]


def mtme_side(mtme_dir):
    sys.path.insert(0, mtme_dir)
    from mt_metrics_eval import stats
    from spalib import data
    inputs = [(f"{lp} {name}", as_list(human), as_list(metric), len(human))
              for lp in LANGUAGE_PAIRS
              for name, human, metric in calibration_inputs(data.load_mtme("wmt23", lp))]
    start, results = time.perf_counter(), {}
    for key, gold, metric, n_systems in inputs:
        tau, epsilon, _ = stats.KendallWithTiesOpt(gold, metric, variant="acc23", num_sys=n_systems,
                                                   average_by="item", sample_rate=1.0)
        results[key] = (float(tau), float(epsilon))
    return {"seconds": time.perf_counter() - start, "results": results}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mtme", required=True, help="a checkout of google-research/mt-metrics-eval")
    args = parser.parse_args()
    ours = min((spalib_side() for _ in range(3)), key=lambda r: r["seconds"])
    n = len(ours["results"])
    print(f"spalib: {n} calibrations, reading included, {ours['seconds']:.2f} s "
          f"(import {ours['import']:.2f} s apart)", flush=True)
    theirs = mtme_side(args.mtme)
    print(f"mt-metrics-eval: {len(theirs['results'])} calibrations, reading not counted, "
          f"{theirs['seconds']:.1f} s")
    assert ours["results"].keys() == theirs["results"].keys()
    gaps = [abs(ours["results"][k][0] - theirs["results"][k][0]) for k in ours["results"]]
    other_epsilon = [k for k in ours["results"] if ours["results"][k][1] != theirs["results"][k][1]]
    assert max(gaps) <= 1e-9, max(gaps)
    print(f"same statistic for all {n} (largest difference {max(gaps):.1e}); another of the "
          f"equally best thresholds chosen for {len(other_epsilon)}: {', '.join(other_epsilon)}")
    print(f"ratio: {theirs['seconds'] / ours['seconds']:.1f}x")


if __name__ == "__main__":
    main()

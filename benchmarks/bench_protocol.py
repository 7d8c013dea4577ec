"""WMT's ranking protocols, spalib against mt-metrics-eval's task sets, in one run.

Without significance (``k = 0``, the task sets' default) both sides run ``WMT23()`` and
``WMT24OnWMT23()`` on the book's WMT23 data (en-de, he-en, zh-en); every task's scores and ranks, the
averages and the average ranks must agree (``--write`` stores the toolkit's in
``spalib/data/results/protocol_toolkit_k0.csv``, which ``tests/test_protocols.py`` checks spalib
against).  With ``--significance``, spalib runs the whole WMT23 protocol with significance (k =
1,000, WMT's early stopping, 32 primary metrics, 496 pairs per task), and the toolkit runs the
same tasks with the same settings on two metrics only, once a distant pair (the best and the
worst: early stopping ends most tests after 100 draws) and once a close one (the second and
third: most tests run all 1,000): its time for the whole protocol is a pair's test time (the run
with k = 1,000 less the same run with k = 0) times the number of pairs, plus its whole k = 0
run, printed as two extrapolations.  ``--clusters`` also runs the
toolkit's four system-level tasks and three segment-level Pearson tasks in full at k = 100 and
compares each task's clusters with spalib's at k = 100.

mt-metrics-eval is not a dependency of the book: point ``--mtme`` at a checkout of it (its
``data.py`` imports apache_beam and dacite, stubbed here when missing; it reads uncompressed
files, so the WMT23 folder is unpacked into a temporary folder first).

    .venv/bin/python benchmarks/bench_protocol.py --mtme ../mt-metrics-eval [--write] [--significance]
"""

from __future__ import annotations

import _setup  # noqa: F401  (first: the threading layer)
import argparse
import gzip
import shutil
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np
import pandas as pd

import spalib
from spalib import data

LANGUAGE_PAIRS = ("en-de", "he-en", "zh-en")
OUT = Path(__file__).resolve().parents[1] / "spalib" / "data" / "results" / "protocol_toolkit_k0.csv"
PROTOCOLS = {"wmt23": ("WMT23", dict()), "wmt24 on wmt23": ("WMT24OnWMT23", dict(test_set="wmt23"))}


def unpacked_copy(folder: Path) -> Path:
    """The WMT23 data in a temporary mt-metrics-eval-v2 folder, gzipped files unpacked (the rest linked)."""
    source = data.resolve_root(None, "mt-metrics-eval-v2") / "wmt23"
    root = folder / "mt-metrics-eval-v2"
    for path in source.rglob("*"):
        if path.is_file():
            target = root / "wmt23" / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            if path.suffix == ".gz":
                with gzip.open(path) as packed, open(target.with_suffix(""), "wb") as out:
                    shutil.copyfileobj(packed, out)
            else:
                target.symlink_to(path)
    return root


def toolkit_modules(mtme_dir: str):
    for name in ("apache_beam", "dacite"):   # imported by data.py, unused by what runs here
        try:
            __import__(name)
        except ImportError:
            sys.modules[name] = types.ModuleType(name)
    sys.path.insert(0, mtme_dir)
    from mt_metrics_eval import data as mtme_data, tasks as mtme_tasks
    return mtme_data, mtme_tasks


def toolkit_run(mtme, root, name, k, primaries=None, reading=True):
    """One task set of the toolkit: (seconds, TaskSetResults, weights); ``primaries`` limits its
    metrics; ``reading``: the seconds include reading the data.
    """
    mtme_data, mtme_tasks = mtme
    start = time.perf_counter()
    sets = {("wmt23", lp): mtme_data.EvalSet("wmt23", lp, True, path=str(root)) for lp in LANGUAGE_PAIRS}
    if primaries is not None:
        for evs in sets.values():
            evs.SetPrimaryMetrics({m.removesuffix("[noref]") for m in primaries})
    task_set, weights = getattr(mtme_tasks, name)(k=k)
    if not reading:
        start = time.perf_counter()
    results = task_set.Run(eval_set_dict=sets)
    return time.perf_counter() - start, results, weights


def toolkit_rows(protocol_name, results, weights) -> list[dict]:
    """Every task's (and the average's) metric, score and rank, tasks named as spalib names them."""
    proto = spalib.protocol(*protocol_name.split(" on ")[:1], **PROTOCOLS[protocol_name][1])
    rows = []
    for task, result in zip(proto.tasks, results.results):
        rows += [dict(protocol=protocol_name, task=task.name, metric=m, score=c, rank=r)
                 for m, (c, r) in result.corr_ranks.items()]
    ranks = results.AverageRanks(weights)
    rows += [dict(protocol=protocol_name, task="average", metric=m, score=c, rank=ranks[m])
             for m, c in results.AverageCorrs(weights).items()]
    return rows


def compare_k0(mtme, root, write: bool) -> float:
    """Both sides without significance; returns the toolkit's seconds for WMT23."""
    rows, toolkit_seconds = [], {}
    for protocol_name, (toolkit_name, kw) in PROTOCOLS.items():
        proto = spalib.protocol(protocol_name.split(" on ")[0], **kw)
        start = time.perf_counter()
        ours = spalib.run_protocol(proto, n_resamples=0)
        our_seconds = time.perf_counter() - start
        seconds, results, weights = toolkit_run(mtme, root, toolkit_name, 0)
        toolkit_seconds[protocol_name] = seconds
        theirs = toolkit_rows(protocol_name, results, weights)
        rows += theirs
        gaps = {}
        for row in theirs:
            scores = ours.average.scores if row["task"] == "average" else ours.comparisons[row["task"]].scores
            gaps.setdefault(row["task"], []).append(abs(scores[row["metric"]] - row["score"]))
        worst = max(gaps, key=lambda t: max(gaps[t]))
        print(f"{protocol_name}: {len(proto.tasks)} tasks, {len(ours.average.scores)} metrics averaged; spalib "
              f"{our_seconds:.1f} s, mt-metrics-eval {seconds:.1f} s (reading included on both sides), ratio "
              f"{seconds / our_seconds:.1f}x; largest score difference {max(gaps[worst]):.1e} ({worst})")
    if write:
        pd.DataFrame(rows).to_csv(OUT, index=False, float_format="%.17g")
        print(f"wrote {OUT}")
    return toolkit_seconds["wmt23"]


def compare_significance(mtme, root, toolkit_k0_seconds: float) -> None:
    """Spalib's whole protocol with significance; the toolkit's on one metric pair, scaled."""
    proto = spalib.protocol("wmt23")
    start = time.perf_counter()
    ours = spalib.run_protocol(proto, n_resamples=1000, rng=4)
    our_seconds = time.perf_counter() - start
    names = list(ours.average.scores.index)
    n_pairs = len(names) * (len(names) - 1) // 2
    print(f"spalib: WMT23 protocol, k = 1000, WMT's early stopping, {len(names)} metrics ({n_pairs} pairs per "
          f"task), {len(proto.tasks)} tasks: {our_seconds:.1f} s")
    # the toolkit on two metrics, one pair per task: a distant pair stops early, a close one runs on;
    # a pair's test time (with k = 1000 less with k = 0) times the pairs, plus the whole k = 0 run
    for label, pair in (("distant", [names[0], names[-1]]), ("close", names[1:3])):
        tested, _, _ = toolkit_run(mtme, root, "WMT23", 1000, pair, reading=False)
        scored, _, _ = toolkit_run(mtme, root, "WMT23", 0, pair, reading=False)
        whole = (tested - scored) * n_pairs + toolkit_k0_seconds
        print(f"mt-metrics-eval: one {label} pair ({' vs '.join(pair)}) tested in every task: {tested - scored:.1f} s; "
              f"times {n_pairs} pairs, plus the k = 0 run: about {whole / 3600:,.1f} h "
              f"(ratio about {whole / our_seconds:,.0f}x)", flush=True)


def compare_clusters(mtme, root) -> None:
    """The tasks the toolkit runs in minutes, in full at k = 100: each task's clusters, side by side."""
    proto = spalib.protocol("wmt23")
    quick = [k for k, t in enumerate(proto.tasks) if t.meta_metric != "acc_eq"]
    subset = spalib.Protocol("wmt23 quick", "wmt23", tuple(proto.tasks[k] for k in quick))
    start = time.perf_counter()
    ours = spalib.run_protocol(subset, n_resamples=100, rng=4)
    our_seconds = time.perf_counter() - start
    mtme_data, mtme_tasks = mtme
    task_set, _ = mtme_tasks.WMT23(k=100)
    task_set.tasks = [task_set.tasks[k] for k in quick]
    sets = {("wmt23", lp): mtme_data.EvalSet("wmt23", lp, True, path=str(root)) for lp in LANGUAGE_PAIRS}
    np.random.seed(4)
    start = time.perf_counter()
    results = task_set.Run(eval_set_dict=sets)
    seconds = time.perf_counter() - start
    print(f"clusters at k = 100, {len(quick)} tasks: spalib {our_seconds:.1f} s, mt-metrics-eval {seconds:.1f} s")
    for task, result in zip(subset.tasks, results.results):
        mine = ours.comparisons[task.name].ranks
        theirs = pd.Series({m: r for m, (_, r) in result.corr_ranks.items()})
        moved = (mine[theirs.index] - theirs).abs()
        print(f"  {task.name:26s} clusters: spalib {int(mine.max()):2d}, toolkit {int(theirs.max()):2d}; metrics whose "
              f"cluster rank differs: {int((moved > 0).sum())} of {len(theirs)} (by at most {int(moved.max())})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mtme", required=True, help="a checkout of google-research/mt-metrics-eval")
    parser.add_argument("--write", action="store_true", help=f"store the toolkit's k = 0 values in {OUT.name}")
    parser.add_argument("--significance", action="store_true", help="time the protocol with significance")
    parser.add_argument("--clusters", action="store_true", help="compare clusters at k = 100 (quick tasks)")
    args = parser.parse_args()
    mtme = toolkit_modules(args.mtme)
    with tempfile.TemporaryDirectory() as folder:
        root = unpacked_copy(Path(folder))
        toolkit_k0 = compare_k0(mtme, root, args.write)
        if args.significance:
            compare_significance(mtme, root, toolkit_k0)
        if args.clusters:
            compare_clusters(mtme, root)


if __name__ == "__main__":
    main()

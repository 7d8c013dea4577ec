"""The ``spalib`` command (also ``python -m spalib``): rank metrics, manage the data.

``spalib rank --test-set wmt23 --lp en-de --add MyMetric=my.seg.score`` ranks your metric among
the released ones of a WMT test set, with significance clusters, intervals and, over several
language pairs or meta-metrics, the averaged ranking.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import os
import sys
import time
from pathlib import Path

import numba

from spalib.metametrics import WMT_EARLY_STOPPING
from spalib._core.vocabulary import META_METRICS, SIGN_RECIPES
from spalib.protocols import PROTOCOLS, protocol, run_protocol
from spalib.ranking import FORMATS, _warnings_of_added_metrics, rank_metrics, task_summary


def _metric_file(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=PATH, got {text!r}")
    return name, Path(path)


def _count(minimum: int):
    """An argparse type: an integer of at least ``minimum`` (argparse names the option)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value
    return parse


def _rank_parser(sub) -> None:
    rank = sub.add_parser(
        "rank", help="rank metrics (yours among WMT's) with SPA, PA and acc_eq, clusters and intervals",
        description="Rank the metrics of an mt-metrics-eval test set, and your own (--add), by SPA, PA "
                    "and/or acc_eq, with PERM-BOTH significance clusters, bootstrap intervals and, over "
                    "several language pairs or meta-metrics, the WMT-style averaged ranking.")
    rank.add_argument("--test-set", help="an mt-metrics-eval test set, e.g. wmt23 (with --protocol: default the "
                                         "protocol's own)")
    rank.add_argument("--lp", action="append", metavar="LP",
                      help="a language pair, e.g. en-de (repeat for several; with --protocol: default its own)")
    rank.add_argument("--protocol", choices=PROTOCOLS,
                      help="rank as WMT did: mt-metrics-eval's task set of that name, averaged (wmt24 with "
                           "--test-set wmt23 is its WMT24OnWMT23)")
    rank.add_argument("--add", action="append", type=_metric_file, default=[], metavar="NAME=PATH",
                      help="your metric: an mt-metrics-eval .seg.score file (system<TAB>score, each system's "
                           "segments in order); with several --lp, put {lp} in PATH")
    rank.add_argument("--human", metavar="NAME",
                      help="the human score to rank against (default: the test set's standard one; e.g. esa "
                           "for wmt24pp, which has none)")
    rank.add_argument("--lower-is-better", action="append", default=[], metavar="NAME",
                      help="a metric whose smaller scores are better (negated)")
    rank.add_argument("--meta-metric", "--stat", dest="stat", nargs="+", choices=META_METRICS,
                      default=["spa", "pa"], help="meta-metrics to rank by (default: spa pa; --stat is the "
                                                  "same option)")
    rank.add_argument("--k", type=_count(0), default=1000,
                      help="PERM-BOTH draws per metric pair (default 1000; 0: no test, ranks by score)")
    rank.add_argument("--spa-resamples", type=_count(1), default=1000, help="SPA's sign patterns K (default 1000)")
    rank.add_argument("--wmt-early-stopping", action="store_true",
                      help="stop a pair's test early as WMT did (blocks of 100; p < 0.02 or > 0.5)")
    rank.add_argument("--bootstrap", type=_count(0), default=1000, help="bootstrap samples per interval (0: none)")
    rank.add_argument("--chance", type=_count(0), default=50,
                      help="random metrics per language pair for the table's chance row (only acc_eq's level is "
                           "simulated; 0: no chance row; default 50)")
    rank.add_argument("--seed", type=int, default=4, help="the random seed (default 4, mt-metrics-eval's)")
    rank.add_argument("--signs", choices=SIGN_RECIPES, default="bits",
                      help="SPA's sign recipe: spalib's ('bits') or mt-metrics-eval's for the seed ('mtme')")
    rank.add_argument("--primary-only", action="store_true", help="only WMT's primary metrics and baselines")
    rank.add_argument("--no-qe", action="store_true", help="leave out reference-free (-src) metrics")
    rank.add_argument("--baseline", action="append", default=[], metavar="NAME",
                      help="compare each added metric with this one: scores, difference, two-sided p-value "
                           "and verdict (repeatable; default with --add: the test set's baseline metrics)")
    rank.add_argument("--format", choices=FORMATS, default="text", help="output format (default text)")
    rank.add_argument("--output", type=Path, help="write the table here instead of to standard output")
    rank.add_argument("--quiet", action="store_true", help="no progress bars")
    rank.add_argument("--jobs", type=_count(1), default=1,
                      help="run the comparisons (language pair x meta-metric) in this many processes; the results "
                           "are the same as with 1 (default 1)")


def _inputs_parser(sub) -> None:
    inputs = sub.add_parser(
        "inputs", help="which texts a new metric must score, against which reference (and write them)",
        description="Print where the sources, the standard reference and every ranked system's output of a "
                    "test set are; with --out, write them as plain line-aligned text files (sources.txt, "
                    "reference.txt, systems.txt and systems/NAME.txt) in the order a score file follows.")
    inputs.add_argument("--test-set", required=True, help="an mt-metrics-eval test set, e.g. wmt23")
    inputs.add_argument("--lp", required=True, help="a language pair, e.g. he-en")
    inputs.add_argument("--out", type=Path, help="write the texts into this folder")
    inputs.add_argument("--human", metavar="NAME", help="the human score deciding the ranked systems "
                                                         "(default: the standard one)")


def _inputs(args) -> int:
    from spalib import data

    es = data.load_mtme(args.test_set, args.lp)
    found = (data.write_metric_inputs(es, args.out, human=args.human) if args.out
             else data.metric_inputs(es, human=args.human))
    print(found.describe())
    return 0


# the options a protocol fixes itself
_NOT_WITH_PROTOCOL = ("--human", "--meta-metric", "--stat", "--spa-resamples", "--bootstrap", "--chance", "--signs",
                      "--no-qe", "--baseline", "--jobs", "--format", "--wmt-early-stopping", "--primary-only")


def _write(text: str, output: Path | None) -> None:
    if output:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as error:   # a full disk, say: name the file
            raise ValueError(f"--output {output}: {error.strerror or error}") from None
    else:
        sys.stdout.write(text)


def _added(args, lps) -> dict:
    """``--add`` as {lp: {name: path}}, checked: one file per language pair, each name once."""
    if len(lps) > 1:
        fixed = [f"{name}={path}" for name, path in args.add if "{lp}" not in str(path)]
        if fixed:
            raise ValueError(f"--add {fixed[0]}: with several language pairs, put {{lp}} in the path (one file per "
                             "language pair)")
    names = [name for name, _ in args.add]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        paths = [str(path) for name, path in args.add if name == repeated[0]]
        raise ValueError(f"--add names {repeated[0]!r} more than once ({', '.join(paths)}); give each "
                         "metric its own name")
    return {lp: {name: Path(str(path).replace("{lp}", lp)) for name, path in args.add} for lp in lps}


def _rank_protocol(args, given: list[str]) -> int:
    """``spalib rank --protocol``: WMT's averaged table, and where each added metric lands."""
    fixed = [flag for flag in _NOT_WITH_PROTOCOL if any(g == flag or g.startswith(flag + "=") for g in given)]
    if fixed:
        raise ValueError(f"{fixed[0]} does not apply with --protocol: the protocol fixes what it ranks by and how")
    proto = protocol(args.protocol, test_set=args.test_set, lps=args.lp)
    extra = _added(args, proto.lps) if args.add else None
    if extra:   # warnings before the long work, which they may make pointless
        from spalib import data

        checked = {lp: data.segment_task(data.load_mtme(proto.test_set, lp), reference_free=True, primary_only=True,
                                         extra_metrics=extra[lp], basenames=True,
                                         lower_is_better_metrics=[n for n in args.lower_is_better if n in extra[lp]])
                   for lp in proto.lps}
        for warning in _warnings_of_added_metrics(checked):
            print(f"warning: {warning}", file=sys.stderr)
    print(f"{proto.name}: {len(proto.tasks)} tasks on {proto.test_set}; {', '.join(t.name for t in proto.tasks)}",
          file=sys.stderr)
    start = time.perf_counter()
    result = run_protocol(proto, n_resamples=args.k, rng=args.seed, extra_metrics=extra,
                          lower_is_better_metrics=args.lower_is_better, progress=not args.quiet)
    print(f"ranked in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    text = result.to_string()
    for name in result.settings["added"]:
        text += "\n" + result.place(name) + "\n"
    _write(text, args.output)
    return 0


def _rank(args, given: list[str]) -> int:
    from spalib import data

    if args.output is not None and args.output.is_dir():
        raise ValueError(f"--output {args.output} is a folder; give a file name")
    if args.protocol:
        return _rank_protocol(args, given)
    if not args.test_set or not args.lp:
        raise ValueError("give --test-set and --lp (or --protocol)")
    added = _added(args, args.lp)
    names = [name for name, _ in args.add]
    tasks = {}
    for lp in args.lp:
        es = data.load_mtme(args.test_set, lp)
        task = data.segment_task(es, human=args.human, reference_free=not args.no_qe, primary_only=args.primary_only,
                                 extra_metrics=added[lp], lower_is_better_metrics=args.lower_is_better,
                                 basenames=True)
        print(task_summary(task.report), file=sys.stderr)
        report = task.report
        for name, info in report["extra_metrics"].items():
            ignored = ", ".join(info["systems_ignored"]) or "none"
            print(f"  {name}: from {info['source']}; systems not ranked, ignored: {ignored}; "
                  f"{info['segments_without_score']} segments without a score (dropped for every metric)",
                  file=sys.stderr)
        tasks[lp] = task
    # the baselines are checked before the long work, not after it
    ranked = set(next(iter(tasks.values())).metrics)
    if args.baseline and not names:
        raise ValueError("--baseline names what the metrics given with --add are compared with: "
                         "give one with --add NAME=FILE")
    unknown = sorted(set(args.baseline) - ranked)
    if unknown:
        raise ValueError(f"--baseline: no metric named {', '.join(unknown)} in the ranking")
    own = sorted(set(args.baseline) & set(names))
    if own:
        raise ValueError(f"--baseline {own[0]}: that is the metric given with --add; give baselines other than it")
    for warning in _warnings_of_added_metrics(tasks):   # before the long work, which it may make pointless
        print(f"warning: {warning}", file=sys.stderr)
    start = time.perf_counter()
    # spawned workers: a forked child would inherit numba's running thread pool
    executor = (concurrent.futures.ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn"))
                if args.jobs > 1 else None)
    try:
        ranking = rank_metrics(tasks, meta_metrics=args.stat, n_resamples=args.k, rng=args.seed, signs=args.signs,
                               spa_resamples=args.spa_resamples, interval_resamples=args.bootstrap,
                               chance_resamples=args.chance,
                               early_stopping=WMT_EARLY_STOPPING if args.wmt_early_stopping else None,
                               progress=not args.quiet, executor=executor)
    except BaseException:   # Ctrl-C, say: stop the workers now, not after their current comparison
        if executor is not None:
            workers = list((getattr(executor, "_processes", None) or {}).values())   # shutdown forgets them
            executor.shutdown(wait=False, cancel_futures=True)
            for worker in workers:
                worker.terminate()
        raise
    if executor is not None:
        executor.shutdown()
    print(f"ranked in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    text = ranking.to_string(args.format)
    listed = set().union(*(t.report.get("baseline_metrics", ()) for t in tasks.values()))
    baselines = args.baseline or sorted((listed | {f"{b}[noref]" for b in listed}) & ranked)
    for name in names if baselines else ():
        text += "\n" + ranking.versus_string(name, baselines)
    _write(text, args.output)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    # OpenMP with idle workers asleep at once (spinning ones slow PERM-BOTH's BLAS products by a
    # quarter on two cores); numba's work queue, where OpenMP is missing, runs loops slower
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")   # read when the layer first loads
    if "NUMBA_THREADING_LAYER" not in os.environ and "NUMBA_THREADING_LAYER_PRIORITY" not in os.environ:
        numba.config.THREADING_LAYER_PRIORITY = ["omp", "workqueue", "tbb"]
    parser = argparse.ArgumentParser(prog="spalib", description="Statistics for the meta-evaluation of MT metrics.")
    sub = parser.add_subparsers(dest="command", required=True)
    _rank_parser(sub)
    _inputs_parser(sub)
    sub.add_parser("data", help="the data: where, download, ensure, verify, prepare (see: spalib data -h)",
                   add_help=False)
    args, rest = parser.parse_known_args(argv)
    if args.command == "data":
        from spalib.data.__main__ import main as data_main
        return data_main(rest)
    if rest:
        parser.error(f"unrecognised arguments: {' '.join(rest)}")
    try:
        if args.command == "rank":
            return _rank(args, list(sys.argv[1:] if argv is None else argv))
        return _inputs(args)
    except (ValueError, KeyError, FileNotFoundError, TypeError, OSError) as err:
        message = err.args[0] if isinstance(err, KeyError) and err.args else err
        print(f"spalib {args.command}: error: {message}", file=sys.stderr)
        return 2

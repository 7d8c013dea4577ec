"""``python -m spalib.data``: where the data is, downloads, content checks, cached statistics."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from spalib.data._download import DATASETS, manifest_under, read_manifest, verify
from spalib.data.paths import data_root, download, write_manifest
from spalib.data.wmt import load_wmt_toen_da, prepare_statistics


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (2, with one line, for an error)."""
    try:
        return _main(argv)
    except (ValueError, OSError) as err:
        print(f"python -m spalib.data: error: {err}", file=sys.stderr)
        return 2


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spalib.data", description="The data of the spa-book.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("where", help="print the data folder and which datasets it holds")
    get = sub.add_parser("download", help="fetch the public releases into the data folder")
    get.add_argument("datasets", nargs="+", choices=[*DATASETS, "all"])
    get.add_argument("--root", type=Path, default=None, help="download here instead of the data folder")
    get.add_argument("--mirror", default=None, help="a URL tried first, holding each file at HOST/PATH of its "
                                                    "official address (default: $SPALIB_MIRROR)")
    get.add_argument("--test-set", action="append", default=None, metavar="NAME",
                     help="mt-metrics-eval-v2 only: keep just this test set (repeatable), e.g. wmt23; "
                          "added beside the test sets a folder already holds")
    ensure = sub.add_parser("ensure", help="download whichever of the datasets is missing")
    ensure.add_argument("datasets", nargs="*", default=list(DATASETS), metavar="DATASET",
                        help=f"any of: {', '.join(DATASETS)} (default: all)")
    check = sub.add_parser("verify", help="check the data folder against the SHA-256 manifest of every file "
                                          "the book reads")
    check.add_argument("datasets", nargs="*", default=None, metavar="DATASET")
    record = sub.add_parser("manifest", help="(maintainers) write the manifest from a data folder, decompressing "
                                             ".gz copies")
    record.add_argument("--root", type=Path, default=None, help="the data folder (default: the data folder)")
    sub.add_parser("prepare", help="compute and cache the sacrebleu statistics of the WMT21/22 to-English "
                                   "DA-judged outputs (BLEU, chrF and TER), ~2 min once")
    args = parser.parse_args(argv)
    if args.command == "ensure" and set(args.datasets) - set(DATASETS):
        parser.error(f"unknown dataset(s) {', '.join(sorted(set(args.datasets) - set(DATASETS)))}; "
                     f"known: {', '.join(DATASETS)}")

    if args.command == "verify":
        root, manifest = data_root(), read_manifest()
        for name in args.datasets or [n for n in manifest if (root / n).is_dir()]:
            if name not in manifest:
                parser.error(f"{name!r} is not in the manifest; known: {', '.join(manifest)}")
            expected, note = manifest[name], ""
            if name == "mt-metrics-eval-v2":  # a folder prepared with download --test-set
                present = {p.name for p in (root / name).iterdir() if p.is_dir()}
                expected = manifest_under(expected, present)
                note = f" (test sets present: {', '.join(sorted(present))})"
            print(f"{name}: {verify(root / name, expected)} files match the manifest{note}")
        return 0
    if args.command == "manifest":
        write_manifest(args.root or data_root())
        return 0
    if args.command == "prepare":
        da = load_wmt_toen_da()
        for metric in ("bleu", "chrf", "ter"):
            print(f"{metric}: {prepare_statistics(metric, da=da).shape[0]} segments", file=sys.stderr)
        return 0

    if args.command == "where":
        root = data_root()
        print(root)
        for name, source in DATASETS.items():
            print(f"  {'present' if (root / name).is_dir() else 'MISSING'}  {name}: {source.description}")
        return 0
    if args.command == "download":
        names = list(DATASETS) if "all" in args.datasets else args.datasets
        for name in names:
            print(f"{name} -> {download(name, args.root, mirror=args.mirror, test_sets=args.test_set)}")
        return 0
    root = data_root()
    for name in args.datasets:
        if not (root / name).is_dir():
            print(f"{name} is missing from {root}: downloading", file=sys.stderr)
            download(name, root)
    print(root)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

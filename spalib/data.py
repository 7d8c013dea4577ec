"""Readers for the published meta-evaluation data, exactly as released.

Where the data lives
--------------------
:func:`data_root` picks the folder: ``$SPALIB_DATA`` if set, else ``../shared/data`` beside the
project when it exists, else a user cache folder filled by ``python -m spalib.data download NAME``.
Every reader accepts a file as ``NAME`` or ``NAME.gz``.

What the readers promise
------------------------
Tidy pandas objects; ``NaN`` exactly where a file says ``None``; and a ``ValueError`` naming the
file and line for anything malformed (wrong field count, non-numeric score, unknown or missing
system, wrong number of lines).  Nothing is dropped silently: where a reader filters, it says
what it filtered (:func:`complete_segments` returns the counts, :func:`read_mqm_tsv` refuses
source-error rows unless asked to drop them).
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tarfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from spalib._download import DATASETS, fetch

__all__ = [
    "data_root", "dataset_path", "download", "DATASETS",
    "EvalSet", "load_mtme", "MTME_META", "complete_segments", "read_seg_score_file", "segment_task",
    "SegmentTask",
    "load_wmt12", "read_williams_results", "load_wmt13_da", "load_wmt13_texts", "load_wmt17_da", "load_wmt17_testset",
    "load_wmt20_da", "load_wmt_da_judgements", "load_wmt_da_seg_scores", "read_worker_mean_sd", "WMT_TOEN_DA_LPS",
    "ToEnglishTexts", "load_wmt_toen_texts", "da_output_names", "ToEnglishDA", "load_wmt_toen_da", "prepare_statistics",
    "read_mqm_tsv", "score_mqm", "mqm_weight", "MQM_WEIGHTS", "read_mqm_avg_seg_scores",
]

DATA_ENV = "SPALIB_DATA"
_PROJECT_ROOT = Path(__file__).resolve().parent.parent


# --- where the data lives --------------------------------------------------------------------

def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "spalib" / "data"


def data_root() -> Path:
    """The folder the book reads its data from.

    ``$SPALIB_DATA`` if set (it must exist), else ``../shared/data`` next to the project if it
    exists, else the user cache folder (``$XDG_CACHE_HOME/spalib/data``), which
    ``python -m spalib.data download`` fills.
    """
    env = os.environ.get(DATA_ENV)
    if env:
        root = Path(env).expanduser()
        if not root.is_dir():
            raise FileNotFoundError(f"{DATA_ENV}={env} is not a folder")
        return root
    shared = _PROJECT_ROOT.parent / "shared" / "data"
    if shared.is_dir():
        return shared
    return _cache_root()


def dataset_path(name: str, root: Path | str | None = None) -> Path:
    """The folder of dataset ``name`` (a key of :data:`DATASETS`), which must be present."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    path = Path(root) if root is not None else data_root()
    path = path / name
    if not path.is_dir():
        raise FileNotFoundError(
            f"dataset {name!r} is not in {path.parent}; run `python -m spalib.data download {name}` "
            f"or point {DATA_ENV} at a folder that has it"
        )
    return path


def download(name: str, root: Path | str | None = None, *, progress: bool = True) -> Path:
    """Fetch the official release of dataset ``name`` into ``root`` (default: :func:`data_root`)."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    return fetch(DATASETS[name], Path(root) if root is not None else data_root(), progress=progress)


def _resolve(path: Path) -> Path:
    """``path`` or ``path.gz``, whichever exists."""
    path = Path(path)
    if path.exists():
        return path
    gz = path.with_name(path.name + ".gz")
    if gz.exists():
        return gz
    raise FileNotFoundError(f"{path} (or {gz.name}) not found")


def _read_text(path: Path) -> str:
    path = _resolve(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as f:
        return f.read()


def _lines(path: Path) -> list[str]:
    text = _read_text(path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines]


def _to_float(values: list[str], path: Path, line_numbers: list[int], *, allow_none: bool) -> np.ndarray:
    """Parse scores; ``None`` becomes NaN where allowed; anything else non-numeric is an error."""
    text = np.asarray(values, dtype=object)
    none = (text == "None") if allow_none else np.zeros(len(text), dtype=bool)
    out = np.full(len(text), np.nan)
    try:
        out[~none] = np.asarray(text[~none], dtype=np.float64)
    except ValueError:
        out[~none] = np.nan  # find the offending line for the message
        for k in np.flatnonzero(~none):
            try:
                float(text[k])
            except ValueError:
                raise ValueError(f"{path}:{line_numbers[k]}: score {text[k]!r} is not a number") from None
    bad = ~none & ~np.isfinite(out)
    if bad.any():
        k = int(np.argmax(bad))
        raise ValueError(f"{path}:{line_numbers[k]}: score {text[k]!r} is not a finite number")
    return out


def _split_fields(path: Path, n_fields: int, *, sep: str = "\t", header: bool = False):
    """Yield (line number, fields) for each line of a delimited file, checking the field count."""
    lines = _lines(path)
    start = 1 if header else 0
    for k, line in enumerate(lines[start:], start=start + 1):
        fields = line.split(sep) if sep else line.split()
        if len(fields) != n_fields:
            raise ValueError(f"{path}:{k}: expected {n_fields} fields separated by {sep or 'spaces'!r}, "
                             f"found {len(fields)}")
        yield k, fields


# --- mt-metrics-eval v2 ----------------------------------------------------------------------

@dataclass(frozen=True)
class MetaInfo:
    """Test-set facts the MTME files do not carry."""

    std_ref: str
    gold: str
    outlier_systems: frozenset[str] = frozenset()


#: Standard reference, standard gold and outlier systems per (test set, language pair), as set in
#: google-research/mt-metrics-eval ``mt_metrics_eval/meta_info.py`` (``DATA['wmt22']``,
#: ``DATA['wmt23']``), the toolkit that ran the WMT22/23 metrics tasks.
MTME_META: dict[tuple[str, str], MetaInfo] = {
    ("wmt22", "zh-en"): MetaInfo("refA", "mqm"),
    ("wmt22", "en-de"): MetaInfo("refA", "mqm", frozenset({"M2M100_1.2B-B4"})),
    ("wmt22", "en-ru"): MetaInfo("refA", "mqm"),
    ("wmt23", "en-de"): MetaInfo("refA", "mqm", frozenset({"synthetic_ref"})),
    ("wmt23", "he-en"): MetaInfo("refB", "mqm"),
    ("wmt23", "zh-en"): MetaInfo("refA", "mqm", frozenset({"synthetic_ref"})),
}

_LEVELS = ("seg", "sys", "domain")


@dataclass
class EvalSet:
    """One test set and language pair in the mt-metrics-eval v2 layout.

    Use :func:`load_mtme` to build one.  Score files are read lazily and cached.

    Attributes
    ----------
    systems : list of str
        Every "system" with an output file, human references included, sorted.
    human_systems : list of str
        Systems that are also references (as in MTME, ``synthetic_ref`` counts: it is in
        ``references/``, although machine-made; it is an outlier system for WMT23).
    std_ref : str
        The reference the standard metric scores use; never scored as a system.
    segments : list of str
        Source segments, in order.  ``docs`` and ``domains`` give each segment's document id
        and domain.
    human_score_names, metric_names : list of str
        Names as the files spell them (``"mqm"``, ``"da-sqm"``; ``"COMET-refA"``,
        ``"CometKiwi-src"``).
    """

    test_set: str
    lp: str
    folder: Path
    meta: MetaInfo
    systems: list[str]
    references: list[str]
    segments: list[str]
    docs: list[str]
    domains: list[str]
    _score_files: dict[tuple[str, str], Path] = field(repr=False)
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def std_ref(self) -> str:
        """The standard reference of the test set (metrics scored against it are the primary ones)."""
        return self.meta.std_ref

    @property
    def std_gold(self) -> str:
        """The standard human score (``"mqm"`` for the sets here)."""
        return self.meta.gold

    @property
    def outlier_systems(self) -> list[str]:
        """Systems WMT left out of its rankings."""
        return sorted(self.meta.outlier_systems)

    @property
    def human_systems(self) -> list[str]:
        """The human translations scored as systems."""
        return [s for s in self.systems if s in self.references]

    @cached_property
    def human_score_names(self) -> list[str]:
        """The human scores of the test set (``mqm``, ``da-sqm``, ...)."""
        return sorted({n for (n, _), p in self._score_files.items() if p.parent.name == "human-scores"})

    @cached_property
    def metric_names(self) -> list[str]:
        """Every metric scored on the test set, as ``NAME-REFERENCE``."""
        return sorted({n for (n, _), p in self._score_files.items() if p.parent.name != "human-scores"})

    def levels(self, name: str) -> list[str]:
        """Levels (``seg``, ``sys``, ``domain``) at which ``name`` has scores."""
        self._check_name(name)
        return [lvl for lvl in _LEVELS if (name, lvl) in self._score_files]

    @staticmethod
    def metric_reference(name: str) -> str:
        """The reference a metric used (``"refA"``, ``"synthetic_ref"``), or ``"src"`` if none."""
        if "-" not in name:
            raise ValueError(f"metric name {name!r} is not of the form BASENAME-REF")
        return name.rsplit("-", 1)[1]

    @staticmethod
    def metric_basename(name: str) -> str:
        """``"COMET-refA"`` → ``"COMET"``."""
        return name.rsplit("-", 1)[0]

    def is_reference_free(self, name: str) -> bool:
        """True for quality-estimation metrics (files named ``*-src``)."""
        self._check_name(name)
        return self.metric_reference(name) == "src"

    def uses_std_ref(self, name: str) -> bool:
        """True if the metric is scored against the standard reference."""
        self._check_name(name)
        return self.metric_reference(name) == self.std_ref

    def std_metric_names(self, *, level: str = "seg", reference_free: bool = True) -> list[str]:
        """Metrics scored with the standard reference (and, if asked, the reference-free ones)
        that have scores at ``level``: the metric set of the WMT meta-evaluations.
        """
        return [m for m in self.metric_names
                if (m, level) in self._score_files
                and (self.uses_std_ref(m) or (reference_free and self.is_reference_free(m)))]

    def _check_name(self, name: str) -> None:
        if name not in self.human_score_names and name not in self.metric_names:
            raise KeyError(f"{self.test_set}/{self.lp} has no scores named {name!r}; human scores: "
                           f"{', '.join(self.human_score_names)}")

    def _file(self, name: str, level: str) -> Path:
        self._check_name(name)
        try:
            return self._score_files[(name, level)]
        except KeyError:
            raise KeyError(f"{name!r} has no {level}-level scores in {self.test_set}/{self.lp} "
                           f"(it has: {', '.join(self.levels(name))})") from None

    def seg_scores(self, name: str) -> pd.DataFrame:
        """Segment scores: rows = systems in the file (sorted), columns = segment index, NaN = None."""
        key = (name, "seg")
        if key not in self._cache:
            self._cache[key] = self._read_seg(self._file(name, "seg"), human=name in self.human_score_names)
        return self._cache[key].copy()

    def sys_scores(self, name: str) -> pd.Series:
        """System scores as stored in ``NAME.sys.score`` (not recomputed from segments)."""
        key = (name, "sys")
        if key not in self._cache:
            path = self._file(name, "sys")
            data = {}
            for k, (system, score) in _split_fields(path, 2):
                self._check_system(system, path, k)
                if system in data:
                    raise ValueError(f"{path}:{k}: system {system!r} appears twice")
                data[system] = _to_float([score], path, [k], allow_none=True)[0]
            self._cache[key] = pd.Series(data, name=name, dtype=float).rename_axis("system").sort_index()
        return self._cache[key].copy()

    def domain_scores(self, name: str) -> pd.DataFrame:
        """Domain scores: rows = systems, columns = domains."""
        key = (name, "domain")
        if key not in self._cache:
            path = self._file(name, "domain")
            rows = []
            for k, (domain, system, score) in _split_fields(path, 3):
                self._check_system(system, path, k)
                rows.append((domain, system, _to_float([score], path, [k], allow_none=True)[0]))
            frame = pd.DataFrame(rows, columns=["domain", "system", "score"])
            self._cache[key] = frame.pivot(index="system", columns="domain", values="score")
        return self._cache[key].copy()

    def _check_system(self, system: str, path: Path, line: int) -> None:
        if system not in self.systems:
            raise ValueError(f"{path}:{line}: system {system!r} has no output in "
                             f"system-outputs/{self.lp}/ (known: {', '.join(self.systems)})")

    def _read_seg(self, path: Path, *, human: bool) -> pd.DataFrame:
        frame = read_seg_score_file(path, len(self.segments), systems=self.systems)
        if not human:
            missing = set(self.systems) - set(frame.index) - {self.metric_reference(path.name.split(".")[0])}
            if missing:
                raise ValueError(f"{path}: no scores for system(s) {', '.join(sorted(missing))}")
        return frame

    def system_output(self, system: str) -> list[str]:
        """The translation of ``system`` (a name in :attr:`systems`), one string per segment."""
        if system not in self.systems:
            raise KeyError(f"no system {system!r} in {self.test_set}/{self.lp}")
        return _lines(self.folder / "system-outputs" / self.lp / f"{system}.txt")


def read_seg_score_file(path: Path | str, n_segments: int, *, systems=None) -> pd.DataFrame:
    """Read one ``system<TAB>score`` segment-score file in the mt-metrics-eval layout.

    Each system has ``n_segments`` lines, in segment order; ``None`` becomes NaN.  Returns a
    DataFrame, rows = systems (sorted), columns = segment index.  If ``systems`` is given, a
    system not in it is an error.
    """
    path = Path(path)
    lines = _lines(path)
    fields = [line.split("\t") for line in lines]
    bad = next((k for k, f in enumerate(fields) if len(f) != 2), None)
    if bad is not None:
        raise ValueError(f"{path}:{bad + 1}: expected 2 fields separated by a tab, found {len(fields[bad])}")
    names_per_line = np.array([f[0] for f in fields], dtype=object)
    line_numbers = np.arange(1, len(lines) + 1)
    names, first = np.unique(names_per_line, return_index=True)
    if systems is not None:
        known = set(systems)
        for name, k in zip(names, first):
            if name not in known:
                raise ValueError(f"{path}:{k + 1}: system {name!r} is not one of {', '.join(sorted(known))}")
    values = _to_float([f[1] for f in fields], path, line_numbers, allow_none=True)
    rows = []
    for name in names:
        where = np.flatnonzero(names_per_line == name)
        if len(where) != n_segments:
            raise ValueError(f"{path}:{line_numbers[where[-1]]}: system {name!r} has {len(where)} lines, "
                             f"the test set has {n_segments} segments")
        rows.append(values[where])
    return pd.DataFrame(np.vstack(rows) if rows else np.empty((0, n_segments)),
                        index=pd.Index(names, name="system"), columns=pd.RangeIndex(n_segments, name="segment"))


def load_mtme(test_set: str, lp: str, root: Path | str | None = None) -> EvalSet:
    """Open ``test_set``/``lp`` (e.g. ``"wmt23"``, ``"en-de"``) of the mt-metrics-eval v2 data.

    ``root`` is the ``mt-metrics-eval-v2`` folder; by default ``data_root()/mt-metrics-eval-v2``.
    """
    base = Path(root) if root is not None else dataset_path("mt-metrics-eval-v2")
    folder = base / test_set
    if (test_set, lp) not in MTME_META:
        raise ValueError(f"no meta information for {test_set}/{lp}; known: "
                         f"{', '.join(f'{t}/{p}' for t, p in MTME_META)}")
    sources = folder / "sources" / f"{lp}.txt"
    segments = _lines(sources)
    doc_path = folder / "documents" / f"{lp}.docs"
    docs, domains = [], []
    for _, (domain, doc) in _split_fields(doc_path, 2):
        domains.append(domain)
        docs.append(doc)
    if len(docs) != len(segments):
        raise ValueError(f"{doc_path}: {len(docs)} lines, {sources} has {len(segments)}")

    references = []
    for path in sorted((folder / "references").glob(f"{lp}.*.txt*")):
        ref = path.name[len(lp) + 1:].removesuffix(".gz").removesuffix(".txt")
        _check_length(path, len(segments))
        references.append(ref)
    systems = []
    for path in sorted((folder / "system-outputs" / lp).glob("*.txt*")):
        _check_length(path, len(segments))
        systems.append(path.name.removesuffix(".gz").removesuffix(".txt"))
    if not systems:
        raise FileNotFoundError(f"no system outputs in {folder / 'system-outputs' / lp}")

    score_files: dict[tuple[str, str], Path] = {}
    for path in sorted((folder / "human-scores").glob(f"{lp}.*.score*")):
        stem = path.name.removesuffix(".gz").removesuffix(".score")
        name, level = stem[len(lp) + 1:].rsplit(".", 1)
        if level in _LEVELS:
            score_files[(name, level)] = path.with_name(path.name.removesuffix(".gz"))
    for path in sorted((folder / "metric-scores" / lp).glob("*.score*")):
        name, level = path.name.removesuffix(".gz").removesuffix(".score").rsplit(".", 1)
        if level in _LEVELS:
            score_files[(name, level)] = path.with_name(path.name.removesuffix(".gz"))

    meta = MTME_META[(test_set, lp)]
    if meta.std_ref not in references:
        raise ValueError(f"{folder}: standard reference {meta.std_ref!r} has no file in references/")
    return EvalSet(test_set, lp, folder, meta, systems, references, segments, docs, domains, score_files)


def _check_length(path: Path, n: int) -> None:
    found = len(_lines(path))
    if found != n:
        raise ValueError(f"{path}: {found} lines, the source has {n}")


def complete_segments(*frames: pd.DataFrame, systems=None):
    """Keep the segments (columns) scored for every system in every frame.

    Returns the filtered frames (rows restricted to ``systems`` if given, else to the systems
    all frames share, in sorted order) and a dict with the counts of segments kept and dropped.
    The caller decides what to do with the counts; nothing is dropped without being counted.
    """
    if not frames:
        raise ValueError("give at least one frame")
    shared = sorted(set.intersection(*(set(f.index) for f in frames)))
    if systems is not None:
        systems = list(systems)
        for f in frames:
            missing = set(systems) - set(f.index)
            if missing:
                raise ValueError(f"{f.columns.name or 'frame'} has no rows for {', '.join(sorted(missing))}")
        shared = systems
    cols = frames[0].columns
    for f in frames[1:]:
        if not f.columns.equals(cols):
            raise ValueError("the frames do not have the same segments (columns)")
    ok = np.ones(len(cols), dtype=bool)
    for f in frames:
        ok &= f.loc[shared].notna().all(axis=0).to_numpy()
    kept = tuple(f.loc[shared, ok] for f in frames)
    return kept, {"segments_kept": int(ok.sum()), "segments_dropped": int((~ok).sum()),
                  "systems": len(shared)}


@dataclass(frozen=True)
class SegmentTask:
    """Human and metric segment scores on one common set of systems and complete segments."""

    human: pd.DataFrame
    metrics: dict[str, pd.DataFrame]
    report: dict


def segment_task(es: EvalSet, *, human: str | None = None, reference_free: bool = False,
                 exclude_metrics=(), include_human_systems: bool = True) -> SegmentTask:
    """The inputs of a system-level meta-evaluation from segment scores (SPA, PA of means).

    Systems: every system with at least one human score, except the standard reference (no
    metric can score it) and the test set's outlier systems; human translations other than the
    standard reference stay unless ``include_human_systems=False``.  Metrics: those scored with
    the standard reference (plus reference-free ones if asked), minus any whose name starts with
    an entry of ``exclude_metrics``.  Segments: those every kept system has scores for, in every
    file.  ``report`` says what was left out and why.
    """
    # a single name is one prefix, not an iterable of one-letter prefixes
    excluded = (exclude_metrics,) if isinstance(exclude_metrics, str) else tuple(exclude_metrics)
    human = human or es.std_gold
    gold = es.seg_scores(human)
    scored = gold.index[gold.notna().any(axis=1)]
    dropped = {}
    for system in es.systems:
        if system not in scored:
            dropped[system] = f"no {human} scores"
        elif system == es.std_ref:
            dropped[system] = "standard reference"
        elif system in es.outlier_systems:
            dropped[system] = "outlier system"
        elif not include_human_systems and system in es.human_systems:
            dropped[system] = "human translation"
    systems = [s for s in scored if s not in dropped]
    names = [m for m in es.std_metric_names(reference_free=reference_free)
             if not any(m.startswith(prefix) for prefix in excluded)]
    frames, counts = complete_segments(gold, *(es.seg_scores(m) for m in names), systems=systems)
    report = {"systems": len(systems), "metrics": len(names), **counts, "systems_dropped": dropped,
              "metrics_excluded": [m for m in es.std_metric_names(reference_free=reference_free) if m not in names]}
    return SegmentTask(frames[0], dict(zip(names, frames[1:])), report)


# --- MQM from error annotations (google/wmt-mqm-human-evaluation) ---------------------------

#: The standard MQM weights (Freitag et al. 2021; mt-metrics-eval ``converters/score_mqm.py``):
#: keys are lower-cased ``severity[/category[/subcategory]]``; the longest matching prefix wins.
MQM_WEIGHTS: dict[str, float] = {
    "major": 5.0,
    "minor": 1.0,
    "neutral": 0.0,
    "major/non-translation!": 25.0,
    "minor/fluency/punctuation": 0.1,
}

_MQM_COLUMNS = ["system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity"]


def mqm_weight(severity: str, category: str, weights: dict[str, float] = MQM_WEIGHTS) -> float:
    """Weight of one error: try ``severity/category`` and drop the last component until a key
    matches; no match (e.g. ``No-error``, an unknown severity) weighs 0.
    """
    parts = [severity.strip().lower()] + [p.strip().lower() for p in category.split("/")]
    while parts:
        key = "/".join(parts)
        if key in weights:
            return weights[key]
        parts.pop()
    return 0.0


def read_mqm_tsv(path: Path | str, *, source_errors: str = "raise") -> pd.DataFrame:
    """Read a raw MQM annotation TSV (one row per error; ``No-error`` rows for clean segments).

    Columns: system, doc, doc_id, seg_id, rater, source, target, category, severity (and comment
    where present).  Rows whose category is ``Source error`` belong to the source, not the
    translation (Google ships them separately).  ``source_errors`` says what to do with them:
    ``"raise"`` (default) refuses the file, ``"drop"`` removes them, ``"keep"`` keeps them, to be
    weighted like any other error as mt-metrics-eval's ``score_mqm.py`` does.  The number found
    is in ``frame.attrs["source_error_rows"]``.
    """
    path = Path(path)
    lines = _lines(path)
    if not lines:
        raise ValueError(f"{path}: empty file")
    header = lines[0].split("\t")
    if header[: len(_MQM_COLUMNS)] != _MQM_COLUMNS:
        raise ValueError(f"{path}:1: header {header} does not start with {_MQM_COLUMNS}")
    rows = []
    for k, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(header):
            raise ValueError(f"{path}:{k}: expected {len(header)} tab-separated fields, found {len(fields)}")
        for col in (2, 3):
            if not fields[col].isdigit():
                raise ValueError(f"{path}:{k}: {header[col]} {fields[col]!r} is not a positive integer")
        rows.append(fields)
    frame = pd.DataFrame(rows, columns=header)
    frame["doc_id"] = frame["doc_id"].astype(int)
    frame["seg_id"] = frame["seg_id"].astype(int)
    frame["line"] = np.arange(2, len(frame) + 2)
    is_source = frame["category"].str.lower().str.startswith("source error")
    if source_errors not in ("raise", "drop", "keep"):
        raise ValueError(f"`source_errors` must be 'raise', 'drop' or 'keep'; got {source_errors!r}")
    if is_source.any() and source_errors != "keep":
        if source_errors == "raise":
            first = int(frame.loc[is_source, "line"].iloc[0])
            raise ValueError(f"{path}:{first}: {int(is_source.sum())} 'Source error' rows; pass "
                             "source_errors='drop' or 'keep' to say how to score them")
        frame = frame.loc[~is_source].reset_index(drop=True)
    frame.attrs["source_error_rows"] = int(is_source.sum())
    frame.attrs["path"] = str(path)
    return frame


def score_mqm(errors: pd.DataFrame, weights: dict[str, float] = MQM_WEIGHTS) -> pd.DataFrame:
    """MQM segment scores from error rows: per rater the sum of the error weights, then the
    mean over the raters who rated the segment, negated (0 = perfect, lower = worse).

    Returns one row per (system, seg_id) with columns ``doc``, ``doc_id``, ``n_raters``, ``mqm``.
    """
    weighted = errors.assign(weight=[mqm_weight(s, c, weights)
                                     for s, c in zip(errors["severity"], errors["category"])])
    per_rater = weighted.groupby(["system", "seg_id", "doc", "doc_id", "rater"], sort=True)["weight"].sum()
    per_seg = per_rater.groupby(level=["system", "seg_id", "doc", "doc_id"]).agg(["mean", "size"])
    out = pd.DataFrame({"mqm": -per_seg["mean"], "n_raters": per_seg["size"]}).reset_index()
    return out[["system", "seg_id", "doc", "doc_id", "n_raters", "mqm"]]


def read_mqm_avg_seg_scores(path: Path | str) -> pd.DataFrame:
    """Read Google's ``*.avg_seg_scores.tsv`` (``system<TAB>score<SPACE>seg_id``; ``None`` if unrated)."""
    path = Path(path)
    lines = _lines(path)
    if not lines or lines[0].split() != ["system", "mqm_avg_score", "seg_id"]:
        raise ValueError(f"{path}:1: expected the header 'system mqm_avg_score seg_id'")
    systems, scores, seg_ids, numbers = [], [], [], []
    for k, line in enumerate(lines[1:], start=2):
        system, sep, rest = line.partition("\t")
        fields = rest.split(" ")
        if not sep or len(fields) != 2 or not fields[1].isdigit():
            raise ValueError(f"{path}:{k}: expected 'system<TAB>score seg_id', found {line!r}")
        systems.append(system)
        scores.append(fields[0])
        seg_ids.append(int(fields[1]))
        numbers.append(k)
    return pd.DataFrame({"system": systems, "seg_id": seg_ids,
                         "mqm": _to_float(scores, path, numbers, allow_none=True)})


def _table(lines: list[str], where, columns: list[str], *, sep: str | None) -> tuple[pd.DataFrame, list[int]]:
    """A delimited table with a known header: the rows as strings, and their line numbers."""
    header = lines[0].split() if lines else []  # some releases separate the header by spaces, the rows by tabs
    if header != columns:
        raise ValueError(f"{where}:1: expected header {columns}, found {header}")
    rows, numbers = [], []
    for k, line in enumerate(lines[1:], start=2):
        fields = line.split(sep)
        if len(fields) != len(columns):
            raise ValueError(f"{where}:{k}: expected {len(columns)} fields, found {len(fields)}")
        rows.append(fields)
        numbers.append(k)
    return pd.DataFrame(rows, columns=columns), numbers


# --- WMT12 (Graham & Baldwin 2014 example data) ---------------------------------------------

def load_wmt12(lp: str = "es-en", *, multi: bool = True, root: Path | str | None = None):
    """System-level human scores and metric scores of WMT12 (the Williams-test example data).

    ``multi=True`` reads ``example-data-multi`` (es-en: 12 metrics; en-fr: 2), else
    ``example-data`` (AMBER and BLEU).  Returns ``(human, metrics)``: a Series indexed by system
    and a DataFrame (systems × metrics), both sorted by system name.  Metric scores keep their
    published orientation (TER is an error rate: lower is better).  A metric that lacks a system
    the humans scored, or scores a system they did not, is an error.
    """
    folder = (Path(root) if root is not None else dataset_path("wmt12")) / "significance-williams"
    folder = folder / ("example-data-multi" if multi else "example-data")
    human = _read_wmt12_file(folder / "mt-systems-scored-by-humans", lp)
    if list(human) != ["HUMAN"]:
        raise ValueError(f"{folder / 'mt-systems-scored-by-humans'}: expected METRIC = HUMAN only")
    human = human["HUMAN"]
    metrics = _read_wmt12_file(folder / "mt-systems-scored-by-metrics", lp)
    if not human:
        raise ValueError(f"{folder}: no human scores for {lp}")
    for metric, scores in metrics.items():
        missing, extra = set(human) - set(scores), set(scores) - set(human)
        if missing or extra:
            raise ValueError(f"{folder / 'mt-systems-scored-by-metrics'}: {metric} ({lp}) "
                             f"misses {sorted(missing)} / has extra {sorted(extra)} systems")
    human_s = pd.Series(human, name="HUMAN", dtype=float).rename_axis("system").sort_index()
    frame = pd.DataFrame(metrics).reindex(human_s.index)
    frame.columns.name = "metric"
    return human_s, frame


def _read_wmt12_file(path: Path, lp: str) -> dict[str, dict[str, float]]:
    frame, numbers = _space_table(path, ["METRIC", "LP", "TESTSET", "SYSTEM", "SCORE"], sep="\t")
    out: dict[str, dict[str, float]] = {}
    for k, metric, row_lp, system, score in zip(numbers, frame["METRIC"], frame["LP"], frame["SYSTEM"], frame["SCORE"]):
        if row_lp != lp:
            continue
        scores = out.setdefault(metric, {})
        if system in scores:
            raise ValueError(f"{path}:{k}: {metric} scores {system!r} twice")
        scores[system] = _to_float([score], path, [k], allow_none=False)[0]
    return out


def read_williams_results(path: Path | str) -> pd.DataFrame:
    """Read a p-value matrix written by the significance-williams R tool (``#`` comment lines,
    then a tab-separated matrix; ``-`` = not tested).
    """
    path = Path(path)
    rows = [(k, line) for k, line in enumerate(_lines(path), start=1) if line and not line.startswith("#")]
    if not rows:
        raise ValueError(f"{path}: no matrix found")
    header = rows[0][1].split("\t")[1:]
    values = {}
    for k, line in rows[1:]:
        fields = line.split("\t")
        if len(fields) != len(header) + 1:
            raise ValueError(f"{path}:{k}: expected {len(header) + 1} fields, found {len(fields)}")
        cells = [np.nan if f == "-" else f for f in fields[1:]]
        values[fields[0]] = [c if isinstance(c, float) else _to_float([c], path, [k], allow_none=False)[0]
                             for c in cells]
    return pd.DataFrame.from_dict(values, orient="index", columns=header)


# --- WMT13 segment-level DA (Graham, Mathur & Baldwin 2015) ---------------------------------

WMT13_LPS = ("cs-en", "de-en", "es-en", "fr-en", "ru-en", "en-de", "en-es", "en-fr", "en-ru")


def _tar_member(archive: Path, member: str) -> str:
    archive = _resolve(archive)
    with tarfile.open(archive) as tar:
        try:
            handle = tar.extractfile(member)
        except KeyError:
            raise FileNotFoundError(f"{archive} has no member {member}") from None
        return handle.read().decode("utf-8")


def _parse_lp_sys_sid_human(text: str, where: str, sep: str | None) -> pd.DataFrame:
    frame, numbers = _table(text.rstrip("\n").split("\n"), where, ["LP", "SYSTEM", "SID", "HUMAN"], sep=sep)
    frame.columns = ["lp", "system", "sid", "human"]
    bad = ~frame["sid"].str.isdigit()
    if bad.any():
        k = int(np.argmax(bad.to_numpy()))
        raise ValueError(f"{where}:{numbers[k]}: SID {frame['sid'].iloc[k]!r} is not a non-negative integer")
    frame["sid"] = frame["sid"].astype(int)
    frame["human"] = _to_float(list(frame["human"]), Path(where), numbers, allow_none=False)
    dup = frame.duplicated(["system", "sid"])
    if dup.any():
        raise ValueError(f"{where}:{numbers[int(np.argmax(dup.to_numpy()))]}: (system, SID) repeated")
    return frame


def load_wmt13_da(lp: str, *, root: Path | str | None = None) -> pd.DataFrame:
    """WMT13 segment-level DA of Graham et al. (2015): one row per judged translation with the
    mean raw (0-100) and mean standardised (z) score of its ≥ 15 crowd judgements.

    Columns: lp, system, sid (0-based line in newstest2013), raw, z.
    """
    if lp not in WMT13_LPS:
        raise ValueError(f"`lp` must be one of {', '.join(WMT13_LPS)}; got {lp!r}")
    archive = (Path(root) if root is not None else dataset_path("wmt13")) / "segment-mteval" / "seg-mteval-data.tar.gz"
    raw_name = f"seg-mteval-data/raw-seg-scrs/seg.ad.{lp}.csv"
    z_name = f"seg-mteval-data/z-seg-scrs/seg.ad.stnd.{lp}.csv"
    raw = _parse_lp_sys_sid_human(_tar_member(archive, raw_name), f"{archive}!{raw_name}", "\t")
    z = _parse_lp_sys_sid_human(_tar_member(archive, z_name), f"{archive}!{z_name}", None)
    merged = raw.rename(columns={"human": "raw"}).merge(
        z.rename(columns={"human": "z"}).drop(columns="lp"), on=["system", "sid"], how="outer", indicator=True)
    unmatched = merged["_merge"] != "both"
    if unmatched.any():
        raise ValueError(f"{archive}: {int(unmatched.sum())} items of {lp} are in only one of "
                         f"{raw_name} and {z_name}")
    return merged.drop(columns="_merge").sort_values(["system", "sid"]).reset_index(drop=True)


def load_wmt13_texts(lp: str, *, tokenized: bool = False, root: Path | str | None = None) -> pd.DataFrame:
    """The WMT13 DA items with their texts (Graham et al. COLING 2016 release): columns lp,
    system, sid, z, src, ref, mt, post_edit; line-aligned as published.
    """
    if lp not in WMT13_LPS:
        raise ValueError(f"`lp` must be one of {', '.join(WMT13_LPS)}; got {lp!r}")
    archive = (Path(root) if root is not None else dataset_path("wmt13")) / "direct-assessment" / "dataset.tar.gz"
    scores_name = f"dataset/human-scores.{lp}.csv"
    frame = _parse_lp_sys_sid_human(_tar_member(archive, scores_name), f"{archive}!{scores_name}", None)
    frame = frame.rename(columns={"human": "z"})
    tok = ".pre-tok" if tokenized else ""
    for column, stem in (("src", "src"), ("ref", "ref"), ("mt", "sys"), ("post_edit", "human-post-edit")):
        name = f"dataset/{stem}{tok}.{lp}"
        lines = _tar_member(archive, name).rstrip("\n").split("\n")
        if len(lines) != len(frame):
            raise ValueError(f"{archive}!{name}: {len(lines)} lines, {scores_name} has {len(frame)} items")
        frame[column] = lines
    return frame


# --- WMT17-22 DA ----------------------------------------------------------------------------

def _space_table(path: Path, columns: list[str], *, sep: str | None = None) -> tuple[pd.DataFrame, list[int]]:
    return _table(_lines(_resolve(path)), path, columns, sep=sep)


def load_wmt17_da(level: str = "seg", *, root: Path | str | None = None) -> pd.DataFrame:
    """WMT17 DA from the metrics-task package.

    ``level="seg"``: ``DA-seglevel.csv`` (560 translations × 9 lps, mean of ≥ 15 z-scored
    judgements; columns lp, testset, system, sid (1-based), human).
    ``level="sys"``: ``DA-syslevel.csv`` (columns lp, system, human).
    """
    folder = (Path(root) if root is not None else dataset_path("wmt-da")) / "2017"
    if level == "seg":
        frame, numbers = _space_table(folder / "DA-seglevel.csv", ["LP", "DATA", "SYSTEM", "SID", "HUMAN"], sep=None)
        frame.columns = ["lp", "testset", "system", "sid", "human"]
        frame["sid"] = _to_float(list(frame["sid"]), folder / "DA-seglevel.csv", numbers, allow_none=False).astype(int)
    elif level == "sys":
        frame, numbers = _space_table(folder / "DA-syslevel.csv", ["LP", "HUMAN", "SYSTEM"], sep=None)
        frame = frame[["LP", "SYSTEM", "HUMAN"]]
        frame.columns = ["lp", "system", "human"]
    else:
        raise ValueError(f"`level` must be 'seg' or 'sys'; got {level!r}")
    frame["human"] = _to_float(list(frame["human"]), folder, numbers, allow_none=False)
    return frame


def load_wmt17_testset(lp: str, *, root: Path | str | None = None) -> pd.DataFrame:
    """The WMT17 DA-scored segments of one to-English pair with their texts (lower-cased and
    tokenised by the XMoverScore authors who released them), DA z score and sentBLEU.

    Columns: lp, source, translation, reference, human, sentbleu.  lv-en has 435 of the 560 items.
    """
    path = (Path(root) if root is not None else dataset_path("wmt-da")) / "2017" / "testset" / f"testset_{lp}.tsv"
    frame, numbers = _space_table(path, ["LP", "source", "translation", "reference", "HUMAN_score", "sentBLEU"],
                                  sep="\t")
    out = pd.DataFrame({"lp": frame["LP"], "source": frame["source"], "translation": frame["translation"],
                        "reference": frame["reference"]})
    out["human"] = _to_float(list(frame["HUMAN_score"]), path, numbers, allow_none=False)
    out["sentbleu"] = _to_float(list(frame["sentBLEU"]), path, numbers, allow_none=False)
    return out


def load_wmt20_da(lp: str, level: str = "seg", *, root: Path | str | None = None) -> pd.DataFrame:
    """WMT20 DA from the metrics-task repository.

    ``level="seg"``: ``metrics-ad-seg-scores-<lp>.csv``, one row per (system, segment) with
    the mean raw and z score of its judgements (mostly one or two: not 15-judgement means);
    columns system, segid, raw, z, n, sid.  ``level="sys"``: ``ad-sys-scores-<lp>.csv``,
    columns system, raw, z, n, n_all.
    """
    folder = (Path(root) if root is not None else dataset_path("wmt-da")) / "2020" / "manual-evaluation" / "DA"
    if level == "seg":
        path = folder / f"metrics-ad-seg-scores-{lp}.csv"
        frame, numbers = _space_table(path, ["SYS", "SEGID", "RAW.SCR", "Z.SCR", "N", "SID"], sep=None)
        return pd.DataFrame({
            "system": frame["SYS"], "segid": frame["SEGID"],
            "raw": _to_float(list(frame["RAW.SCR"]), path, numbers, allow_none=False),
            "z": _to_float(list(frame["Z.SCR"]), path, numbers, allow_none=False),
            "n": _to_float(list(frame["N"]), path, numbers, allow_none=False).astype(int),
            "sid": _to_float(list(frame["SID"]), path, numbers, allow_none=False).astype(int),
        })
    if level == "sys":
        path = folder / f"ad-sys-scores-{lp}.csv"
        frame, numbers = _space_table(path, ["RAW.SCR", "Z.SCR", "N", "SYS", "N.ALL"], sep=None)
        return pd.DataFrame({
            "system": frame["SYS"],
            "raw": _to_float(list(frame["RAW.SCR"]), path, numbers, allow_none=False),
            "z": _to_float(list(frame["Z.SCR"]), path, numbers, allow_none=False),
            "n": _to_float(list(frame["N"]), path, numbers, allow_none=False).astype(int),
            "n_all": _to_float(list(frame["N.ALL"]), path, numbers, allow_none=False).astype(int),
        })
    raise ValueError(f"`level` must be 'seg' or 'sys'; got {level!r}")


WMT_TOEN_DA_LPS = {
    2021: ("cs-en", "de-en", "ha-en", "is-en", "ja-en", "ru-en"),
    2022: ("cs-en", "de-en", "ja-en", "lv-en", "ru-en", "uk-en", "zh-en"),
}
"""The WMT21/22 to-English pairs whose individual DA judgements are public (WMT21 zh-en's are not)."""

_TOEN_TESTSET = {2021: "newstest2021", 2022: "generaltest2022"}
_TEXT_LP = {"lv-en": "liv-en"}  # the WMT22 DA files spell Livonian `lv`, the texts `liv`


def _toen_folder(year: int, root) -> Path:
    if year not in WMT_TOEN_DA_LPS:
        raise ValueError(f"`year` must be 2021 or 2022; got {year!r}")
    return (Path(root) if root is not None else dataset_path("wmt-da")) / str(year) / f"newstest{year}-toen"


def _check_toen_lp(year: int, lp: str) -> None:
    if lp not in WMT_TOEN_DA_LPS[year] and not (year == 2021 and lp == "zh-en"):
        raise ValueError(f"`lp` must be one of {', '.join(WMT_TOEN_DA_LPS[year])} for {year}; got {lp!r}")


def read_worker_mean_sd(path: Path | str) -> pd.DataFrame:
    """Per-worker mean and standard deviation of raw DA scores, as printed by R.

    The ``ad-<sl>en-trk-mean-sd.txt`` files hold three lines per worker: ``[1] "M0403"``, the mean
    and the sd of that worker's raw 0-100 scores (``NA`` for a worker with one score).
    Columns: worker, mean, sd (NaN for ``NA``).
    """
    path = _resolve(Path(path))
    lines = _lines(path)
    if not lines or len(lines) % 3:
        raise ValueError(f"{path}: expected three lines per worker, found {len(lines)} lines")
    workers, means, sds = [], [], []
    for k in range(0, len(lines), 3):
        name = lines[k].removeprefix('[1] "').removesuffix('"')
        if not lines[k].startswith('[1] "') or name == lines[k] or not name:
            raise ValueError(f"{path}:{k + 1}: expected a worker id like [1] \"M0403\", found {lines[k]!r}")
        for offset, out in ((1, means), (2, sds)):
            field = lines[k + offset].removeprefix("[1] ")
            if field == lines[k + offset]:
                raise ValueError(f"{path}:{k + offset + 1}: expected '[1] <number>', found {lines[k + offset]!r}")
            out.append(np.nan if field == "NA" else _to_float([field], path, [k + offset + 1], allow_none=False)[0])
        workers.append(name)
    frame = pd.DataFrame({"worker": workers, "mean": means, "sd": sds})
    dup = frame["worker"].duplicated()
    if dup.any():
        line = 3 * int(np.argmax(dup.to_numpy())) + 1
        raise ValueError(f"{path}:{line}: worker {frame['worker'][dup].iloc[0]!r} repeated")
    return frame


def load_wmt_da_judgements(year: int, lp: str, *, root: Path | str | None = None) -> pd.DataFrame:
    """Individual WMT21/22 to-English crowd DA judgements, one row per judgement.

    Columns as published, lower-cased where the file has them (``score`` is the judgement
    z-scored by its worker; ``type`` is SYSTEM, REPEAT, REF or BAD_REF), plus ``raw``: the 0-100
    score recovered as ``score * sd + mean`` from the worker's ``ad-<sl>en-trk-mean-sd.txt``
    entry.  Averaged over SYSTEM and REPEAT rows, ``raw`` and ``score`` reproduce the published
    ``ad-seg-scores`` means exactly.  A judgement whose worker has no finite mean and sd is an error.
    """
    _check_toen_lp(year, lp)
    src, tgt = lp.split("-")
    folder = _toen_folder(year, root)
    path = folder / f"ad-{src}{tgt}-good-stnd-redup.csv"
    columns = ["HITId", "WorkerId", "Input.src", "Input.trg", "Input.item", "hit", "sys_id", "rid",
               "type", "sid", "score", "time"]
    frame, numbers = _space_table(path, columns, sep="\t")
    frame["score"] = _to_float(list(frame["score"]), path, numbers, allow_none=False)
    bad = ~frame["sid"].str.isdigit()
    if bad.any():
        k = int(np.argmax(bad.to_numpy()))
        raise ValueError(f"{path}:{numbers[k]}: sid {frame['sid'].iloc[k]!r} is not a non-negative integer")
    frame["sid"] = frame["sid"].astype(int)
    workers = read_worker_mean_sd(folder / f"ad-{src}{tgt}-trk-mean-sd.txt").set_index("worker")
    mean = frame["WorkerId"].map(workers["mean"]).to_numpy()
    sd = frame["WorkerId"].map(workers["sd"]).to_numpy()
    unknown = ~(np.isfinite(mean) & np.isfinite(sd))
    if unknown.any():
        k = int(np.argmax(unknown))
        raise ValueError(f"{path}:{numbers[k]}: worker {frame['WorkerId'].iloc[k]!r} has no finite mean and sd "
                         f"in ad-{src}{tgt}-trk-mean-sd.txt")
    frame["raw"] = frame["score"].to_numpy() * sd + mean
    return frame


def load_wmt_da_seg_scores(year: int, lp: str, *, root: Path | str | None = None) -> pd.DataFrame:
    """Per-(system, segment) WMT21/22 DA means: columns system, sid, raw, z, n."""
    _check_toen_lp(year, lp)
    path = _toen_folder(year, root) / f"ad-seg-scores-{lp}.csv"
    frame, numbers = _space_table(path, ["SYS", "SID", "RAW.SCR", "Z.SCR", "N"], sep=None)
    out = pd.DataFrame({
        "system": frame["SYS"],
        "sid": frame["SID"].astype(int),
        "raw": _to_float(list(frame["RAW.SCR"]), path, numbers, allow_none=False),
        "z": _to_float(list(frame["Z.SCR"]), path, numbers, allow_none=False),
        "n": frame["N"].astype(int),
    })
    return out


@dataclass(frozen=True)
class ToEnglishTexts:
    """Sources, references and system outputs of one WMT21/22 to-English test set, line-aligned
    (line n is segment id n of the DA files).
    """

    year: int
    lp: str
    source: list[str]
    references: dict[str, list[str]]
    outputs: dict[str, list[str]]

    @property
    def std_ref(self) -> str:
        """The reference the book scores metrics against: the first published one (A; B for WMT22 cs-en)."""
        return min(self.references)


def load_wmt_toen_texts(year: int, lp: str, *, root: Path | str | None = None) -> ToEnglishTexts:
    """The texts of a WMT21/22 to-English test set: sources, every reference, every system output.

    Every file must have as many lines as the source (a file that does not is an error naming it).
    """
    _check_toen_lp(year, lp)
    text_lp = _TEXT_LP.get(lp, lp)
    folder = (Path(root) if root is not None else dataset_path("wmt-da")) / str(year) / "txt"
    stem = f"{_TOEN_TESTSET[year]}.{text_lp}"
    source = _lines(folder / "sources" / f"{stem}.src.{text_lp.split('-')[0]}")

    def named(sub: str, kind: str) -> dict[str, list[str]]:
        out = {}
        for path in sorted((folder / sub).glob(f"{stem}.{kind}.*.en*")):
            name = path.name.removesuffix(".gz").removeprefix(f"{stem}.{kind}.").removesuffix(".en")
            lines = _lines(path)
            if len(lines) != len(source):
                raise ValueError(f"{path}: {len(lines)} lines, the source has {len(source)}")
            out[name] = lines
        if not out:
            raise FileNotFoundError(f"no {stem}.{kind}.*.en files in {folder / sub}")
        return out

    return ToEnglishTexts(year, lp, source, named("references", "ref"), named("system-outputs", "hyp"))


def da_output_names(da_systems, output_systems) -> dict[str, str | None]:
    """Join DA system names to output-file names, checking every join.

    DA names carry a submission id (``XMU.17``), output files do not (``XMU``): the id is stripped.
    WMT21's ``Nemo`` is the output ``NVIDIA-NeMo``.  ``HUMAN`` systems (human translations) map to
    ``None``.  A DA system with no output, or two DA systems with the same output, is an error.
    """
    outputs = set(output_systems)
    joined: dict[str, str | None] = {}
    for name in da_systems:
        base = name.rsplit(".", 1)[0] if name.rsplit(".", 1)[-1].isdigit() else name
        if base.startswith("HUMAN"):
            joined[name] = None
        elif base in outputs:
            joined[name] = base
        elif base == "Nemo" and "NVIDIA-NeMo" in outputs:
            joined[name] = "NVIDIA-NeMo"
        else:
            raise ValueError(f"DA system {name!r} has no system output (outputs: {', '.join(sorted(outputs))})")
    taken = [o for o in joined.values() if o is not None]
    if len(taken) != len(set(taken)):
        raise ValueError(f"two DA systems join the same output: {sorted(joined.items(), key=str)}")
    return joined


@dataclass(frozen=True)
class ToEnglishDA:
    """WMT21/22 to-English crowd DA judgements joined to the outputs they judge.

    ``judgements``: one row per judgement kept: year, lp, system (output name), sid, worker,
    type, z, raw, output (row of ``outputs``).  ``outputs``: one row per judged system output:
    year, lp, system, sid, hypothesis, reference (the test set's :attr:`ToEnglishTexts.std_ref`).
    ``dropped``: what was left out and why (judgement types not asked for, human translations),
    with the number of judgements.
    """

    judgements: pd.DataFrame
    outputs: pd.DataFrame
    dropped: pd.DataFrame


def load_wmt_toen_da(years=(2021, 2022), *, lps=None, types=("SYSTEM", "REPEAT"),
                     root: Path | str | None = None) -> ToEnglishDA:
    """Every public WMT21/22 to-English DA judgement with the system output it judges.

    Parameters
    ----------
    years : iterable of {2021, 2022}
    lps : iterable of str, optional
        Language pairs (default: all of :data:`WMT_TOEN_DA_LPS` for each year).
    types : iterable of str
        Judgement types to keep.  SYSTEM and REPEAT (the default) are the rows WMT averages into
        its segment and system scores; REF and BAD_REF are quality-control items.
    """
    years = tuple(years)
    types = (types,) if isinstance(types, str) else tuple(types)
    known = {"SYSTEM", "REPEAT", "REF", "BAD_REF"}
    if not types or set(types) - known:
        raise ValueError(f"`types` must be a non-empty subset of {sorted(known)}; got {types!r}")
    frames, outputs, dropped = [], [], []
    for year in years:
        if year not in WMT_TOEN_DA_LPS:
            raise ValueError(f"`years` must hold 2021 and/or 2022; got {year!r}")
        year_lps = WMT_TOEN_DA_LPS[year] if lps is None else [lp for lp in lps if lp in WMT_TOEN_DA_LPS[year]]
        for lp in year_lps:
            raw = load_wmt_da_judgements(year, lp, root=root)
            texts = load_wmt_toen_texts(year, lp, root=root)
            for kind, count in raw.loc[~raw["type"].isin(types), "type"].value_counts().sort_index().items():
                dropped.append({"year": year, "lp": lp, "what": f"{kind} judgements", "judgements": int(count)})
            kept = raw[raw["type"].isin(types)]
            names = da_output_names(sorted(kept["sys_id"].unique()), texts.outputs)
            system = kept["sys_id"].map(names)
            for da_name in sorted(n for n, o in names.items() if o is None):
                dropped.append({"year": year, "lp": lp, "what": f"{da_name} (human translation)",
                                "judgements": int((kept["sys_id"] == da_name).sum())})
            kept = kept.assign(system=system)[system.notna().to_numpy()]
            out_of_range = (kept["sid"] < 1) | (kept["sid"] > len(texts.source))
            if out_of_range.any():
                sid = int(kept["sid"][out_of_range].iloc[0])
                raise ValueError(f"{_toen_folder(year, root)}: {lp} judges segment {sid}, "
                                 f"outside the test set's 1-{len(texts.source)}")
            judged = kept[["system", "sid"]].drop_duplicates().sort_values(["system", "sid"])
            judged = judged.assign(
                year=year, lp=lp,
                hypothesis=[texts.outputs[s][i - 1] for s, i in zip(judged["system"], judged["sid"])],
                reference=[texts.references[texts.std_ref][i - 1] for i in judged["sid"]])
            outputs.append(judged[["year", "lp", "system", "sid", "hypothesis", "reference"]])
            frames.append(pd.DataFrame({"year": year, "lp": lp, "system": kept["system"], "sid": kept["sid"],
                                        "worker": kept["WorkerId"], "type": kept["type"],
                                        "z": kept["score"], "raw": kept["raw"]}))
    outputs_frame = pd.concat(outputs, ignore_index=True)
    judgements = pd.concat(frames, ignore_index=True)
    index = pd.MultiIndex.from_frame(outputs_frame[["year", "lp", "system", "sid"]])
    judgements["output"] = index.get_indexer(pd.MultiIndex.from_frame(judgements[["year", "lp", "system", "sid"]]))
    return ToEnglishDA(judgements, outputs_frame,
                       pd.DataFrame(dropped, columns=["year", "lp", "what", "judgements"]))


def prepare_statistics(metric: str, lp: str | None = None, *, da: ToEnglishDA | None = None) -> np.ndarray:
    """Sacrebleu statistics of every judged output of :func:`load_wmt_toen_da` (``da``, loaded if
    not given), of one language pair or all, computed once and cached by
    :func:`spalib.corpus_metrics.segment_statistics`.
    """
    from spalib.corpus_metrics import segment_statistics

    outputs = (da or load_wmt_toen_da()).outputs
    if lp is not None:
        outputs = outputs[outputs["lp"] == lp]
    return segment_statistics(metric, outputs["hypothesis"], outputs["reference"])


# --- command line ----------------------------------------------------------------------------

def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spalib.data", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("where", help="print the data folder and which datasets it holds")
    get = sub.add_parser("download", help="fetch official releases into the data folder")
    get.add_argument("datasets", nargs="+", choices=[*DATASETS, "all"])
    get.add_argument("--root", type=Path, default=None, help="download here instead of the data folder")
    ensure = sub.add_parser("ensure", help="download whichever of the datasets is missing")
    ensure.add_argument("datasets", nargs="*", default=list(DATASETS), metavar="DATASET",
                        help=f"any of: {', '.join(DATASETS)} (default: all)")
    sub.add_parser("prepare", help="compute and cache the sacrebleu statistics of the WMT21/22 to-English "
                                   "DA-judged outputs (BLEU and chrF; TER for WMT22 liv-en), ~1.5 min once")
    args = parser.parse_args(argv)
    if args.command == "ensure" and set(args.datasets) - set(DATASETS):
        parser.error(f"unknown dataset(s) {', '.join(sorted(set(args.datasets) - set(DATASETS)))}; "
                     f"known: {', '.join(DATASETS)}")

    if args.command == "prepare":
        da = load_wmt_toen_da()
        for metric, lp in (("bleu", None), ("chrf", None), ("ter", "lv-en")):
            print(f"{metric}: {prepare_statistics(metric, lp, da=da).shape[0]} segments", file=sys.stderr)
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
            print(f"{name} -> {download(name, args.root)}")
        return 0
    root = data_root()
    for name in args.datasets:
        if not (root / name).is_dir():
            print(f"{name} is missing from {root}: downloading", file=sys.stderr)
            download(name, root)
    print(root)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())

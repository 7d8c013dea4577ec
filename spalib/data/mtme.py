"""The mt-metrics-eval v2 layout: evaluation sets, score files, complete segments, tasks."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from spalib._core.validation import flag_iv, labels_iv, names_iv, path_iv, positive_int_iv
from spalib.data._tables import read_lines, read_text, resolve, split_fields, to_float
from spalib.data.paths import resolve_root


@dataclass(frozen=True)
class MetaInfo:
    """Test-set facts the MTME files do not carry (mt-metrics-eval's ``meta_info.py``).

    ``seg_gold`` / ``sys_gold`` are the standard human scores (``None`` where WMT set none);
    ``primary_metrics`` and ``baseline_metrics`` are base names (``"COMET"``, ``"CometKiwi"``).
    """

    std_ref: str
    seg_gold: str | None
    sys_gold: str | None
    outlier_systems: frozenset[str] = frozenset()
    primary_metrics: frozenset[str] = frozenset()
    baseline_metrics: frozenset[str] = frozenset()


_META_DIR = Path(__file__).parent


def _tsv_rows(name: str) -> list[tuple[int, list[str]]]:
    path = _META_DIR / name
    rows = [(k, line.split("\t")) for k, line in enumerate(read_lines(path), 1) if not line.startswith("#")]
    header = rows[0][1]
    for k, fields in rows[1:]:
        if len(fields) != len(header):
            raise ValueError(f"{path}:{k}: {len(fields)} fields, the header has {len(header)}")
    return [(k, fields) for k, fields in rows[1:]]


def _read_meta_info() -> dict[tuple[str, str], MetaInfo]:
    def optional(value):
        return None if value == "-" else value

    def listed(value):
        return frozenset() if value == "-" else frozenset(value.split(","))

    meta = {}
    for k, (test_set, lp, ref, sys_, _domain, seg, outliers, primary, baseline) in _tsv_rows("mtme_meta.tsv"):
        if (test_set, lp) in meta:
            raise ValueError(f"{_META_DIR / 'mtme_meta.tsv'}:{k}: {test_set} {lp} repeated")
        meta[(test_set, lp)] = MetaInfo(ref, optional(seg), optional(sys_), listed(outliers), listed(primary),
                                        listed(baseline))
    return meta


#: The meta information of every test set and language pair of mt-metrics-eval (standard
#: reference, standard human scores, outlier systems, primary and baseline metrics), read from
#: ``mtme_meta.tsv`` beside this module: facts read from google-research/mt-metrics-eval
#: ``mt_metrics_eval/meta_info.py`` (``DATA``) at the commit its header names (wmt19-wmt25,
#: wmt23.sent, wmt24pp).
MTME_META: dict[tuple[str, str], MetaInfo] = _read_meta_info()

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
        """The standard segment-level human score (``"mqm"`` for the WMT22/23 MQM sets)."""
        if self.meta.seg_gold is None:
            raise ValueError(f"{self.test_set}/{self.lp} has no standard human scores (mt-metrics-eval's "
                             f"meta_info sets none); choose one with human=NAME (--human NAME on the command "
                             f"line): {', '.join(self.human_score_names) or 'none in this folder'}")
        return self.meta.seg_gold

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
            return resolve(self._score_files[(name, level)])
        except KeyError:
            raise KeyError(f"{name!r} has no {level}-level scores in {self.test_set}/{self.lp} "
                           f"(it has: {', '.join(self.levels(name))})") from None

    def seg_scores(self, name: str) -> pd.DataFrame:
        """Segment scores: rows = systems in the file (sorted), columns = segment index, NaN = None."""
        key = (name, "seg")
        if key not in self._cache:
            path = self._file(name, "seg")
            frame = read_seg_score_file(path, len(self.segments), systems=self.systems)
            self._check_every_system(name, path, frame.index)
            self._cache[key] = frame
        return self._cache[key].copy()

    def sys_scores(self, name: str) -> pd.Series:
        """System scores as stored in ``NAME.sys.score`` (not recomputed from segments).

        A metric's file must score every system but its own reference; a human score may skip
        systems (as in the segment files).
        """
        key = (name, "sys")
        if key not in self._cache:
            path = self._file(name, "sys")
            data = {}
            for k, (system, score) in split_fields(path, 2):
                self._check_system(system, path, k)
                if system in data:
                    raise ValueError(f"{path}:{k}: system {system!r} appears twice")
                data[system] = to_float([score], path, [k], allow_none=True)[0]
            self._check_every_system(name, path, data)
            self._cache[key] = pd.Series(data, name=name, dtype=float).rename_axis("system").sort_index()
        return self._cache[key].copy()

    def domain_scores(self, name: str) -> pd.DataFrame:
        """Domain scores: rows = systems, columns = domains.

        A (domain, system) line given twice is an error; a metric's file must score every system
        but its own reference, in every domain of the file.
        """
        key = (name, "domain")
        if key not in self._cache:
            path = self._file(name, "domain")
            rows, seen = [], {}
            for k, (domain, system, score) in split_fields(path, 3):
                self._check_system(system, path, k)
                if (domain, system) in seen:
                    raise ValueError(f"{path}:{k}: system {system!r} in domain {domain!r} appears twice "
                                     f"(first on line {seen[domain, system]})")
                seen[domain, system] = k
                rows.append((domain, system, to_float([score], path, [k], allow_none=True)[0]))
            frame = pd.DataFrame(rows, columns=["domain", "system", "score"])
            self._check_every_system(name, path, frame["system"])
            if name not in self.human_score_names:  # a metric scores every system in every domain
                for system, domains in frame.groupby("system")["domain"]:
                    absent = sorted(set(frame["domain"]) - set(domains))
                    if absent:
                        raise ValueError(f"{path}: no line for system {system!r} in domain(s) {', '.join(absent)}")
            self._cache[key] = frame.pivot(index="system", columns="domain", values="score")
        return self._cache[key].copy()

    def _check_system(self, system: str, path: Path, line: int) -> None:
        if system not in self.systems:
            raise ValueError(f"{path}:{line}: system {system!r} has no output in "
                             f"system-outputs/{self.lp}/ (known: {', '.join(self.systems)})")

    def _check_every_system(self, name: str, path: Path, present) -> None:
        """A metric's file must score every system but its own reference (human scores may skip some)."""
        if name in self.human_score_names:
            return
        missing = set(self.systems) - set(present) - {self.metric_reference(name)}
        if missing:
            raise ValueError(f"{path}: no scores for system(s) {', '.join(sorted(missing))}")

    def system_output(self, system: str) -> list[str]:
        """The translation of ``system`` (a name in :attr:`systems`), one string per segment."""
        if system not in self.systems:
            raise KeyError(f"no system {system!r} in {self.test_set}/{self.lp}")
        return read_lines(self.folder / "system-outputs" / self.lp / f"{system}.txt")


def _score_cells(values, where) -> np.ndarray:
    """Scores as float64: real numbers, NaN (or None) for a missing one; a string, a bool or inf is
    an error naming the cell (``where(k)`` describes cell ``k``, an index into ``values``).
    """
    values = np.asarray(values)
    if values.dtype.kind not in "iuf":
        bad = np.array([not (v is None or v is pd.NA or (isinstance(v, numbers.Real)
                                                         and not isinstance(v, (bool, np.bool_))))
                        for v in values.ravel()], dtype=bool).reshape(values.shape)
        if bad.any():
            k = np.unravel_index(int(np.argmax(bad.ravel())), values.shape)
            k = k[0] if values.ndim == 1 else k
            raise ValueError(f"{where(k)}: {values[k]!r} is not a number (scores must be int or float; NaN "
                             "marks a missing one)")
        values = np.array([np.nan if v is None or v is pd.NA else v for v in values.ravel()],
                          dtype=np.float64).reshape(values.shape)
    values = values.astype(np.float64)
    if np.isinf(values).any():
        k = np.unravel_index(int(np.argmax(np.isinf(values).ravel())), values.shape)
        k = k[0] if values.ndim == 1 else k
        raise ValueError(f"{where(k)}: score {float(values[k])} is not finite")
    return values


# pandas 3 parses floats exactly by default (and deprecates the option); pandas 2 needs round_trip
_EXACT_FLOATS = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def _tab_fields(text: str):
    """System names and scores of a file whose every line is ``NAME<TAB>SCORE``, with no other
    whitespace and no score but numbers and ``None``, read by pandas' C tokenizer (floats parsed
    exactly as Python parses them; tested); None for any other file: the line-by-line reader
    then reads it, or names what is wrong.
    """
    if " " in text or "\r" in text:
        return None
    try:
        frame = pd.read_csv(io.StringIO(text), sep="\t", header=None, names=["system", "score"],
                            dtype={"system": object, "score": np.float64}, keep_default_na=False,
                            na_values={"score": ["None"]}, quoting=csv.QUOTE_NONE, **_EXACT_FLOATS,
                            skip_blank_lines=False, engine="c")
    except (pd.errors.ParserError, ValueError):
        return None
    names, scores = frame["system"].to_numpy(dtype=object), frame["score"].to_numpy(dtype=np.float64)
    n_lines = text.removesuffix("\n").count("\n") + 1
    n_none = text.count("\tNone\n") + text.endswith("\tNone")
    if (len(frame) != n_lines or int(np.isnan(scores).sum()) != n_none or np.isinf(scores).any()
            or pd.isna(names).any() or (names == "").any()):
        return None
    return names, scores


def read_seg_score_file(path: Path | str, n_segments: int, *, systems=None) -> pd.DataFrame:
    """Read one ``system<TAB>score`` segment-score file in the mt-metrics-eval layout.

    Parameters
    ----------
    path : path
        The file (``NAME`` or ``NAME.gz``).
    n_segments : int
        Lines per system.
    systems : collection, optional
        The known systems: another system is an error.

    Returns
    -------
    DataFrame
        Rows = systems (sorted), columns = segment index; ``None`` becomes NaN.

    Notes
    -----
    Each system has ``n_segments`` lines, in segment order.  As mt-metrics-eval's own reader, the
    two fields may be separated by a tab or spaces and the last line need not end with a
    newline; a byte-order mark, a missing or extra line for a system, or a score that is not a
    number (``None`` marks a missing one) is an error naming the line.

    References
    ----------
    Freitag, M. et al. (2023). Results of WMT23 metrics shared task. WMT. Data:
    google-research/mt-metrics-eval (v2 release).

    Examples
    --------
    >>> es = load_mtme("wmt23", "en-de")
    >>> read_seg_score_file(es.folder / "human-scores" / "en-de.mqm.seg.score", len(es.segments)).shape
    (13, 557)
    """
    path = resolve(path_iv(path, "path"))
    n_segments = positive_int_iv(n_segments, "n_segments")
    if systems is not None:
        systems = names_iv(systems, "systems")
    text = read_text(path)
    if text.startswith("\ufeff"):
        raise ValueError(f"{path}:1: the file starts with a byte-order mark (BOM); save it as UTF-8 without one")
    if not text:
        raise ValueError(f"{path}: the file is empty")
    columns = _tab_fields(text)              # the common case, at C speed
    if columns is not None:
        names_per_line, values = columns
        line_numbers = np.arange(1, len(names_per_line) + 1)
    else:
        # as mt-metrics-eval's reader: whitespace-separated fields, a final newline optional (the
        # line count per system still catches a cut file)
        lines = [line.rstrip("\r") for line in text.removesuffix("\n").split("\n")]
        fields = [line.split() for line in lines]
        bad = next((k for k, f in enumerate(fields) if len(f) != 2), None)
        if bad is not None:
            raise ValueError(f"{path}:{bad + 1}: expected 2 fields (system and score, separated by a tab or "
                             f"spaces), found {len(fields[bad])}")
        names_per_line, values = np.array([f[0] for f in fields], dtype=object), [f[1] for f in fields]
        line_numbers = np.arange(1, len(names_per_line) + 1)
    codes, names = pd.factorize(names_per_line, sort=True)
    if systems is not None:
        known = set(systems)
        for code, name in enumerate(names):
            if name not in known:
                k = int(np.argmax(codes == code))
                raise ValueError(f"{path}:{k + 1}: system {name!r} is not one of {', '.join(sorted(known))}")
    if columns is None:
        values = to_float(values, path, line_numbers, allow_none=True)
    by_system = np.argsort(codes, kind="stable")          # each system's lines, in file order
    bounds = np.searchsorted(codes[by_system], np.arange(len(names) + 1))
    rows = []
    for code, name in enumerate(names):
        where = by_system[bounds[code]:bounds[code + 1]]
        if len(where) != n_segments:
            raise ValueError(f"{path}:{line_numbers[where[-1]]}: system {name!r} has {len(where)} lines, "
                             f"the test set has {n_segments} segments")
        rows.append(values[where])
    return pd.DataFrame(np.vstack(rows) if rows else np.empty((0, n_segments)),
                        index=pd.Index(names, name="system"), columns=pd.RangeIndex(n_segments, name="segment"))


def write_seg_score_file(frame: pd.DataFrame, path: Path | str) -> Path:
    """Write a systems x segments frame as an mt-metrics-eval ``.seg.score`` file.

    Parameters
    ----------
    frame : DataFrame
        Rows = systems, columns = segments in order; NaN is written as ``None``.
    path : path
        The file to write.

    Returns
    -------
    Path
        ``path``.

    Notes
    -----
    One line ``system<TAB>score`` per system and segment, each system's segments consecutive
    and in order, as :func:`read_seg_score_file` (and mt-metrics-eval) read it; ``repr`` keeps
    every float exactly.  Nothing is written that the reader would refuse: system names must be
    unique, non-empty, printable str without spaces, tabs or line breaks, and scores int or
    float, finite or NaN (an error names the system and column).

    References
    ----------
    google-research/mt-metrics-eval, the v2 data layout (README).

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "m.seg.score"
    >>> frame = pd.DataFrame([[0.5, np.nan]], index=["A"])
    >>> read_seg_score_file(write_seg_score_file(frame, path), 2).loc["A"].tolist()
    [0.5, nan]
    >>> path.read_text().split()
    ['A', '0.5', 'A', 'None']
    """
    path = path_iv(path, "path")
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"`frame` must be a systems x segments DataFrame; got {type(frame).__name__}")
    if frame.shape[0] < 1 or frame.shape[1] < 1:
        raise ValueError(f"`frame` needs at least one system and one segment; got shape {frame.shape}")
    for system in frame.index:  # what read_seg_score_file would refuse or split
        if not isinstance(system, str):
            raise TypeError(f"`frame`: system names must be str; got {system!r}")
        if system.split() != [system] or system.startswith("\ufeff") or not system.isprintable():
            raise ValueError(f"`frame`: system name {system!r} cannot be written: a name must be non-empty, "
                             "printable and without spaces, tabs or line breaks (the reader splits lines on them)")
        try:
            system.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"`frame`: system name {system!r} is not valid UTF-8 text") from None
    if frame.index.has_duplicates:
        raise ValueError(f"`frame` has duplicate systems: {sorted(set(frame.index[frame.index.duplicated()]))}")
    values = _score_cells(frame.to_numpy(), lambda k: f"`frame`, system {frame.index[k[0]]!r}, "
                                                      f"column {frame.columns[k[1]]!r}")
    lines = [f"{system}\t{'None' if np.isnan(v) else repr(float(v))}\n"
             for system, row in zip(frame.index, values) for v in row]
    path.write_text("".join(lines), encoding="utf-8")
    return path


def load_mtme(test_set: str, lp: str, root: Path | str | None = None) -> EvalSet:
    """Open one test set and language pair of the mt-metrics-eval v2 data.

    Parameters
    ----------
    test_set : str
        E.g. ``"wmt23"``.
    lp : str
        E.g. ``"en-de"``.
    root : path, optional
        The ``mt-metrics-eval-v2`` folder (default: under :func:`data_root`).

    Returns
    -------
    EvalSet
        Systems, segments, documents, references, score files (read on demand).

    Notes
    -----
    The standard reference, gold scores and outlier systems come from :data:`MTME_META`
    (mt-metrics-eval's ``meta_info.py``).  A text kept both as ``NAME.txt`` and ``NAME.txt.gz``
    is one system (or reference); the two copies must be identical.

    References
    ----------
    Freitag, M. et al. (2023). Results of WMT23 metrics shared task. WMT. Data:
    google-research/mt-metrics-eval (v2 release).

    Examples
    --------
    >>> es = load_mtme("wmt23", "en-de")
    >>> es.std_ref, len(es.segments)
    ('refA', 557)
    """
    for value, what in ((test_set, "test_set"), (lp, "lp")):
        if not isinstance(value, str):
            raise TypeError(f"`{what}` must be a str; got {value!r}")
    base = resolve_root(root, "mt-metrics-eval-v2")
    folder = base / test_set
    if (test_set, lp) not in MTME_META:
        test_sets = sorted({t for t, _ in MTME_META})
        if test_set not in test_sets:
            raise ValueError(f"unknown test set {test_set!r}; mt-metrics-eval has {', '.join(test_sets)}")
        raise ValueError(f"{test_set} has no language pair {lp!r}; it has "
                         f"{', '.join(sorted(p for t, p in MTME_META if t == test_set))}")
    if not (folder / "sources" / f"{lp}.txt").exists() and not (folder / "sources" / f"{lp}.txt.gz").exists():
        held = sorted(p.name for p in base.iterdir() if p.is_dir()) if base.is_dir() else []
        raise FileNotFoundError(f"{test_set}/{lp} is not in {base} (it holds {', '.join(held) or 'no test set'}); "
                                "the full release has it: python -m spalib.data download mt-metrics-eval-v2")
    sources = folder / "sources" / f"{lp}.txt"
    segments = read_lines(sources)
    doc_path = folder / "documents" / f"{lp}.docs"
    docs, domains = [], []
    for _, (domain, doc) in split_fields(doc_path, 2):
        domains.append(domain)
        docs.append(doc)
    if len(docs) != len(segments):
        raise ValueError(f"{doc_path}: {len(docs)} lines, {sources} has {len(segments)}")

    references = _texts(sorted((folder / "references").glob(f"{lp}.*.txt*")), len(segments), len(lp) + 1)
    systems = _texts(sorted((folder / "system-outputs" / lp).glob("*.txt*")), len(segments), 0)
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


def _texts(paths: list[Path], n: int, prefix: int) -> list[str]:
    """The names of line-aligned text files (``NAME.txt`` or ``NAME.txt.gz``, ``prefix`` characters
    cut), each checked to have ``n`` lines; a text present in both forms is one name, and both
    copies must be identical.
    """
    names: dict[str, tuple[Path, bytes]] = {}
    for path in paths:
        name = path.name[prefix:].removesuffix(".gz").removesuffix(".txt")
        lines = read_lines(path)
        if len(lines) != n:
            raise ValueError(f"{path}: {len(lines)} lines, the source has {n}")
        digest = hashlib.sha256("\n".join(lines).encode("utf-8")).digest()
        if name in names and names[name][1] != digest:
            raise ValueError(f"{path} and {names[name][0].name} are two different copies of {name!r}; keep one")
        names.setdefault(name, (path, digest))
    return list(names)


def complete_segments(*frames: pd.DataFrame, systems=None):
    """Keep the segments (columns) scored for every system in every frame.

    Parameters
    ----------
    *frames : DataFrame
        Systems x segments score frames.
    systems : list, optional
        The systems to keep (default: those all frames share, sorted).

    Returns
    -------
    tuple
        The filtered frames and a dict with the counts of segments kept and dropped.

    Notes
    -----
    Nothing is dropped without being counted; the caller decides what to do with the counts.
    A frame with duplicate systems or segments, and duplicate ``systems``, are errors.

    References
    ----------
    mt-metrics-eval keeps, likewise, only segments with gold scores for every system.

    Examples
    --------
    >>> frames, counts = complete_segments(pd.DataFrame([[1, np.nan], [2, 3]], index=["a", "b"]))
    >>> counts
    {'segments_kept': 1, 'segments_dropped': 1, 'systems': 2}
    """
    if not frames:
        raise ValueError("give at least one frame")
    for k, f in enumerate(frames):
        if not isinstance(f, pd.DataFrame):
            raise TypeError(f"frame {k} must be a systems x segments DataFrame; got {type(f).__name__}")
        for axis, what in ((f.index, "systems"), (f.columns, "segments")):
            if axis.has_duplicates:
                raise ValueError(f"frame {k} ({f.columns.name or 'scores'}) has duplicate {what}: "
                                 f"{sorted(map(str, set(axis[axis.duplicated()])))[:5]}")
    shared = sorted(set.intersection(*(set(f.index) for f in frames)))
    if systems is not None:
        if isinstance(systems, str):
            raise TypeError(f"`systems` must be a list of systems, not one str; got {systems!r}")
        systems = list(labels_iv(list(systems), "systems"))
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

    def with_metrics(self, names) -> SegmentTask:
        """The same task with only the metrics ``names`` (in that order), e.g. to rank a few.

        Examples
        --------
        >>> human = pd.DataFrame([[1.0, 2.0], [3.0, 4.0]])
        >>> task = SegmentTask(human, {"a": human, "b": -human, "c": human * 2}, {})
        >>> list(task.with_metrics(["c", "a"]).metrics)
        ['c', 'a']
        """
        names = [names] if isinstance(names, str) else list(names)
        unknown = [n for n in names if n not in self.metrics]
        if unknown:
            raise ValueError(f"no metric named {', '.join(map(repr, unknown))} in the task")
        if not names or len(set(names)) != len(names):
            raise ValueError(f"`names` must name at least one metric, each once; got {names}")
        return dataclasses.replace(self, metrics={n: self.metrics[n] for n in names})


def from_long(frame: pd.DataFrame, *, system: str = "system", item: str = "segment", score: str = "score",
              n_segments: int | None = None) -> pd.DataFrame:
    """A systems x segments score frame from a long one (one row per system and segment).

    Parameters
    ----------
    frame : DataFrame
        One row per (system, segment) with a score.
    system, item, score : str
        The columns holding the system name, the segment index (0-based integers, in the order of
        the test set's sources) and the score.
    n_segments : int, optional
        The test set's number of segments: segments without a row become NaN columns.

    Returns
    -------
    DataFrame
        Rows = systems (sorted), columns = segment index.

    Notes
    -----
    A (system, segment) pair given twice, a missing system, a segment index that is not an
    integer in ``[0, n_segments)``, a score that is not an int or float (NaN marks a missing
    one) or is infinite, and a missing column are errors naming the row or column.

    References
    ----------
    The wide layout is that of mt-metrics-eval's ``.seg.score`` files (Freitag et al. 2023).

    Examples
    --------
    >>> long = pd.DataFrame({"system": ["A", "A", "B"], "segment": [0, 1, 1], "score": [0.5, 0.7, 0.2]})
    >>> from_long(long, n_segments=3).to_numpy().tolist()
    [[0.5, 0.7, nan], [nan, 0.2, nan]]
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"`frame` must be a DataFrame; got {type(frame).__name__}")
    for name, column in (("system", system), ("item", item), ("score", score)):
        if column not in frame.columns:
            raise ValueError(f"`frame` has no column {column!r} (the `{name}` column); it has "
                             f"{', '.join(map(str, frame.columns))}")
    if n_segments is not None:
        n_segments = positive_int_iv(n_segments, "n_segments")
    names = frame[system].to_numpy()
    missing = pd.isna(names)
    if missing.any():
        k = int(np.argmax(missing))
        raise ValueError(f"row {frame.index[k]!r}: the system (column {system!r}) is missing")
    kinds = {type(v).__name__ for v in names}
    if len(kinds) > 1:
        raise ValueError(f"column {system!r} mixes system-name types ({', '.join(sorted(kinds))}); use one type")
    items = frame[item].to_numpy()
    if not np.issubdtype(items.dtype, np.integer):
        def whole(v) -> bool:
            return (isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
                    and bool(np.isfinite(v)) and float(v).is_integer())
        bad = next((k for k, v in enumerate(items) if not whole(v)), None)
        if bad is not None:
            value = items[bad].item() if isinstance(items[bad], np.generic) else items[bad]
            raise ValueError(f"row {frame.index[bad]!r}: segment {value if isinstance(value, float) else repr(value)} "
                             f"is not an integer index (column {item!r})")
    items = items.astype(np.int64)
    scores = _score_cells(frame[score].to_numpy(), lambda k: f"row {frame.index[k]!r}, column {score!r} (`score`)")
    limit = n_segments if n_segments is not None else np.inf
    outside = (items < 0) | (items >= limit)
    if outside.any():
        k = int(np.argmax(outside))
        raise ValueError(f"row {frame.index[k]!r}: segment {items[k]} is outside [0, {n_segments})")
    dup = frame.duplicated([system, item]).to_numpy()
    if dup.any():
        k = int(np.argmax(dup))
        raise ValueError(f"row {frame.index[k]!r}: ({frame[system].iloc[k]!r}, segment {items[k]}) appears twice")
    wide = frame.assign(**{item: items, score: scores}).pivot(index=system, columns=item, values=score).sort_index()
    if n_segments is not None:
        wide = wide.reindex(columns=range(n_segments))
    return wide.rename_axis(index="system", columns="segment").astype(float)


def _extra_metric(es: EvalSet, name: str, source, systems: list[str]) -> tuple[pd.DataFrame, dict]:
    """One of the caller's metrics as a systems x segments frame on ``systems``, with what was left."""
    n = len(es.segments)
    if isinstance(source, pd.DataFrame):
        frame, origin = source, "DataFrame"
        if len(frame.columns) != n:
            raise ValueError(f"extra_metrics[{name!r}]: {len(frame.columns)} segment columns, "
                             f"{es.test_set}/{es.lp} has {n} segments")
        frame = frame.set_axis(range(n), axis=1)
        if frame.index.has_duplicates:
            raise ValueError(f"extra_metrics[{name!r}] (DataFrame): system(s) "
                             f"{', '.join(sorted(map(str, set(frame.index[frame.index.duplicated()]))))} "
                             "have more than one row")
    elif isinstance(source, (str, os.PathLike)):
        origin = str(source)
        frame = read_seg_score_file(source, n)
    else:
        raise TypeError(f"extra_metrics[{name!r}] must be a path or a DataFrame; got {type(source).__name__}")
    unknown = sorted(set(map(str, frame.index)) - set(es.systems))
    if unknown:
        raise ValueError(f"extra_metrics[{name!r}] ({origin}): system(s) {', '.join(unknown)} are not in "
                         f"{es.test_set}/{es.lp} (its systems: {', '.join(es.systems)})")
    missing = sorted(set(systems) - set(frame.index))
    if missing:
        human = [m for m in missing if m in es.human_systems]
        hint = (f" ({', '.join(human)}: a human translation ranked as a system; score it like the others, "
                f"against the standard reference {es.std_ref})" if human else "")
        raise ValueError(f"extra_metrics[{name!r}] ({origin}): no scores for system(s) {', '.join(missing)}, "
                         f"which the task ranks{hint}")
    values = frame.loc[systems]
    values = pd.DataFrame(_score_cells(values.to_numpy(), lambda k: f"extra_metrics[{name!r}] ({origin}), system "
                                                                    f"{systems[k[0]]!r}, segment {k[1]}"),
                          index=values.index, columns=values.columns)
    unscored = [s for s in systems if values.loc[s].isna().all()]
    if unscored:
        raise ValueError(f"extra_metrics[{name!r}] ({origin}): no score for system(s) {', '.join(unscored)} on any "
                         "segment (every line is None)")
    return values.rename_axis(index="system", columns="segment"), {
        "source": origin, "systems_ignored": sorted(set(frame.index) - set(systems)),
        "segments_without_score": int(values.isna().any(axis=0).sum())}


def _ranked_systems(es: EvalSet, gold: pd.DataFrame, human: str, include_human_systems: bool = True):
    """The systems a meta-evaluation ranks, and why each other system is left out."""
    scored = gold.index[gold.notna().any(axis=1)]
    dropped = {}
    for system in es.systems:
        if system == es.std_ref:
            dropped[system] = "standard reference"
        elif system not in scored:
            dropped[system] = f"no {human} scores"
        elif system in es.outlier_systems:
            dropped[system] = "outlier system"
        elif not include_human_systems and system in es.human_systems:
            dropped[system] = "human translation"
    return [s for s in scored if s not in dropped], dropped


@dataclass(frozen=True)
class MetricInputs:
    """What a new metric must score for one test set and language pair (:func:`metric_inputs`).

    Attributes
    ----------
    test_set, lp : str
    standard_reference : str
        The reference the released metrics are scored against; score yours against it too.
    systems : list of str
        The ranked systems, in the order :func:`write_metric_inputs` writes them.
    left_out : dict
        Systems with an output that are not ranked, and why.
    n_segments : int
        Lines in every file (a score file has one line per system and segment).
    n_human_scored : int
        Segments with a human score for every ranked system: only those are compared, so a
        metric may write ``None`` for the others.
    sources, reference : Path
        The source and standard-reference files in the data folder.
    outputs : dict of system -> Path
        Each ranked system's output file in the data folder.
    """

    test_set: str
    lp: str
    standard_reference: str
    systems: list
    left_out: dict
    n_segments: int
    n_human_scored: int
    sources: Path
    reference: Path
    outputs: dict

    def describe(self) -> str:
        """Where the texts are, and what a score file must hold."""
        lines = [f"{self.test_set} {self.lp}: score every ranked system's output against the standard "
                 f"reference {self.standard_reference}.",
                 f"  sources:   {self.sources}",
                 f"  reference: {self.reference} ({self.standard_reference})",
                 f"  {len(self.systems)} ranked systems, {self.n_segments} segments each:"]
        lines += [f"    {system}: {path}" for system, path in self.outputs.items()]
        if self.left_out:
            lines.append("  not ranked: " + ", ".join(f"{s} ({why})" for s, why in self.left_out.items()))
        lines.append(f"  score file: one line 'system<TAB>score' per system and segment, each system's "
                     f"{self.n_segments} segments in order ('None' where you have no score)")
        lines.append(f"  only the {self.n_human_scored} segments with a human score for every ranked system "
                     "are compared; a None there drops that segment for every metric")
        return "\n".join(lines)


def _data_file(path: Path) -> Path:
    return path if path.exists() else path.with_name(path.name + ".gz")


def _human_iv(es: EvalSet, human) -> str:
    """The human score to rank against: the test set's standard one (None), or another of its
    human scores by name; a metric's scores are refused.
    """
    if human is None:
        return es.std_gold
    if not isinstance(human, str):
        raise TypeError(f"`human` must be None or the name of a human score; got {human!r}")
    if human not in es.human_score_names:
        what = "a metric's scores, not human ones" if human in es.metric_names else "not a score of this test set"
        raise ValueError(f"`human` must name one of {es.test_set}/{es.lp}'s human scores "
                         f"({', '.join(es.human_score_names)}); got {human!r}: {what}")
    return human


def metric_inputs(es: EvalSet, *, human: str | None = None) -> MetricInputs:
    """The texts a new metric must score to be ranked on ``es``, and where they are.

    Parameters
    ----------
    es : EvalSet
        From :func:`load_mtme`.
    human : str, optional
        The human score that decides which systems are ranked (default: the standard one).

    Returns
    -------
    MetricInputs
        The standard reference, the ranked systems (as :func:`segment_task` ranks them) and the
        paths of the sources, the reference and every ranked system's output.

    Notes
    -----
    A metric scored against another reference than the standard one is not comparable with the
    released metrics (and, where that reference is itself a ranked system, such as WMT23
    he-en's refA, it favours that system); :func:`spalib.rank_metrics` warns about it.

    References
    ----------
    google-research/mt-metrics-eval, the v2 data layout.

    Examples
    --------
    >>> inputs = metric_inputs(load_mtme("wmt23", "he-en"))
    >>> inputs.standard_reference, "refA" in inputs.systems, inputs.n_segments
    ('refB', True, 1910)
    """
    if not isinstance(es, EvalSet):
        raise TypeError(f"`es` must be an EvalSet (from load_mtme); got {type(es).__name__}")
    human = _human_iv(es, human)
    gold = es.seg_scores(human)
    systems, dropped = _ranked_systems(es, gold, human)
    folder = es.folder
    return MetricInputs(
        es.test_set, es.lp, es.std_ref, systems, dropped, len(es.segments),
        int(gold.loc[systems].notna().all(axis=0).sum()),
        _data_file(folder / "sources" / f"{es.lp}.txt"),
        _data_file(folder / "references" / f"{es.lp}.{es.std_ref}.txt"),
        {s: _data_file(folder / "system-outputs" / es.lp / f"{s}.txt") for s in systems})


def write_metric_inputs(es: EvalSet, out: Path | str, *, human: str | None = None) -> MetricInputs:
    """Write the texts a new metric must score as plain, line-aligned text files.

    Parameters
    ----------
    es : EvalSet
        From :func:`load_mtme`.
    out : path
        A folder (created if needed): ``sources.txt``, ``reference.txt`` (the standard
        reference), ``systems.txt`` (the ranked systems, one per line) and ``systems/NAME.txt``
        per ranked system, all with one segment per line in the test set's order.
    human : str, optional
        As for :func:`metric_inputs`.

    Returns
    -------
    MetricInputs
        As :func:`metric_inputs`, with the paths of the written files.

    Notes
    -----
    A score file made from these files (``NAME<TAB>score`` for each line of
    ``systems/NAME.txt``, systems one after the other) is what ``--add`` and
    ``segment_task(extra_metrics=...)`` read.

    References
    ----------
    google-research/mt-metrics-eval, the v2 data layout.

    Examples
    --------
    >>> import tempfile
    >>> written = write_metric_inputs(load_mtme("wmt23", "en-de"), tempfile.mkdtemp())
    >>> written.reference.name, len(written.outputs)
    ('reference.txt', 12)
    """
    out = path_iv(out, "out")
    inputs = metric_inputs(es, human=human)
    (out / "systems").mkdir(parents=True, exist_ok=True)
    for system in inputs.systems:
        if "/" in system or system in (".", ".."):
            raise ValueError(f"system name {system!r} cannot be a file name")

    def write(path: Path, lines: list[str]) -> Path:
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return path
    write(out / "systems.txt", inputs.systems)
    outputs = {s: write(out / "systems" / f"{s}.txt", es.system_output(s)) for s in inputs.systems}
    return MetricInputs(
        inputs.test_set, inputs.lp, inputs.standard_reference, inputs.systems, inputs.left_out,
        inputs.n_segments, inputs.n_human_scored, write(out / "sources.txt", es.segments),
        write(out / "reference.txt", es.system_output(es.std_ref)), outputs)


def segment_task(es: EvalSet, *, human: str | None = None, reference_free: bool = False,
                 primary_only: bool = False, extra_metrics=None, lower_is_better_metrics=(),
                 exclude_metrics=(), include_human_systems: bool = True, basenames: bool = False) -> SegmentTask:
    """The inputs of a system-level meta-evaluation from segment scores (SPA, PA of means).

    Parameters
    ----------
    es : EvalSet
        From :func:`load_mtme`.
    human : str, optional
        The human score (default: the test set's standard one).
    reference_free : bool
        Also keep reference-free (``-src``, quality-estimation) metrics; WMT21-23 ranked them
        together with the reference-based ones.
    primary_only : bool
        Keep only the primary submissions and baselines of :data:`MTME_META` (by base name).
    extra_metrics : dict of name -> path or DataFrame, optional
        Your own metrics: an mt-metrics-eval ``.seg.score`` file (``system<TAB>score``, each
        system's segments in order) or a systems x segments frame (see :func:`from_long`) of int
        or float scores (NaN where missing), one row per system.  They must score every system
        the task ranks; other systems are ignored and reported.
    lower_is_better_metrics : str or iterable of str
        Names of the metrics (yours or the released ones, as the files name them) whose lower
        scores are better: their scores are negated so that higher is better.
    exclude_metrics : str or iterable of str
        Metric-name prefixes to leave out (a single string is one prefix).
    include_human_systems : bool
        Keep human translations other than the standard reference as systems.
    basenames : bool
        Name the released metrics by base name (``"COMET"``, and ``"CometKiwi[noref]"`` for a
        reference-free one) instead of the file name (``"COMET-refA"``), so that tasks whose
        standard references differ (WMT23 he-en uses refB) share names, as averaging needs.

    Returns
    -------
    SegmentTask
        ``human`` (systems x segments), ``metrics`` (dict of the same shape), ``report``.

    Notes
    -----
    Systems: every system with at least one human score, except the standard reference and the
    outlier systems.  Metrics: those scored with the standard reference.  Segments: those every
    kept system has scores for, in every file.  ``report`` says what was left out and why
    (``systems_dropped``, ``metrics_excluded``, ``segments_dropped``, per extra metric its
    source, the systems ignored and the segments it did not score, and
    ``lower_is_better_metrics``).

    References
    ----------
    Freitag, M. et al. (2023). Results of WMT23 metrics shared task. WMT. Data:
    google-research/mt-metrics-eval (v2 release).

    Examples
    --------
    >>> task = segment_task(load_mtme("wmt23", "en-de"))
    >>> task.human.shape, len(task.metrics)
    ((12, 460), 25)
    """
    if not isinstance(es, EvalSet):
        raise TypeError(f"`es` must be an EvalSet (from load_mtme); got {type(es).__name__}")
    reference_free = flag_iv(reference_free, "reference_free")
    primary_only = flag_iv(primary_only, "primary_only")
    include_human_systems = flag_iv(include_human_systems, "include_human_systems")
    basenames = flag_iv(basenames, "basenames")
    # a single name is one prefix (or metric), not an iterable of one-letter ones
    excluded = tuple(names_iv(exclude_metrics, "exclude_metrics"))
    negated = set(names_iv(lower_is_better_metrics, "lower_is_better_metrics"))
    if extra_metrics is None:
        extra_metrics = {}
    if not isinstance(extra_metrics, Mapping):
        raise TypeError(f"`extra_metrics` must be a dict of name -> path or DataFrame; got "
                        f"{type(extra_metrics).__name__}")
    extra_metrics = dict(extra_metrics)
    for name in extra_metrics:
        if not isinstance(name, str) or not name:
            raise TypeError(f"`extra_metrics` names must be non-empty str; got {name!r}")
    human = _human_iv(es, human)
    gold = es.seg_scores(human)
    systems, dropped = _ranked_systems(es, gold, human, include_human_systems)
    standard = es.std_metric_names(reference_free=reference_free)
    if primary_only and not es.meta.primary_metrics:
        raise ValueError(f"mt-metrics-eval lists no primary metrics for {es.test_set}/{es.lp}")
    names = [m for m in standard if not any(m.startswith(prefix) for prefix in excluded)
             and (not primary_only or es.metric_basename(m) in es.meta.primary_metrics)]
    clash = sorted(set(extra_metrics) & set(es.metric_names))
    if clash:
        raise ValueError(f"extra_metrics: {', '.join(clash)} already name(s) released metrics of "
                         f"{es.test_set}/{es.lp}; choose other names")
    extras = {name: _extra_metric(es, name, source, systems) for name, source in extra_metrics.items()}
    frames = {m: es.seg_scores(m) for m in names} | {name: frame for name, (frame, _) in extras.items()}
    unknown = sorted(negated - set(frames))
    if unknown:
        raise ValueError(f"lower_is_better_metrics (--lower-is-better on the command line): no metric named "
                         f"{', '.join(unknown)} in the task; its metrics: {', '.join(frames)}")
    frames = {m: -f if m in negated else f for m, f in frames.items()}
    if basenames:
        display = {m: (f"{es.metric_basename(m)}[noref]" if es.is_reference_free(m) else es.metric_basename(m))
                   if m in names else m for m in frames}
        taken = {}
        for file_name, shown in display.items():
            if shown in taken:
                raise ValueError(f"two metrics would both be named {shown!r}: {taken[shown]!r} and "
                                 f"{file_name!r}; give your metric another name")
            taken[shown] = file_name
        frames = {display[m]: f for m, f in frames.items()}
    kept, counts = complete_segments(gold, *frames.values(), systems=systems)
    report = {"test_set": es.test_set, "lp": es.lp, "human": human, "standard_reference": es.std_ref,
              "reference_systems": [s for s in systems if s in es.human_systems],
              "baseline_metrics": sorted(es.meta.baseline_metrics),
              "systems": len(systems), "metrics": len(frames), **counts, "systems_dropped": dropped,
              "metrics_excluded": [m for m in standard if m not in names],
              "metrics_reference_free_left_out": [] if reference_free else
              [m for m in es.metric_names if es.is_reference_free(m) and (m, "seg") in es._score_files],
              "metrics_other_reference": [m for m in es.metric_names if (m, "seg") in es._score_files
                                          and not es.is_reference_free(m) and not es.uses_std_ref(m)],
              "extra_metrics": {name: info for name, (_, info) in extras.items()},
              "lower_is_better_metrics": sorted(negated)}
    return SegmentTask(kept[0], dict(zip(frames, kept[1:])), report)

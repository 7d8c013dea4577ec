"""The mt-metrics-eval v2 layout: evaluation sets, score files, complete segments, tasks."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from spalib.data._tables import read_lines, split_fields, to_float
from spalib.data.paths import resolve_root

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
            for k, (system, score) in split_fields(path, 2):
                self._check_system(system, path, k)
                if system in data:
                    raise ValueError(f"{path}:{k}: system {system!r} appears twice")
                data[system] = to_float([score], path, [k], allow_none=True)[0]
            self._cache[key] = pd.Series(data, name=name, dtype=float).rename_axis("system").sort_index()
        return self._cache[key].copy()

    def domain_scores(self, name: str) -> pd.DataFrame:
        """Domain scores: rows = systems, columns = domains."""
        key = (name, "domain")
        if key not in self._cache:
            path = self._file(name, "domain")
            rows = []
            for k, (domain, system, score) in split_fields(path, 3):
                self._check_system(system, path, k)
                rows.append((domain, system, to_float([score], path, [k], allow_none=True)[0]))
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
        return read_lines(self.folder / "system-outputs" / self.lp / f"{system}.txt")


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
    Each system has ``n_segments`` consecutive lines, in segment order.

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
    path = Path(path)
    lines = read_lines(path)
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
    values = to_float([f[1] for f in fields], path, line_numbers, allow_none=True)
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
    (mt-metrics-eval's ``meta_info.py``).

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
    base = resolve_root(root, "mt-metrics-eval-v2")
    folder = base / test_set
    if (test_set, lp) not in MTME_META:
        raise ValueError(f"no meta information for {test_set}/{lp}; known: "
                         f"{', '.join(f'{t}/{p}' for t, p in MTME_META)}")
    sources = folder / "sources" / f"{lp}.txt"
    segments = read_lines(sources)
    doc_path = folder / "documents" / f"{lp}.docs"
    docs, domains = [], []
    for _, (domain, doc) in split_fields(doc_path, 2):
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
    found = len(read_lines(path))
    if found != n:
        raise ValueError(f"{path}: {found} lines, the source has {n}")


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

    Parameters
    ----------
    es : EvalSet
        From :func:`load_mtme`.
    human : str, optional
        The human score (default: the test set's standard one).
    reference_free : bool
        Also keep reference-free (``-src``) metrics.
    exclude_metrics : str or iterable of str
        Metric-name prefixes to leave out (a single string is one prefix).
    include_human_systems : bool
        Keep human translations other than the standard reference as systems.

    Returns
    -------
    SegmentTask
        ``human`` (systems x segments), ``metrics`` (dict of the same shape), ``report``.

    Notes
    -----
    Systems: every system with at least one human score, except the standard reference and the
    outlier systems.  Metrics: those scored with the standard reference.  Segments: those every
    kept system has scores for, in every file.  ``report`` says what was left out and why.

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

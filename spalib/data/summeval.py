"""SummEval (Fabbri et al. 2021): expert and crowd ratings of 1,600 news summaries, with metric scores.

The files are Deutsch, Dror & Roth's (2021) copy (``CogComp/stat-analysis-experiments``): one JSON
object per line, keyed by ``instance_id`` (the document) and ``summarizer_id`` (the system).
The ratings file and the metric files list the same keys in different orders, so
:func:`load_summeval` joins them on the key, never on the line.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from spalib._core.validation import choice_iv
from spalib.data._tables import read_lines, resolve
from spalib.data.paths import resolve_root

__all__ = ["SummEval", "load_summeval", "SUMMEVAL_DIMENSIONS", "SUMMEVAL_GROUPS", "SUMMEVAL_METRIC_FILES"]

SUMMEVAL_DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")
"""The four qualities every summary is rated on, each on a 1-5 scale."""

SUMMEVAL_GROUPS = {"expert": ("expert", 3), "crowd": ("turker", 5)}
"""Annotator group -> (its key in the ratings file, ratings per summary and dimension)."""

SUMMEVAL_METRIC_FILES = ("rouge", "bertscore", "moverscore", "qaeval", "s3", "meteor", "bewte", "autosummeng")
"""The metric files, ``NAME.jsonl`` (or ``.jsonl.gz``) beside ``relevance.jsonl``."""

_KEY = ("document", "system")


@dataclass(frozen=True)
class SummEval:
    """The SummEval ratings and metric scores, in long form.

    ``judgements``: one row per (document, system, group, annotator, dimension), with the rating
    (1-5) in ``score``; ``group`` is ``"expert"`` or ``"crowd"`` and ``annotator`` the position
    in the file's list (0-2 for experts, 0-4 for the crowd).  ``metrics``: one row per
    (document, system, metric), with the metric's score of that summary in ``score``; a metric
    with variants is named ``family/variant`` as in the files (``"rouge-4/f1"``,
    ``"bertscore/f1"``).
    """

    judgements: pd.DataFrame
    metrics: pd.DataFrame

    def ratings(self, group: str = "expert", dimensions=SUMMEVAL_DIMENSIONS) -> pd.DataFrame:
        """One row per judgement of ``group``: an annotator's mean over ``dimensions``.

        Wei & Jia (2021) average the four dimensions into one score per judgement; pass one
        dimension (e.g. ``["relevance"]``) to keep only that rating.  Columns: document, system,
        annotator, score.
        """
        group = choice_iv(group, "group", tuple(SUMMEVAL_GROUPS))
        dimensions = [dimensions] if isinstance(dimensions, str) else list(dimensions)
        unknown = sorted(set(dimensions) - set(SUMMEVAL_DIMENSIONS))
        if not dimensions or unknown:
            raise ValueError(f"`dimensions` must name some of {', '.join(SUMMEVAL_DIMENSIONS)}; "
                             f"got {dimensions!r}")
        rows = self.judgements[(self.judgements["group"] == group)
                               & self.judgements["dimension"].isin(dimensions)]
        return rows.groupby([*_KEY, "annotator"], as_index=False, sort=True)["score"].mean()

    def metric_table(self, metrics=None) -> pd.DataFrame:
        """Summaries x metrics: one row per (document, system), one column per metric."""
        wide = self.metrics.pivot(index=list(_KEY), columns="metric", values="score")
        if metrics is None:
            return wide
        metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        unknown = [m for m in metrics if m not in wide.columns]
        if unknown:
            raise ValueError(f"no metric {unknown[0]!r} in SummEval; known: {', '.join(wide.columns)}")
        return wide[metrics]


def load_summeval(*, metric_files=SUMMEVAL_METRIC_FILES, root: Path | str | None = None) -> SummEval:
    """Read SummEval's expert and crowd ratings and its metric scores.

    Parameters
    ----------
    metric_files : sequence of str
        Which metric files to read (default: all of :data:`SUMMEVAL_METRIC_FILES`).
    root : path, optional
        The ``summeval`` folder (default: the data folder's).

    Returns
    -------
    SummEval

    Notes
    -----
    The reader is strict, and every problem is a ``ValueError`` naming the file and line: a line
    that is not a JSON object with ``instance_id``, ``summarizer_id`` and ``metrics``; a key
    given twice; a rating missing, not a whole number from 1 to 5, or a group without its 3
    (expert) or 5 (crowd) ratings of each dimension; a metric score that is not a finite number,
    or a metric that one line has and another lacks; a key in a metric file and not in the
    ratings, or the reverse.

    References
    ----------
    Fabbri, A. R. et al. (2021). SummEval: re-evaluating summarization evaluation. TACL 9.
    Deutsch, D., Dror, R. and Roth, D. (2021). A statistical analysis of summarization
    evaluation metrics using resampling methods. TACL 9.  (The files, at commit 7b05bd8.)

    Examples
    --------
    >>> se = load_summeval(metric_files=["meteor"])
    >>> len(se.judgements), len(se.metrics), se.judgements["system"].nunique()
    (51200, 1600, 16)
    """
    if isinstance(metric_files, str):
        metric_files = [metric_files]
    metric_files = list(metric_files)
    unknown = sorted(set(metric_files) - set(SUMMEVAL_METRIC_FILES))
    if unknown or len(set(metric_files)) != len(metric_files):
        raise ValueError(f"`metric_files` must name distinct files of {', '.join(SUMMEVAL_METRIC_FILES)}; "
                         f"got {metric_files!r}")
    folder = resolve_root(root, "summeval")
    ratings_path = resolve(folder / "relevance.jsonl")
    records = _records(ratings_path)
    judgements = pd.DataFrame(
        [(*key, group, annotator, dimension, score)
         for key, (line, scores) in records.items()
         for group, annotator, dimension, score in _ratings(scores, ratings_path, line)],
        columns=[*_KEY, "group", "annotator", "dimension", "score"])
    judgements["score"] = judgements["score"].astype("int8")
    frames = []
    for name in metric_files:
        path = resolve(folder / f"{name}.jsonl")
        scores = _records(path)
        _same_keys(path, scores, ratings_path, records)
        frames.append(_metric_scores(path, scores))
    metrics = (pd.concat(frames, ignore_index=True) if frames
               else pd.DataFrame({"document": [], "system": [], "metric": [], "score": []}))
    repeated = metrics.duplicated(["metric", *_KEY])
    if repeated.any():
        name = metrics.loc[repeated.idxmax(), "metric"]
        raise ValueError(f"{folder}: metric {name!r} is in more than one of the metric files read")
    judgements = judgements.sort_values([*_KEY, "group", "annotator", "dimension"], ignore_index=True)
    metrics = metrics.sort_values([*_KEY, "metric"], ignore_index=True)
    return SummEval(judgements, metrics)


def _records(path: Path) -> dict[tuple[str, str], tuple[int, dict]]:
    """``{(document, system): (line number, metrics object)}`` of one file, checked line by line."""
    out: dict[tuple[str, str], tuple[int, dict]] = {}
    for k, line in enumerate(read_lines(path), start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{k}: not a JSON object ({err.msg})") from None
        if not isinstance(record, dict) or not {"instance_id", "summarizer_id", "metrics"} <= set(record):
            raise ValueError(f"{path}:{k}: expected an object with instance_id, summarizer_id and metrics")
        key = (record["instance_id"], record["summarizer_id"])
        if not all(isinstance(part, str) and part for part in key) or not isinstance(record["metrics"], dict):
            raise ValueError(f"{path}:{k}: instance_id and summarizer_id must be non-empty strings and metrics "
                             f"an object")
        if key in out:
            raise ValueError(f"{path}:{k}: (instance_id, summarizer_id) = {key} repeated (first on line "
                             f"{out[key][0]})")
        out[key] = (k, record["metrics"])
    return out


def _ratings(scores: dict, path: Path, line: int):
    """(group, annotator, dimension, rating) of one summary, every rating checked."""
    for group, (key, count) in SUMMEVAL_GROUPS.items():
        by_dimension = scores.get(key)
        if not isinstance(by_dimension, dict) or set(by_dimension) != set(SUMMEVAL_DIMENSIONS):
            raise ValueError(f"{path}:{line}: metrics.{key} must rate exactly {', '.join(SUMMEVAL_DIMENSIONS)}")
        for dimension in SUMMEVAL_DIMENSIONS:
            values = by_dimension[dimension]
            if not isinstance(values, list) or len(values) != count:
                raise ValueError(f"{path}:{line}: metrics.{key}.{dimension} must hold {count} ratings; "
                                 f"got {values!r}")
            for annotator, value in enumerate(values):
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value not in (1, 2, 3, 4, 5):
                    raise ValueError(f"{path}:{line}: metrics.{key}.{dimension}[{annotator}] = {value!r} is not "
                                     f"a rating from 1 to 5")
                yield group, annotator, dimension, int(value)


def _same_keys(path: Path, scores: dict, ratings_path: Path, ratings: dict) -> None:
    for key, (line, _) in scores.items():
        if key not in ratings:
            raise ValueError(f"{path}:{line}: {key} has no ratings in {ratings_path.name}")
    for key, (line, _) in ratings.items():
        if key not in scores:
            raise ValueError(f"{ratings_path}:{line}: {key} has no scores in {path.name}")


def _metric_scores(path: Path, scores: dict) -> pd.DataFrame:
    """The long frame of one metric file; every line must give the same metrics."""
    rows, names, first_line = [], None, None
    for (document, system), (line, values) in scores.items():
        flat = dict(_flatten(values, path, line))
        if names is None:
            names, first_line = set(flat), line
        elif set(flat) != names:
            differ = sorted(set(flat) ^ names)
            raise ValueError(f"{path}:{line}: metrics {differ} differ from line {first_line}'s")
        rows += [(document, system, name, score) for name, score in flat.items()]
    return pd.DataFrame(rows, columns=[*_KEY, "metric", "score"])


def _flatten(values: dict, path: Path, line: int, prefix: str = ""):
    """(name, score) of a metrics object: ``{"rouge-4": {"f1": x}}`` gives ``("rouge-4/f1", x)``."""
    if not values:
        raise ValueError(f"{path}:{line}: metrics{'.' + prefix if prefix else ''} is empty")
    for name, value in values.items():
        full = f"{prefix}/{name}" if prefix else name
        if isinstance(value, dict) and not prefix:
            yield from _flatten(value, path, line, full)
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{path}:{line}: metric {full!r} = {value!r} is not a finite number")
        else:
            yield full, float(value)

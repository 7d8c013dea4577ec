"""MQM segment scores from Google's expert error annotations (google/wmt-mqm-human-evaluation)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from spalib.data._tables import no_duplicates, read_lines, resolve, to_float

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
    """Weight of one MQM error.

    Parameters
    ----------
    severity, category : str
        As annotated (case does not matter).
    weights : dict
        ``severity[/category...]`` keys (default: :data:`MQM_WEIGHTS`).

    Returns
    -------
    float

    Notes
    -----
    Try ``severity/category`` and drop the last component until a key matches; no match (e.g.
    ``No-error``, an unknown severity) weighs 0.

    References
    ----------
    Freitag, M. et al. (2021). Experts, errors, and context. TACL. (mt-metrics-eval
    ``converters/score_mqm.py``.)

    Examples
    --------
    >>> mqm_weight("Major", "Accuracy/Mistranslation"), mqm_weight("Minor", "Fluency/Punctuation")
    (5.0, 0.1)
    """
    for value, name in ((severity, "severity"), (category, "category")):
        if not isinstance(value, str):
            raise TypeError(f"`{name}` must be a str (as annotated); got {value!r}")
    if not isinstance(weights, Mapping):
        raise TypeError(f"`weights` must be a dict of 'severity[/category...]' -> weight; got {type(weights).__name__}")
    parts = [severity.strip().lower()] + [p.strip().lower() for p in category.split("/")]
    while parts:
        key = "/".join(parts)
        if key in weights:
            return weights[key]
        parts.pop()
    return 0.0


def read_mqm_tsv(path: Path | str, *, source_errors: str = "raise") -> pd.DataFrame:
    """Read a raw MQM annotation TSV (one row per error; ``No-error`` rows for clean segments).

    Parameters
    ----------
    path : path
    source_errors : {"raise", "drop", "keep"}
        What to do with rows whose category is ``Source error`` (they belong to the source, not
        the translation): refuse the file, remove them, or keep them to be weighted like any other
        error, as mt-metrics-eval's ``score_mqm.py`` does.

    Returns
    -------
    DataFrame
        Columns system, doc, doc_id, seg_id, rater, source, target, category, severity (and comment
        where present), line; ``attrs["source_error_rows"]`` holds the number of source errors.

    Notes
    -----
    doc_id and seg_id must be positive integers; every row must have the header's field count.

    References
    ----------
    Freitag, M. et al. (2021). Experts, errors, and context. TACL. Data:
    google/wmt-mqm-human-evaluation.

    Examples
    --------
    >>> from spalib.data import dataset_path
    >>> errors = read_mqm_tsv(dataset_path("wmt-mqm-human-evaluation") / "ted/ende/mqm_ted_ende.tsv")
    >>> len(errors), errors.attrs["source_error_rows"]
    (8435, 0)
    """
    path = resolve(Path(path))
    lines = read_lines(path)
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
    """MQM segment scores from error rows.

    Parameters
    ----------
    errors : DataFrame
        From :func:`read_mqm_tsv`.
    weights : dict
        Error weights (default: :data:`MQM_WEIGHTS`, see :func:`mqm_weight`).

    Returns
    -------
    DataFrame
        One row per (system, seg_id): doc, doc_id, n_raters, mqm.

    Notes
    -----
    Per rater, the sum of the error weights; then the mean over the raters who rated the segment,
    negated (0 = perfect, lower = worse).  There is no 25-point cap per segment, as in the toolkit.

    References
    ----------
    Freitag, M. et al. (2021). Experts, errors, and context. TACL.

    Examples
    --------
    >>> from spalib.data import dataset_path
    >>> scores = score_mqm(read_mqm_tsv(dataset_path("wmt-mqm-human-evaluation") / "ted/ende/mqm_ted_ende.tsv"))
    >>> len(scores)
    7406
    """
    weighted = errors.assign(weight=[mqm_weight(s, c, weights)
                                     for s, c in zip(errors["severity"], errors["category"])])
    per_rater = weighted.groupby(["system", "seg_id", "doc", "doc_id", "rater"], sort=True)["weight"].sum()
    per_seg = per_rater.groupby(level=["system", "seg_id", "doc", "doc_id"]).agg(["mean", "size"])
    out = pd.DataFrame({"mqm": -per_seg["mean"], "n_raters": per_seg["size"]}).reset_index()
    return out[["system", "seg_id", "doc", "doc_id", "n_raters", "mqm"]]


def read_mqm_avg_seg_scores(path: Path | str) -> pd.DataFrame:
    """Read Google's ``*.avg_seg_scores.tsv``.

    Parameters
    ----------
    path : path
        The file: a header, then ``system<TAB>score<SPACE>seg_id`` (``None`` if unrated).

    Returns
    -------
    DataFrame
        Columns system, seg_id, mqm.

    Notes
    -----
    Scores are the published averages over raters (negated: 0 = perfect).  A (system, seg_id)
    given twice is an error naming the line.

    References
    ----------
    google/wmt-mqm-human-evaluation; Freitag, M. et al. (2021). TACL.

    Examples
    --------
    >>> from spalib.data import dataset_path
    >>> path = dataset_path("wmt-mqm-human-evaluation") / "ted/ende/mqm_ted_ende.avg_seg_scores.tsv"
    >>> read_mqm_avg_seg_scores(path).shape
    (8484, 3)
    """
    path = resolve(Path(path))
    lines = read_lines(path)
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
    frame = pd.DataFrame({"system": systems, "seg_id": seg_ids})
    no_duplicates(frame, ["system", "seg_id"], path, numbers)
    return frame.assign(mqm=to_float(scores, path, numbers, allow_none=True))

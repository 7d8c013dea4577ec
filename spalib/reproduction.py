"""Published numbers beside reproduced ones: the reproduction ledger every chapter ends with."""

from __future__ import annotations

import numpy as np
import pandas as pd

LEDGER_COLUMNS = ("published", "ours", "tolerance", "why", "note")


def _reproduction_ledger_iv(rows):
    if not isinstance(rows, pd.DataFrame):
        raise TypeError(f"`rows` must be a DataFrame; got {type(rows).__name__}")
    missing = [c for c in LEDGER_COLUMNS if c not in rows.columns]
    if missing:
        raise ValueError(f"`rows` lacks the column(s) {missing}; a ledger needs {list(LEDGER_COLUMNS)}")
    numbers = rows[["published", "ours", "tolerance"]].apply(pd.to_numeric, errors="coerce")
    bad = rows.index[numbers["published"].isna()]
    if len(bad):
        raise ValueError(f"`rows` has no published number for {list(bad)}")
    if (numbers["tolerance"] < 0).any():
        raise ValueError(f"negative tolerance for {list(rows.index[numbers['tolerance'] < 0])}")
    return numbers, rows[["why", "note"]].fillna("")


def reproduction_ledger(rows: pd.DataFrame) -> pd.DataFrame:
    """Compare published and reproduced numbers, each within its own tolerance.

    Parameters
    ----------
    rows : DataFrame, one row per quantity
        Columns ``published`` (the number in the paper), ``ours`` (NaN when the data behind it
        are not public), ``tolerance`` (how far ``ours`` may be from ``published`` and still
        match; NaN when the two are computed on different data and cannot match), ``why`` (the
        reason for that tolerance) and ``note`` (what explains a difference).

    Returns
    -------
    DataFrame
        ``published``, ``ours``, ``|difference|``, ``tolerance``, ``why`` and ``status``: "match"
        (within the tolerance), "close" (within three tolerances), "differs: <note>", "different
        data: <note>" (no tolerance) or "not public: <note>".

    Notes
    -----
    ``|difference| = |ours - published|``; a small slack of 1e-12 keeps decimal inputs such as
    ``0.3 - 0.1`` within a tolerance of ``0.2``.  Nothing is dropped: a row without a published
    number is an error, a row without ``ours`` is reported as not public.

    References
    ----------
    The reproduction ledgers of the spa-book, one per chapter.

    Examples
    --------
    >>> rows = pd.DataFrame({"published": [0.97, 5.0], "ours": [0.9712, 7.0], "tolerance": [0.005, 0.0],
    ...                      "why": ["rounding", "deterministic"], "note": ["", "one system more"]},
    ...                     index=["r", "clusters"])
    >>> reproduction_ledger(rows)["status"].tolist()
    ['match', 'differs: one system more']
    """
    numbers, text = _reproduction_ledger_iv(rows)
    difference = (numbers["ours"] - numbers["published"]).abs()
    tolerance = numbers["tolerance"]
    within = difference <= tolerance + 1e-12                 # 1e-12: a difference that is 0.1 - 0.1
    status = np.select(
        [numbers["ours"].isna(), tolerance.isna(), within, difference <= 3 * tolerance + 1e-12],
        ["not public: " + text["note"], "different data: " + text["note"], "match", "close"],
        default="differs: " + text["note"])
    return pd.DataFrame({"published": numbers["published"], "ours": numbers["ours"], "|difference|": difference,
                         "tolerance": tolerance, "why": text["why"],
                         "status": pd.Series(status, index=rows.index).str.rstrip(": ")})

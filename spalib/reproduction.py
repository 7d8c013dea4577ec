"""Published numbers beside reproduced ones: the reproduction ledger every chapter ends with.

A ledger's statuses follow one rule, never a judgement per row: a number is reproduced when it
lies within its tolerance, and the tolerance is not chosen but follows from what the number is
(the published rounding; for a Monte-Carlo number, also twice its measured seed-to-seed spread).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from spalib._core.validation import labels_iv, real_array_iv, real_iv

LEDGER_COLUMNS = ("published", "ours", "kind", "note")

LEDGER_KINDS = ("deterministic", "monte carlo", "different data", "not in the data")
"""What a ledger row compares: a number computed exactly as the paper did (``"deterministic"``)
or by a random procedure (``"monte carlo"``, with its values over at least :data:`MIN_SEEDS`
seeds), a number computed on other data than the paper's (``"different data"``: never a match),
or one whose data are not in the book's data folder (``"not in the data"``)."""

MIN_SEEDS = 5


def _seed_values_iv(values, label) -> np.ndarray:
    if isinstance(values, (str, bytes)) or not np.iterable(values):
        raise ValueError(f"row {label!r} is 'monte carlo': give its values over at least {MIN_SEEDS} seeds "
                         f"in `seed_values`; got {values!r}")
    values = real_array_iv(list(values), f"seed_values[{label!r}]", ndim=1)
    if values.size < MIN_SEEDS:
        raise ValueError(f"row {label!r} needs at least {MIN_SEEDS} finite seed values; got {values.size}")
    return values


def _is_missing(value) -> bool:
    """None, pandas' NA or a float NaN (not a string, not a number)."""
    return value is None or value is pd.NA or (
        isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)) and np.isnan(value))


def _numbers_iv(rows, column: str, *, missing_ok: bool = False, **bounds) -> pd.Series:
    """One column as floats, each cell a real number (a typo such as "0.97x" is an error, never NaN).

    A missing cell stays NaN where ``missing_ok``.
    """
    return pd.Series([np.nan if missing_ok and _is_missing(value) else real_iv(value, f"{column}[{label!r}]", **bounds)
                      for label, value in zip(rows.index, rows[column])], index=rows.index, dtype=float)


def _reproduction_ledger_iv(rows):
    if not isinstance(rows, pd.DataFrame):
        raise TypeError(f"`rows` must be a DataFrame; got {type(rows).__name__}")
    missing = [c for c in LEDGER_COLUMNS if c not in rows.columns]
    if missing:
        raise ValueError(f"`rows` lacks the column(s) {missing}; a ledger needs {list(LEDGER_COLUMNS)} "
                         "(and `seed_values` for Monte-Carlo rows)")
    labels_iv(rows.index, "rows index")
    rows = rows.copy()
    printed = rows["published"]
    if "rounding" not in rows.columns:
        if not all(isinstance(text, str) for text in printed):
            raise ValueError("give `published` as printed (strings, so that '0.90' keeps its rounding), "
                             "or a `rounding` column")
        rows["rounding"] = _by_row(printed, published_rounding)
    # as printed ("0.90", "31%"), or a number when a `rounding` column gives the unit
    rows["published"] = _by_row(printed, lambda x: published_value(x) if isinstance(x, str) else x)
    numbers_ = pd.DataFrame({
        "published": _numbers_iv(rows, "published"),
        "ours": _numbers_iv(rows, "ours", missing_ok=True),
        # the unit of the published number's last digit
        "rounding": _numbers_iv(rows, "rounding", low=0.0, low_open=True)})
    kinds = rows["kind"]
    unknown = sorted({k for k in kinds if k not in LEDGER_KINDS}, key=str)
    if unknown:
        raise ValueError(f"unknown `kind` {unknown}; use one of {list(LEDGER_KINDS)}")
    absent = kinds == "not in the data"
    bad = rows.index[absent & numbers_["ours"].notna()]
    if len(bad):
        raise ValueError(f"rows {list(bad)} are 'not in the data' but have a value of ours")
    monte_carlo = kinds == "monte carlo"
    bad = rows.index[~absent & ~monte_carlo & numbers_["ours"].isna()]
    if len(bad):
        raise ValueError(f"rows {list(bad)} have no value of ours; if the data are not in the book's data, "
                         "say so with kind 'not in the data'")
    notes = rows["note"].fillna("").astype(str)
    bad = rows.index[kinds.isin(["different data", "not in the data"]) & (notes.str.strip() == "")]
    if len(bad):
        raise ValueError(f"rows {list(bad)} need a note saying what data differ or are missing")
    if monte_carlo.any() and "seed_values" not in rows.columns:
        raise ValueError("Monte-Carlo rows need a `seed_values` column (values over at least "
                         f"{MIN_SEEDS} seeds)")
    spreads = pd.Series(np.nan, index=rows.index)
    n_seeds = pd.Series(0, index=rows.index)
    for label in rows.index[monte_carlo]:
        values = _seed_values_iv(rows.at[label, "seed_values"], label)
        spreads[label], n_seeds[label] = values.std(ddof=1), values.size
        given = numbers_.at[label, "ours"]
        if np.isfinite(given) and abs(given - values.mean()) > 1e-9 * max(1.0, abs(given)):
            raise ValueError(f"row {label!r}: a Monte-Carlo row's `ours` is the mean of its seed "
                             f"values ({values.mean()}); got {given}")
        numbers_.at[label, "ours"] = values.mean()
    # shown as printed: "0.010" keeps the digits that set its tolerance
    shown = pd.Series([x if isinstance(x, str) else float(x) for x in printed], index=rows.index,
                      dtype=object)
    return numbers_, shown, kinds, notes, spreads, n_seeds


def _number(x: float) -> str:
    return f"{x:.6g}"


def reproduction_ledger(rows: pd.DataFrame) -> pd.DataFrame:
    """Compare published and reproduced numbers, each with a tolerance that follows a rule.

    Parameters
    ----------
    rows : DataFrame, one row per quantity
        Columns ``published`` (a number printed in a paper, best as the printed string;
        "31%" stands for 0.31),
        ``ours`` (our value, a finite number; NaN or None only for kind ``"not in the data"``
        and Monte-Carlo rows), ``kind`` (one of
        :data:`LEDGER_KINDS`) and ``note`` (what explains a difference; required for the kinds ``"different
        data"`` and ``"not in the data"``).  Monte-Carlo rows also need ``seed_values``: our
        value over at least five seeds.  The unit of the published number's last digit (0.001
        for "0.047", 1 for "171") is read from the printed string; a ``rounding`` column
        (positive numbers) overrides it, and then ``published`` may also be given as numbers.
        Every cell is checked: a typo such as ``"0.97x"`` is an error naming its row, never a
        missing value.

    Returns
    -------
    DataFrame
        ``published`` (as printed: the given string, or the number), ``ours``, ``|difference|``,
        ``tolerance``, ``basis`` (how the tolerance was obtained) and ``status``: "match",
        "differs: <note>", "different data: <note>" or "not in the data: <note>".

    Notes
    -----
    The tolerance of a deterministic row is half the published rounding unit: ours matches when
    it rounds to the published number.  A Monte-Carlo row compares the mean of its seed values
    (the procedure's expected value) with the published number (one run of the paper's
    procedure), and adds twice the seed-to-seed standard deviation (``ddof=1``) to the
    tolerance: one run lies that close to the expected value about 95% of the time.  Rows on
    different data, or whose data are not in the book's data folder, get no tolerance and are
    never a match.  A slack of 1e-12 keeps decimal inputs such as ``0.3 - 0.1`` within a
    tolerance of ``0.2``.

    References
    ----------
    The reproduction ledgers of the spa-book, one per chapter.

    Examples
    --------
    >>> rows = pd.DataFrame({"published": ["0.97", "5", "171"], "ours": [0.9712, 7.0, None],
    ...                      "kind": ["deterministic", "deterministic", "monte carlo"],
    ...                      "note": ["", "one system more", ""],
    ...                      "seed_values": [None, None, [169, 172, 175, 171, 173]]},
    ...                     index=["r", "clusters", "pairs"])
    >>> reproduction_ledger(rows)["status"].tolist()
    ['match', 'differs: one system more', 'match']
    """
    numbers_, shown, kinds, notes, spreads, n_seeds = _reproduction_ledger_iv(rows)
    comparable = kinds.isin(["deterministic", "monte carlo"])
    half_unit = numbers_["rounding"] / 2
    tolerance = (half_unit + 2 * spreads.fillna(0.0)).where(comparable)
    difference = (numbers_["ours"] - numbers_["published"]).abs()
    within = difference <= tolerance + 1e-12
    basis = pd.Series("", index=rows.index)
    for label in rows.index:
        rounding = f"rounding ±{_number(half_unit[label])}"
        if kinds[label] == "deterministic":
            basis[label] = rounding
        elif kinds[label] == "monte carlo":
            basis[label] = (f"{rounding} + 2 SD ({spreads[label]:.2g}, {n_seeds[label]} seeds; "
                            "ours: their mean)")
    status = np.select(
        [kinds == "not in the data", kinds == "different data", within],
        ["not in the data: " + notes, "different data: " + notes, "match"],
        default="differs: " + notes)
    return pd.DataFrame({"published": shown, "ours": numbers_["ours"],
                         "|difference|": difference, "tolerance": tolerance, "basis": basis,
                         "status": pd.Series(status, index=rows.index).str.rstrip(": ")})


def _by_row(printed: pd.Series, read) -> pd.Series:
    """``read`` applied to each printed value; an error names the row it comes from."""
    values = {}
    for row, text in printed.items():
        try:
            values[row] = read(text)
        except ValueError as error:
            raise ValueError(f"`published[{row!r}]`: {error}") from None
    return pd.Series(values, index=printed.index, dtype=float)


def published_rounding(text: str) -> float:
    """The unit of the last printed digit of a published number: 0.001 for "0.047", 1 for "171".

    Parameters
    ----------
    text : str
        The number as printed (a string keeps trailing zeros: "0.90" has unit 0.01); a
        percentage such as "31%" is the fraction 0.31 with unit 0.01.

    Returns
    -------
    float

    Examples
    --------
    >>> published_rounding("0.90"), published_rounding("171"), published_rounding("31%")
    (0.01, 1.0, 0.01)
    """
    if not isinstance(text, str):
        raise TypeError(f"give the number as printed, as a string; got {text!r}")
    body = text.strip().lstrip("+-")
    percent = body.endswith("%")
    body = body.removesuffix("%")
    if not body.replace(".", "", 1).isdigit():
        raise ValueError(f"{text!r} is not a plain decimal number")
    decimals = len(body.split(".")[1]) if "." in body else 0
    return round(10.0 ** -(decimals + 2 * percent), decimals + 2 * percent)


def published_value(text: str) -> float:
    """The number a printed string stands for: ``"31%"`` is 0.31, ``"0.90"`` is 0.9."""
    published_rounding(text)                                  # the same checks
    text = text.strip()
    return float(text.removesuffix("%")) / 100 if text.endswith("%") else float(text)

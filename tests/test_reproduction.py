import numpy as np
import pandas as pd
import pytest

import spalib


def ledger_rows(**columns):
    base = {"published": [1.0], "ours": [1.0], "tolerance": [0.0], "why": ["deterministic"], "note": [""]}
    base.update(columns)
    return pd.DataFrame(base, index=["q"])


@pytest.mark.parametrize("ours, tolerance, note, status", [
    (1.0, 0.0, "", "match"),
    (1.02, 0.01, "", "close"),
    (1.5, 0.01, "another year", "differs: another year"),
    (np.nan, 0.01, "WMT16-19 judgements", "not public: WMT16-19 judgements"),
    (0.7, np.nan, "WMT21-22 instead", "different data: WMT21-22 instead"),
])
def test_status_follows_difference_and_tolerance(ours, tolerance, note, status):
    ledger = spalib.reproduction_ledger(ledger_rows(ours=[ours], tolerance=[tolerance], note=[note]))
    assert ledger.loc["q", "status"] == status
    assert list(ledger.columns) == ["published", "ours", "|difference|", "tolerance", "why", "status"]


def test_difference_is_absolute():
    ledger = spalib.reproduction_ledger(ledger_rows(ours=[0.75], tolerance=[0.5]))
    assert ledger.loc["q", "|difference|"] == 0.25 and ledger.loc["q", "status"] == "match"


@pytest.mark.parametrize("rows, message", [
    (ledger_rows().drop(columns="why"), r"lacks the column\(s\) \['why'\]"),
    (ledger_rows(published=["n/a"]), r"no published number for \['q'\]"),
    (ledger_rows(tolerance=[-1.0]), r"negative tolerance for \['q'\]"),
])
def test_rejects_bad_rows(rows, message):
    with pytest.raises(ValueError, match=message):
        spalib.reproduction_ledger(rows)


def test_rejects_non_frames():
    with pytest.raises(TypeError, match="must be a DataFrame"):
        spalib.reproduction_ledger({"published": 1})

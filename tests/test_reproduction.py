"""The reproduction ledger: statuses follow the rule, never a choice per row."""

import glob
import os

import numpy as np
import pandas as pd
import pytest

import spalib
from spalib.data import book_table
from spalib.reproduction import LEDGER_KINDS, published_rounding


def ledger_rows(**columns):
    base = {"published": ["1.0"], "ours": [1.0], "kind": ["deterministic"], "note": [""]}
    base.update(columns)
    return pd.DataFrame(base, index=["q"])


@pytest.mark.parametrize("published, ours, kind, note, status", [
    ("1.0", 1.04, "deterministic", "", "match"),            # rounds to the printed 1.0
    ("1.0", 1.06, "deterministic", "a bug", "differs: a bug"),
    ("171", 171.0, "deterministic", "", "match"),
    ("171", 172.0, "deterministic", "one more", "differs: one more"),
    ("0.047", 0.071, "different data", "WMT21-22 instead", "different data: WMT21-22 instead"),
    ("0.047", 0.047, "different data", "WMT21-22 instead", "different data: WMT21-22 instead"),
    ("0.90", np.nan, "not in the data", "WMT13 judgements", "not in the data: WMT13 judgements"),
])
def test_status_follows_the_rule(published, ours, kind, note, status):
    ledger = spalib.reproduction_ledger(ledger_rows(published=[published], ours=[ours], kind=[kind],
                                                    note=[note]))
    assert ledger.loc["q", "status"] == status
    assert list(ledger.columns) == ["published", "ours", "|difference|", "tolerance", "basis", "status"]


def test_monte_carlo_rows_compare_the_seed_mean_within_twice_the_seed_spread():
    seeds = [169, 172, 175, 171, 173]
    rows = ledger_rows(published=["171"], ours=[np.nan], kind=["monte carlo"], note=["too many"],
                       seed_values=[seeds])
    ledger = spalib.reproduction_ledger(rows)
    assert ledger.loc["q", "ours"] == 172.0
    assert ledger.loc["q", "tolerance"] == pytest.approx(0.5 + 2 * np.std(seeds, ddof=1))
    assert ledger.loc["q", "status"] == "match"
    assert ledger.loc["q", "basis"] == "rounding ±0.5 + 2 SD (2.2, 5 seeds; ours: their mean)"
    far = spalib.reproduction_ledger(rows.assign(seed_values=[[s + 5 for s in seeds]]))
    assert far.loc["q", "status"] == "differs: too many"
    with pytest.raises(ValueError, match="mean of its seed values"):
        spalib.reproduction_ledger(rows.assign(ours=[175.0]))


def test_published_rounding_reads_the_printed_digits():
    assert published_rounding("0.90") == 0.01
    assert published_rounding("0.047") == 0.001
    assert published_rounding("171") == 1.0
    assert published_rounding("31%") == 0.01 and published_rounding("2.5%") == 0.001
    rows = ledger_rows(published=["31%"], ours=[0.3149])
    assert spalib.reproduction_ledger(rows).loc["q", "status"] == "match"
    with pytest.raises(ValueError, match="not a plain decimal"):
        published_rounding("1e-9")
    with pytest.raises(TypeError, match="as printed"):
        published_rounding(0.9)


@pytest.mark.parametrize("rows, message", [
    (ledger_rows().drop(columns="kind"), r"lacks the column\(s\) \['kind'\]"),
    (ledger_rows(published=["n/a"]), "not a plain decimal"),
    (ledger_rows(published=[1.0]), "as printed"),
    (ledger_rows(kind=["close"]), r"unknown `kind` \['close'\]"),
    (ledger_rows(ours=[np.nan]), "no value of ours"),
    (ledger_rows(ours=[np.inf]), r"`ours\['q'\]` must be a finite number"),
    (ledger_rows(ours=["0.97x"]), r"`ours\['q'\]` must be a real number; got '0.97x'"),
    (ledger_rows(ours=["1.0"]), r"`ours\['q'\]` must be a real number"),      # a string is no number
    (ledger_rows(ours=[True]), r"`ours\['q'\]` must be a real number"),
    (ledger_rows(ours=["0.97x"], kind=["not in the data"], note=["x"]), "must be a real number"),
    (ledger_rows(kind=["not in the data"], note=["x"]), "'not in the data' but have a value"),
    (ledger_rows(kind=["different data"]), "need a note"),
    (ledger_rows(kind=["monte carlo"]), "`seed_values` column"),
    (ledger_rows(kind=["monte carlo"], seed_values=[[1, 2, 3]]), "at least 5 finite seed values"),
    (ledger_rows(kind=["monte carlo"], seed_values=[["1", "2", "3", "4", "5"]]),
     r"`seed_values\['q'\]` must hold real numbers"),
    (ledger_rows(kind=["monte carlo"], seed_values=[[1, 2, 3, 4, np.nan]]), r"missing \(NaN\)"),
    (ledger_rows(rounding=[0.0]), r"`rounding\['q'\]` must be a finite number in \(0.0, inf\]"),
    (ledger_rows(rounding=["abc"]), r"`rounding\['q'\]` must be a real number; got 'abc'"),
    (ledger_rows(published=[np.inf], rounding=[0.1]), r"`published\['q'\]` must be a finite number"),
    (pd.concat([ledger_rows(), ledger_rows()]), r"`rows index` has duplicate labels: \['q'\]"),
])
def test_rejects_bad_rows(rows, message):
    with pytest.raises((ValueError, TypeError), match=message):
        spalib.reproduction_ledger(rows)


def test_a_rounding_column_lets_published_be_numbers_or_printed_strings():
    numbers = spalib.reproduction_ledger(ledger_rows(published=[0.97], ours=[0.9712], rounding=[0.01]))
    printed = spalib.reproduction_ledger(ledger_rows(published=["0.97"], ours=[0.9712], rounding=[0.01]))
    assert numbers.loc["q", "status"] == printed.loc["q", "status"] == "match"
    assert numbers.loc["q", "tolerance"] == printed.loc["q", "tolerance"] == 0.005
    missing = spalib.reproduction_ledger(ledger_rows(ours=[None], kind=["not in the data"], note=["x"]))
    assert missing.loc["q", "status"] == "not in the data: x" and np.isnan(missing.loc["q", "ours"])


def test_rejects_non_frames():
    with pytest.raises(TypeError, match="must be a DataFrame"):
        spalib.reproduction_ledger({"published": 1})


def published_tables():
    paths = sorted(glob.glob(str(book_table("published/williams.csv").parent / "*.csv")))
    return {os.path.basename(p): pd.read_csv(p, dtype=str, keep_default_na=False) for p in paths}


@pytest.mark.parametrize("name", sorted(published_tables()))
def test_every_published_table_states_a_kind_a_printed_number_and_its_source(name):
    """Every row of spalib/data/published/*.csv: a number as printed in a paper, a known kind,
    a source in the paper, and a note wherever the data differ or are absent."""
    table = published_tables()[name]
    for column in ("published", "kind", "source", "note"):
        assert column in table.columns, f"{name} lacks the column {column!r}"
    for _, row in table.iterrows():
        published_rounding(row["published"])           # a plain decimal or percentage, as printed
        assert row["kind"] in LEDGER_KINDS, f"{name}: unknown kind {row['kind']!r}"
        assert row["source"].strip(), f"{name}: {row.get('quantity', '')!r} has no source"
        if row["kind"] in ("different data", "not in the data"):
            assert row["note"].strip(), f"{name}: {row.get('quantity', '')!r} needs a note"


def test_the_ledger_shows_published_numbers_as_printed():
    rows = pd.DataFrame({"published": ["0.010", "0.000"], "ours": [0.0104, 0.0003],
                         "kind": ["deterministic", "different data"], "note": ["", "WMT16-19"]},
                        index=["a", "b"])
    ledger = spalib.reproduction_ledger(rows)
    assert ledger["published"].tolist() == ["0.010", "0.000"]          # not 0.01 and 0
    assert ledger.loc["a", "tolerance"] == pytest.approx(0.0005) and ledger.loc["a", "status"] == "match"
    from spalib.plotting import style_ledger
    html = style_ledger(ledger).to_html()
    assert ">0.010<" in html and ">0.000<" in html


def test_a_misprinted_published_value_names_its_row():
    """bad-input #70: the docstring promises an error naming the row."""
    rows = ledger_rows(published=["0.97x"], ours=[0.9712], kind=["deterministic"], note=[""])
    rows.index = ["r"]
    with pytest.raises(ValueError, match=r"`published\['r'\]`: '0.97x' is not a plain decimal number"):
        spalib.reproduction_ledger(rows)

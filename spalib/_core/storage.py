"""Results as JSON that reads back equal, value for value: what ``save`` and ``load`` of
:class:`~spalib.MetricComparison` and :class:`~spalib.MetricRanking` write and read.

Plain JSON keeps numbers as Python's shortest round-trip form, so a float reads back to the same
bits (NaN as the non-standard ``NaN`` token, which Python's ``json`` reads).  What JSON has no type
for — tuples, dicts with keys other than strings, pandas objects, the early-stopping rule — is
written as a one-key object naming the type, and read back as that type.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

FORMAT_VERSION = 1


def encode(value, early_stopping_type):
    """``value`` as JSON-ready lists, dicts, strings and numbers (tagged where JSON has no type)."""
    def enc(v):
        if isinstance(v, early_stopping_type):
            return {"EarlyStopping": [v.block_size, v.early_min, v.early_max]}
        if isinstance(v, pd.DataFrame):
            return {"DataFrame": {"index": enc(v.index), "columns": enc(v.columns),
                                  "values": [enc(v[c]) for c in v.columns]}}
        if isinstance(v, pd.MultiIndex):
            return {"MultiIndex": {"tuples": [list(t) for t in v], "names": list(v.names)}}
        if isinstance(v, pd.Index):
            return {"Index": {"values": [enc(x) for x in v], "name": v.name, "dtype": str(v.dtype)}}
        if isinstance(v, pd.Series):
            return {"Series": {"index": enc(v.index), "values": [enc(x) for x in v],
                               "name": v.name, "dtype": str(v.dtype)}}
        if isinstance(v, tuple):
            return {"tuple": [enc(x) for x in v]}
        if isinstance(v, list):
            return [enc(x) for x in v]
        if isinstance(v, dict):
            if all(isinstance(k, str) for k in v):
                return {"dict": {k: enc(x) for k, x in v.items()}}
            return {"items": [[enc(k), enc(x)] for k, x in v.items()]}
        if isinstance(v, np.generic):
            return v.item()
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        raise TypeError(f"cannot store a {type(v).__name__}")
    return enc(value)


def decode(value, early_stopping_type):
    """The inverse of :func:`encode`."""
    def dec(v):
        if isinstance(v, list):
            return [dec(x) for x in v]
        if not isinstance(v, dict):
            return v
        (tag, body), = v.items()
        if tag == "EarlyStopping":
            return early_stopping_type(*body)
        if tag == "DataFrame":
            columns = dec(body["columns"])
            return pd.DataFrame({c: dec(s) for c, s in zip(columns, body["values"])}, index=dec(body["index"]),
                                columns=columns)
        if tag == "MultiIndex":
            return pd.MultiIndex.from_tuples([tuple(t) for t in body["tuples"]], names=body["names"])
        if tag == "Index":
            return pd.Index([dec(x) for x in body["values"]], name=body["name"], dtype=body["dtype"])
        if tag == "Series":
            return pd.Series([dec(x) for x in body["values"]], index=dec(body["index"]), name=body["name"],
                             dtype=body["dtype"])
        if tag == "tuple":
            return tuple(dec(x) for x in body)
        if tag == "dict":
            return {k: dec(x) for k, x in body.items()}
        if tag == "items":
            return {_hashable(dec(k)): dec(x) for k, x in body}
        raise ValueError(f"not a stored spalib result: unknown tag {tag!r}")
    return dec(value)


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


def write(path, kind: str, content: dict, early_stopping_type) -> None:
    """Write ``content`` (a dict of a result's parts) to ``path`` as JSON, under ``kind``."""
    document = {"format": kind, "version": FORMAT_VERSION, "content": encode(content, early_stopping_type)}
    Path(path).write_text(json.dumps(document, separators=(",", ":")) + "\n", encoding="utf-8")


def read(path, kind: str, early_stopping_type) -> dict:
    """The dict :func:`write` wrote to ``path``; refused unless it is a ``kind`` of this version."""
    path = Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not a stored spalib result ({error})") from None
    if not isinstance(document, dict) or document.get("format") != kind:
        found = document.get("format") if isinstance(document, dict) else type(document).__name__
        raise ValueError(f"{path}: not a stored {kind} (it holds {found!r})")
    if document.get("version") != FORMAT_VERSION:
        raise ValueError(f"{path}: stored with format version {document.get('version')!r}; this spalib reads "
                         f"version {FORMAT_VERSION}")
    return decode(document["content"], early_stopping_type)

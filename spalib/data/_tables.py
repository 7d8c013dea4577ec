"""One strict reader of the released text files, shared by every reader of :mod:`spalib.data`.

A file is read as UTF-8 (``NAME`` or ``NAME.gz``); it must not be empty and its last line must
end with a newline (else it may be cut); integers must be written as integers; and every problem
is a ``ValueError`` naming the file and line.
"""

from __future__ import annotations

import gzip
import tarfile
from pathlib import Path

import numpy as np
import pandas as pd


def resolve(path: Path) -> Path:
    """``path`` or ``path.gz``, whichever exists."""
    path = Path(path)
    if path.exists():
        return path
    gz = path.with_name(path.name + ".gz")
    if gz.exists():
        return gz
    raise FileNotFoundError(f"{path} (or {gz.name}) not found")


def read_text(path: Path) -> str:
    """The text of ``path`` (or ``path.gz``): UTF-8, line endings kept; a cut or corrupt ``.gz``
    and bytes that are not UTF-8 are a ``ValueError`` naming the file.
    """
    path = resolve(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as f:
            raw = f.read()
    except (OSError, EOFError) as err:  # BadGzipFile is an OSError, a cut stream an EOFError
        raise ValueError(f"{path}: cannot be read ({err}); the file may be cut or corrupt") from err
    return decode(raw, path)


def decode(raw: bytes, where) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise ValueError(f"{where}:{line}: byte {err.start} is not UTF-8") from None


def split_lines(text: str, where) -> list[str]:
    """Lines of a non-empty text whose last line ends with a newline (else the file may be cut)."""
    if not text:
        raise ValueError(f"{where}: the file is empty")
    if not text.endswith("\n"):
        raise ValueError(f"{where}:{text.count(chr(10)) + 1}: the last line has no newline; the file may be cut")
    return [line.rstrip("\r") for line in text[:-1].split("\n")]


def read_lines(path: Path) -> list[str]:
    return split_lines(read_text(path), resolve(path))


def to_int(values, path, line_numbers: list[int], what: str) -> np.ndarray:
    """Parse non-negative integers written as such: ``"1.5"`` or ``"2.0"`` is an error, not 1 or 2."""
    text = np.asarray(values, dtype=object)
    bad = ~np.array([isinstance(v, str) and v.isdigit() for v in text], dtype=bool)
    if bad.any():
        k = int(np.argmax(bad))
        raise ValueError(f"{path}:{line_numbers[k]}: {what} {text[k]!r} is not a non-negative integer")
    return text.astype(np.int64)


def no_duplicates(frame: pd.DataFrame, columns: list[str], path, line_numbers: list[int]) -> None:
    dup = frame.duplicated(columns).to_numpy()
    if dup.any():
        k = int(np.argmax(dup))
        raise ValueError(f"{path}:{line_numbers[k]}: ({', '.join(columns)}) = "
                         f"{tuple(v.item() if isinstance(v, np.generic) else v for v in frame[columns].iloc[k])} "
                         "repeated")


def to_float(values: list[str], path: Path, line_numbers: list[int], *, allow_none: bool) -> np.ndarray:
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
        hint = "; write None for a missing score" if allow_none else ""
        raise ValueError(f"{path}:{line_numbers[k]}: score {text[k]!r} is not a finite number{hint}")
    return out


def split_fields(path: Path, n_fields: int, *, sep: str = "\t", header: bool = False):
    """Yield (line number, fields) for each line of a delimited file, checking the field count."""
    lines = read_lines(path)
    start = 1 if header else 0
    for k, line in enumerate(lines[start:], start=start + 1):
        fields = line.split(sep) if sep else line.split()
        if len(fields) != n_fields:
            raise ValueError(f"{path}:{k}: expected {n_fields} fields separated by {sep or 'spaces'!r}, "
                             f"found {len(fields)}")
        yield k, fields



def table(lines: list[str], where, columns: list[str], *, sep: str | None) -> tuple[pd.DataFrame, list[int]]:
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


def space_table(path: Path, columns: list[str], *, sep: str | None = None) -> tuple[pd.DataFrame, list[int]]:
    """A delimited file with a known header (see :func:`table`)."""
    return table(read_lines(resolve(path)), path, columns, sep=sep)


def tar_member(archive: Path, member: str) -> str:
    """The text of one member of a tar archive; a cut or corrupt archive is a ``ValueError``."""
    archive = resolve(archive)
    try:
        with tarfile.open(archive) as tar:
            try:
                handle = tar.extractfile(member)
            except KeyError:
                raise FileNotFoundError(f"{archive} has no member {member}") from None
            raw = handle.read()
    except (tarfile.TarError, OSError, EOFError) as err:
        if isinstance(err, FileNotFoundError):
            raise
        raise ValueError(f"{archive}: cannot be read as a tar archive ({err}); it may be cut or corrupt") from err
    return decode(raw, f"{archive}!{member}")

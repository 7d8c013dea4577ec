"""Argument checks shared by every public function (each has one ``_<name>_iv`` built from these).

The policy, everywhere: numbers must be real (not bool, not complex, not strings); scores must be
finite, except that NaN may mark a missing cell where a function says so (inf never does);
labels must be unique and of one type; random state is ``None``, an int or a
``numpy.random.Generator`` (SPEC 7), normalised once with :func:`numpy.random.default_rng`.
"""

from __future__ import annotations

import functools
import numbers
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from numba import njit, prange


def renamed_keyword(old: str, new: str):
    """Accept the keyword ``old`` for ``new`` (its former name) with a DeprecationWarning; both at
    once are refused.  Kept for one release after a rename.
    """
    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            if old in kwargs:
                if new in kwargs:
                    raise TypeError(f"{function.__name__}() got `{new}` and its former name `{old}`: give `{new}`")
                warnings.warn(f"{function.__name__}(): `{old}=` is now `{new}=`; the old name will go in the next "
                              "release", DeprecationWarning, stacklevel=2)
                kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)
        return wrapper
    return decorate


def rng_iv(rng) -> np.random.Generator:
    """``None``, an int or a Generator, as a Generator."""
    if isinstance(rng, (bool, np.bool_)) or not (
            rng is None or isinstance(rng, (numbers.Integral, np.random.Generator))):
        raise TypeError(f"`rng` must be None, an int or a numpy.random.Generator; got {rng!r}")
    if isinstance(rng, numbers.Integral) and rng < 0:
        raise ValueError(f"`rng` must be a non-negative int seed; got {rng!r}")
    return np.random.default_rng(rng)


def is_seed(rng) -> bool:
    """True for an int seed (not a bool)."""
    return isinstance(rng, numbers.Integral) and not isinstance(rng, (bool, np.bool_))


def positive_int_iv(value, name: str) -> int:
    """A positive int (not a bool, a float or a string)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"`{name}` must be a positive integer; got {value!r}")
    return int(value)


def int_iv(value, name: str, *, low: int, high: int | None = None) -> int:
    """An int (not a bool, a float or a string) in ``[low, high]`` (no upper bound if ``high`` is None)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or not (
            value >= low and (high is None or value <= high)):
        bounds = f">= {low}" if high is None else f"in [{low}, {high}]"
        shown = repr(value) if len(repr(value)) <= 40 else f"{repr(value)[:20]}... ({len(repr(value))} characters)"
        raise ValueError(f"`{name}` must be an integer {bounds}; got {shown}")
    return int(value)


def path_iv(path, name: str) -> Path:
    """A file path (str or os.PathLike)."""
    if isinstance(path, (bool, np.bool_)) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"`{name}` must be a path (str or pathlib.Path); got {path!r}")
    return Path(path)


def names_iv(names, name: str) -> list[str]:
    """Names (a single str is one name, not its characters)."""
    names = [names] if isinstance(names, str) else names
    try:
        names = list(names)
    except TypeError:
        raise TypeError(f"`{name}` must be a str or an iterable of str; got {names!r}") from None
    for value in names:
        if not isinstance(value, str):
            raise TypeError(f"`{name}` must hold str names; got {value!r}")
    return names


def real_iv(value, name: str, *, low: float = -np.inf, high: float = np.inf, low_open: bool = False,
            high_open: bool = False, finite: bool = True) -> float:
    """A real number (not a bool) within the given bounds."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"`{name}` must be a real number; got {value!r}")
    value = float(value)
    bounded = (value > low if low_open else value >= low) and (value < high if high_open else value <= high)
    if np.isnan(value) or (finite and not np.isfinite(value)) or not bounded:
        left, right = "(" if low_open else "[", ")" if high_open else "]"
        raise ValueError(f"`{name}` must be a {'finite ' if finite else ''}number in {left}{low}, {high}{right}; "
                         f"got {value!r}")
    return value


def probability_iv(value, name: str) -> float:
    """A probability strictly between 0 and 1 (a significance level, a power)."""
    return real_iv(value, name, low=0.0, high=1.0, low_open=True, high_open=True)


def choice_iv(value, name: str, choices) -> str:
    """One of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"`{name}` must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def flag_iv(value, name: str) -> bool:
    """True or False."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"`{name}` must be True or False; got {value!r}")
    return bool(value)


def real_array_iv(values, name: str, *, allow_nan: bool = False, ndim: int | tuple | None = None) -> np.ndarray:
    """A float64 array of real numbers; inf is rejected, NaN only where allowed (a missing cell)."""
    if isinstance(values, (pd.DataFrame, pd.Series)):
        values = values.to_numpy()
    array = np.asarray(values)
    if array.dtype.kind not in "iuf":
        raise TypeError(f"`{name}` must hold real numbers; got dtype {array.dtype}")
    array = array.astype(np.float64)
    if ndim is not None and array.ndim not in ((ndim,) if isinstance(ndim, int) else ndim):
        raise ValueError(f"`{name}` must have {ndim} dimension(s); got shape {array.shape}")
    if np.isinf(array).any():
        raise ValueError(f"`{name}` has {int(np.isinf(array).sum())} infinite value(s); scores must be finite")
    if not allow_nan and np.isnan(array).any():
        raise ValueError(f"`{name}` has {int(np.isnan(array).sum())} missing (NaN) value(s)")
    return array


def score_matrix_iv(scores, name: str = "scores", *, allow_nan: bool = False) -> np.ndarray:
    """A systems x segments matrix: 2-D, at least two systems, finite (complete unless ``allow_nan``:
    NaN then marks a missing score).
    """
    array = real_array_iv(scores, name, allow_nan=True)
    if array.ndim != 2:
        raise ValueError(f"`{name}` must be a 2-D systems x segments matrix; got {array.ndim} dimension(s)")
    if array.shape[0] < 2 or array.shape[1] < 1:
        raise ValueError(f"`{name}` needs at least 2 systems and 1 segment; got shape {array.shape}")
    missing = np.isnan(array)
    if missing.any() and not allow_nan:
        columns = np.flatnonzero(missing.any(axis=0))
        raise ValueError(
            f"`{name}` has {missing.sum()} missing value(s) in {len(columns)} segment(s) "
            f"(first: column {columns[0]}); keep complete segments only, e.g. with "
            "spalib.data.complete_segments, which reports what it drops")
    return np.ascontiguousarray(array)


def labels_iv(labels, name: str) -> pd.Index:
    """Unique labels of one type (mixing, say, ints and strings would align nothing)."""
    index = pd.Index(labels)
    if index.has_duplicates:
        raise ValueError(f"`{name}` has duplicate labels: {sorted(map(str, index[index.duplicated()].unique()))[:5]}")
    if index.dtype.kind in "biuf":  # a numeric dtype holds one type: no need to look at each label
        return index
    kinds = {type(x).__name__ for x in index}
    if len(kinds) > 1 and not all(isinstance(x, numbers.Real) for x in index):
        raise ValueError(f"`{name}` mixes label types ({', '.join(sorted(kinds))}); use one type")
    return index


def sums_iv(x: np.ndarray, name: str, dtype=np.float64) -> None:
    """Reject scores whose sums over segments overflow ``dtype`` (they would turn into p = 0 or 1)."""
    # a bound on every sum that cannot itself overflow
    if x.size and np.abs(x).max() > np.finfo(dtype).max / 16 / x.shape[-1]:
        precision = "float32 (signs='mtme')" if dtype == np.float32 else "float64"
        raise ValueError(f"`{name}` are too large: their sums over segments overflow {precision}")


def rescaled(x: np.ndarray) -> np.ndarray:
    """``x`` times the power of two that brings its largest magnitude into [0.5, 1), if that
    magnitude is beyond ``2**±400``, where squares and variances of scores overflow or underflow
    float64 (turning p-values into 0.5 or 1 and z-scores into 0).  A power of two is exact, so
    every scale-invariant statistic (p-values, PA, SPA) is what the unscaled scores would give.
    """
    top = float(np.abs(x).max()) if x.size else 0.0
    if top == 0.0 or 2.0 ** -400 <= top <= 2.0 ** 400:
        return x
    return np.ldexp(x, -np.frexp(top)[1])


def rescaled_rows(x: np.ndarray) -> np.ndarray:
    """:func:`rescaled` for each ``x[i]`` on its own: one power of two per replication (or row)."""
    return np.stack([rescaled(part) for part in x]) if len(x) else x


def keys_iv(keys, name: str, n_rows: int) -> pd.Index:
    """One key per row: labels (1-D) or key columns (a DataFrame, or a MultiIndex), as an Index, or
    a MultiIndex named after the columns.  No key may be missing (a missing label would silently
    become a group of its own) and each column holds one type (1 and "1" would be two groups).
    """
    if isinstance(keys, pd.DataFrame):
        if keys.shape[1] == 0:
            raise ValueError(f"`{name}` has no key columns")
        if not keys.columns.is_unique:
            raise ValueError(f"`{name}` has duplicate column names: {list(keys.columns[keys.columns.duplicated()])}")
        index = pd.MultiIndex.from_frame(keys) if keys.shape[1] > 1 else pd.Index(keys.iloc[:, 0])
    elif isinstance(keys, pd.Index):
        index = keys
    elif isinstance(keys, str) or np.ndim(keys) != 1:
        raise ValueError(f"`{name}` must be one label per row, or key columns (a DataFrame); got "
                         f"{type(keys).__name__} of {np.ndim(keys)} dimension(s)")
    else:
        index = pd.Index(keys, tupleize_cols=False)
    if len(index) != n_rows:
        raise ValueError(f"`{name}` must give one key per row ({n_rows}); got {len(index)}")
    levels = [index.get_level_values(k) for k in range(index.nlevels)]
    for level in levels:
        where = f" (column {level.name!r})" if index.nlevels > 1 or level.name is not None else ""
        missing = np.asarray(level.isna())
        if missing.any():
            raise ValueError(f"`{name}` has {int(missing.sum())} missing key(s){where}, the first at row "
                             f"{int(np.flatnonzero(missing)[0])}: a missing key would become a group of its own")
        if level.dtype == object:
            kinds = {type(x).__name__ for x in level}
            if len(kinds) > 1 and not all(isinstance(x, numbers.Real) for x in level):
                raise ValueError(f"`{name}` mixes key types{where} ({', '.join(sorted(kinds))}); use one type")
    return index


@njit(cache=True, parallel=True)
def _two_threads(out):
    for i in prange(out.size):
        out[i] = i


def threading_layer() -> str:
    """The threading layer numba's parallel kernels run on ("omp", "tbb" or "workqueue")."""
    import numba

    _two_threads(np.empty(2))   # numba picks the layer when the first parallel kernel runs
    return numba.threading_layer()

"""Aligning human and metric scores by system (and segment) before any statistic is computed."""

from __future__ import annotations

import numpy as np
import pandas as pd

from spalib._core.validation import labels_iv, real_array_iv, score_matrix_iv


def check_same_systems(human_index, metric_index) -> None:
    """Refuse human and metric scores that cover different systems (naming the difference)."""
    labels_iv(human_index, "human systems")
    labels_iv(metric_index, "metric systems")
    missing = sorted(set(human_index) - set(metric_index))
    extra = sorted(set(metric_index) - set(human_index))
    if missing or extra:
        raise ValueError(f"human and metric scores cover different systems: the metric lacks {missing}, "
                         f"has extra {extra}")


def align_vectors(human, metric) -> tuple[np.ndarray, np.ndarray]:
    """Two system-level vectors, aligned by system name when both are pandas Series."""
    if isinstance(human, pd.Series) != isinstance(metric, pd.Series):
        raise TypeError("give `human` and `metric` both as pandas Series (aligned by system name) "
                        "or both as arrays in the same system order")
    if isinstance(human, pd.Series):
        check_same_systems(human.index, metric.index)
        metric = metric.loc[human.index]
    h = real_array_iv(human, "human", allow_nan=True)
    m = real_array_iv(metric, "metric", allow_nan=True)
    if h.ndim != 1 or h.shape != m.shape:
        raise ValueError(f"`human` and `metric` must be 1-D of equal length; got {h.shape} and {m.shape}")
    if np.isnan(m).any():
        raise ValueError(f"`metric` has {int(np.isnan(m).sum())} missing system score(s)")
    return h, m


def align_matrices(human, metric, name: str = "metric", *, missing_human: bool = False
                   ) -> tuple[np.ndarray, np.ndarray, list]:
    """Two systems x segments matrices, aligned by system (sorted: a canonical order) and segment;
    complete, except that ``missing_human`` lets NaN mark a missing human score.
    """
    if isinstance(human, pd.DataFrame) != isinstance(metric, pd.DataFrame):
        raise TypeError(f"give `human` and `{name}` both as DataFrames (systems x segments) or both as arrays")
    if isinstance(human, pd.DataFrame):
        check_same_systems(human.index, metric.index)
        if not human.columns.equals(metric.columns):
            raise ValueError(f"human and {name} scores cover different segments (columns); select the "
                             "same complete segments for both, e.g. with spalib.data.complete_segments")
        systems = sorted(human.index)
        human, metric = human.loc[systems], metric.loc[systems]
    else:
        systems = list(range(np.shape(human)[0]))
    h = score_matrix_iv(human, "human", allow_nan=missing_human)
    m = score_matrix_iv(metric, name)
    if h.shape != m.shape:
        raise ValueError(f"`human` has shape {h.shape}, `{name}` {m.shape}")
    return h, m, systems


def align_metrics(human, metrics, *, minimum: int = 1) -> tuple[np.ndarray, dict, list]:
    """The human matrix and every metric's, aligned (metrics in sorted name order)."""
    if not isinstance(metrics, dict) or len(metrics) < minimum:
        raise ValueError(f"`metrics` must be a dict of at least {('one metric', 'two metrics')[minimum - 1]} "
                         "(name -> scores)")
    labels_iv(list(metrics), "metrics names")
    names = sorted(metrics, key=str)
    h, aligned, systems = None, {}, None
    for name in names:
        h_n, aligned[name], systems = align_matrices(human, metrics[name], name=f"metrics[{name!r}]")
        h = h_n if h is None else h
    return h, aligned, systems

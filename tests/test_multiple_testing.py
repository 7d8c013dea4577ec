"""Holm's correction: a hand-worked vector, the step-down procedure it must equal, and its errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import spalib


def step_down(p, alpha):
    """Holm's procedure as stated: compare the i-th smallest with alpha / (m - i), stop at a failure."""
    order = np.argsort(p, kind="stable")
    keep = np.zeros(len(p), dtype=bool)
    for i, k in enumerate(order):
        if p[k] > alpha / (len(p) - i):
            break
        keep[k] = True
    return keep


def test_hand_worked_vector():
    # sorted 0.005, 0.01, 0.03, 0.04 -> 4*0.005, 3*0.01, max(0.03, 2*0.03), max(0.06, 0.04)
    assert np.allclose(spalib.holm_adjusted([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])


def test_adjusted_values_reject_exactly_what_the_step_down_procedure_rejects():
    rng = np.random.default_rng(0)
    for _ in range(200):
        p = rng.uniform(0, 0.2, size=rng.integers(1, 30)) ** rng.uniform(0.5, 3)
        for alpha in (0.01, 0.05, 0.1):
            assert ((spalib.holm_adjusted(p) <= alpha) == step_down(p, alpha)).all()


def test_a_series_keeps_its_index_and_values_are_capped_at_one():
    p = pd.Series([0.9, 0.6], index=["a", "b"])
    adjusted = spalib.holm_adjusted(p)
    assert list(adjusted.index) == ["a", "b"] and adjusted.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("bad, message", [([], "empty"), ([0.1, 1.5], r"\[0, 1\]"), ([0.1, np.nan], "missing"),
                                          ([[0.1, 0.2]], "dimension")])
def test_bad_pvalues_are_refused(bad, message):
    with pytest.raises(ValueError, match=message):
        spalib.holm_adjusted(bad)

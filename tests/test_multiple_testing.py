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


def test_monte_carlo_pvalue_hand_worked_vector_and_types():
    assert spalib.monte_carlo_pvalue([0, 9, 999], 999).tolist() == [0.001, 0.01, 1.0]
    assert spalib.monte_carlo_pvalue(3, 10) == 4 / 11
    counts = pd.Series([1, 2], index=["a", "b"])
    p = spalib.monte_carlo_pvalue(counts, pd.Series([10, 20], index=["a", "b"]))
    assert list(p.index) == ["a", "b"] and p.tolist() == [2 / 11, 3 / 21]


@pytest.mark.parametrize("draws", [19, 99, 200, 999])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
def test_monte_carlo_pvalue_never_exceeds_its_level_where_count_over_draws_can(draws, alpha):
    # exchangeable and untied: the observed statistic's count of larger draws is uniform on 0..K
    counts = np.arange(draws + 1)
    size = (spalib.monte_carlo_pvalue(counts, draws) <= alpha).mean()
    assert size <= alpha + 1e-12
    assert np.isclose(size, np.floor(alpha * (draws + 1)) / (draws + 1))
    plain = (counts / draws <= alpha).mean()
    assert np.isclose(plain, (np.floor(alpha * draws) + 1) / (draws + 1))
    if draws == 200 and alpha == 0.05:
        assert round(plain, 4) == 0.0547   # the docstring's example


def test_monte_carlo_pvalue_is_the_simulation_labs_plus_one_column():
    d = np.random.default_rng(3).normal(0.1, 1, size=(50, 30))
    p = spalib.pair_test_pvalues(d, n_resamples=99, rng=4)
    assert (p["plus_one"] == spalib.monte_carlo_pvalue(np.round(p["ge"] * 99), 99)).all()


@pytest.mark.parametrize("counts, draws, message", [
    ([-1], 10, r"\[0, draws\]"), ([11], 10, r"\[0, draws\]"), ([1.5], 10, "whole numbers"),
    ([1], 0, "at least 1"), ([1], 9.5, "at least 1"), ([np.nan], 10, "missing"),
    ([1, 2], [10, 10, 10], "broadcast")])
def test_monte_carlo_pvalue_refuses_bad_counts(counts, draws, message):
    with pytest.raises(ValueError, match=message):
        spalib.monte_carlo_pvalue(counts, draws)

"""Paired permutation p-values: known answers (ALGORITHMS §9 TV1), scipy, invariants, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

import spalib
from conftest import output_per_thread_count
from spalib import data
from mtme_reference import reference_pvalues
from spalib.resampling import draw_signs, pairwise_pvalues

A = [0.8, 0.9, 0.7, 1.0, 0.6]
B = [0.2, 0.3, 0.1, 0.4, 0.0]
H = np.array([[0, -1, -5, 0, -2, -1, 0, -3], [-1, 0, -2, -1, -6, 0, -1, -2],
              [0, -2, -1, 0, -1, -4, 0, -1], [-2, -1, -3, -5, 0, -1, -2, -2]], dtype=float)
M = np.array([[.9, .7, .4, .8, .6, .7, .9, .5], [.8, .6, .6, .7, .3, .6, .8, .5],
              [.9, .6, .7, .8, .7, .4, .9, .7], [.6, .7, .5, .3, .9, .7, .5, .8]])
UPPER = np.triu_indices(4, 1)


# --- known answers ---------------------------------------------------------------------------

def test_exact_two_systems():
    assert pairwise_pvalues([A, B], method="exact")[0, 1] == 1 / 32
    assert pairwise_pvalues([B, A], method="exact")[0, 1] == 1.0


def test_exact_toy_matrix_and_spa():
    ph = pairwise_pvalues(H, method="exact")[UPPER]
    pm = pairwise_pvalues(M, method="exact")[UPPER]
    np.testing.assert_array_equal(ph, [0.5, 0.75, 0.359375, 0.74609375, 0.3828125, 0.21484375])
    np.testing.assert_array_equal(pm, [0.1328125, 0.71875, 0.328125, 0.9609375, 0.5859375, 0.24609375])
    assert spalib.soft_pairwise_accuracy(H, M, method="exact").statistic == 0.853515625


def test_seed_4_reproduces_the_reference_recipe():
    assert pairwise_pvalues([A, B], rng=4, signs="mtme")[0, 1] == 0.036
    assert pairwise_pvalues([B, A], rng=4, signs="mtme")[0, 1] == 1.0
    np.testing.assert_array_equal(pairwise_pvalues(H, rng=4, signs="mtme")[UPPER], [0.526, 0.778, 0.402, 0.734, 0.407, 0.215])
    np.testing.assert_array_equal(pairwise_pvalues(M, rng=4, signs="mtme")[UPPER], [0.126, 0.614, 0.331, 0.913, 0.543, 0.252])
    np.testing.assert_array_equal(pairwise_pvalues(H, rng=0, signs="mtme")[UPPER], [0.512, 0.742, 0.362, 0.728, 0.378, 0.238])
    assert spalib.soft_pairwise_accuracy(H, M, rng=4, signs="mtme").statistic == pytest.approx(0.8355, abs=1e-15)
    assert spalib.soft_pairwise_accuracy([[1, 2, 3], [2, 3, 4]], [[2, 2, 4], [1, 3, 5]], rng=4,
                                         signs="mtme").statistic == pytest.approx(0.872)


def test_lower_triangle_and_diagonal_are_nan():
    p = pairwise_pvalues(H, rng=4, signs="mtme")
    assert np.isnan(p[np.tril_indices(4)]).all() and not np.isnan(p[UPPER]).any()


def test_the_spa_chapter_toy_equals_the_reference_recipe_for_seed_4():
    """The SPA chapter quotes 0.8355: mt-metrics-eval's recipe (restated in NumPy) on its toy."""
    upper = np.triu_indices(4, 1)
    expected = 1.0 - np.mean(np.abs(reference_pvalues(H, 4)[upper] - reference_pvalues(M, 4)[upper]))
    assert round(expected, 4) == 0.8355
    assert spalib.soft_pairwise_accuracy(H, M, rng=4, signs="mtme").statistic == expected


@pytest.mark.parametrize("test_set, lp", [("wmt23", "en-de"), ("wmt23", "zh-en")])
def test_spa_on_wmt23_equals_the_reference_recipe_for_seed_4(test_set, lp):
    es = data.load_mtme(test_set, lp)
    names = ["XCOMET-XL-refA", "MetricX-23-refA", "BLEU-refA", "GEMBA-MQM-src", "MaTESe-refA"]
    systems = sorted(set(es.seg_scores("mqm").dropna(how="all").index) - {es.std_ref})
    frames, _ = data.complete_segments(es.seg_scores("mqm"), *(es.seg_scores(n) for n in names), systems=systems)
    human = frames[0].to_numpy()
    ref_h = reference_pvalues(human, 4)
    np.testing.assert_array_equal(pairwise_pvalues(human, rng=4, signs="mtme"), ref_h)
    upper = np.triu_indices(len(systems), 1)
    for name, frame in zip(names, frames[1:]):
        ref_m = reference_pvalues(frame.to_numpy(), 4)
        expected = 1.0 - np.mean(np.abs(ref_h[upper] - ref_m[upper]))
        assert spalib.soft_pairwise_accuracy(frames[0], frame, rng=4, signs="mtme", n_resamples=1000).statistic == expected, name


# --- against scipy and between methods -----------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_agrees_with_scipy_permutation_test(seed):
    rng = np.random.default_rng(seed)
    x, y = rng.integers(0, 5, size=(2, 9)).astype(float)  # integer scores: many exact ties
    res = stats.permutation_test((x, y), lambda a, b, axis: np.sum(a - b, axis=axis), vectorized=True,
                                 permutation_type="samples", alternative="greater", n_resamples=np.inf)
    assert pairwise_pvalues([x, y], method="exact")[0, 1] == pytest.approx(res.pvalue, abs=1e-12)


def test_monte_carlo_converges_to_exact():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(4, 12)) + np.arange(4)[:, None] * 0.2
    exact = pairwise_pvalues(x, method="exact")[UPPER]
    mc = pairwise_pvalues(x, n_resamples=40_000, rng=rng)[UPPER]
    assert np.all(np.abs(mc - exact) <= 4 * np.sqrt(exact * (1 - exact) / 40_000) + 1e-9)


@pytest.mark.parametrize("n_systems", [2, 5, 6, 9, 12])
@pytest.mark.parametrize("weighted", [False, True])
def test_normal_limit_pvalues_are_the_in_order_sums_bit_for_bit(n_systems, weighted):
    """The kernel sums four pairs at a time; each sum must still be the plain in-order one."""
    from spalib._core.signs import _normal_upper, _weighted_normal_upper
    rng = np.random.default_rng(n_systems)
    x = rng.normal(size=(n_systems, 37)) * 10.0 ** rng.integers(-3, 4, size=(n_systems, 37))
    w = rng.integers(0, 4, size=37).astype(float) if weighted else np.ones(37)
    expected = []
    for i in range(n_systems):
        for j in range(i + 1, n_systems):
            total_i = total_j = ss = 0.0
            for seg in range(37):
                total_i += w[seg] * x[i, seg]
                total_j += w[seg] * x[j, seg]
                ss += w[seg] * (x[i, seg] - x[j, seg]) * (x[i, seg] - x[j, seg])
            expected.append(0.5 * math.erfc((total_i - total_j) / math.sqrt(2.0 * ss)))
    got = _weighted_normal_upper(x, w, False) if weighted else _normal_upper(x, False)
    assert got.tolist() == expected


def test_normal_limit_is_close_to_permutation_for_many_segments():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(5, 500)) + np.linspace(0, 0.15, 5)[:, None]
    upper = np.triu_indices(5, 1)
    normal = pairwise_pvalues(x, method="normal")[upper]
    mc = pairwise_pvalues(x, n_resamples=20_000, rng=rng)[upper]
    assert np.max(np.abs(normal - mc)) < 0.015


def test_float64_path_agrees_with_float32_reference_on_continuous_scores():
    x = np.random.default_rng(11).random((6, 300))
    mtme = draw_signs(1000, 300, rng=4, signs="mtme")
    np.testing.assert_array_equal(pairwise_pvalues(x, signs=mtme.as_bits()), pairwise_pvalues(x, signs=mtme))


# --- invariants ----------------------------------------------------------------------------

scores_matrices = hnp.arrays(np.float64, st.tuples(st.integers(2, 5), st.integers(1, 9)),
                             elements=st.integers(-25, 0).map(float))


@settings(max_examples=40, deadline=None)
@given(scores_matrices)
def test_mid_p_is_antisymmetric_and_ge_counts_ties_twice(x):
    upper = np.triu_indices(x.shape[0], 1)
    ge = pairwise_pvalues(x, method="exact")
    ge_rev = pairwise_pvalues(x[::-1], method="exact")
    mid = pairwise_pvalues(x, method="exact", ties="mid")
    mid_rev = pairwise_pvalues(x[::-1], method="exact", ties="mid")
    n = x.shape[0]
    for i, j in zip(*upper):
        ri, rj = n - 1 - j, n - 1 - i  # position of the pair (j, i) in the reversed matrix
        assert mid[i, j] + mid_rev[ri, rj] == pytest.approx(1.0)
        assert ge[i, j] + ge_rev[ri, rj] >= 1.0 - 1e-12
    assert ((ge[upper] >= 0) & (ge[upper] <= 1)).all()


@settings(max_examples=25, deadline=None)
@given(scores_matrices, st.floats(-50, 50), st.floats(0.1, 10))
def test_pvalues_ignore_shift_and_positive_scale(x, shift, scale):
    upper = np.triu_indices(x.shape[0], 1)
    p = pairwise_pvalues(x, method="exact")[upper]
    np.testing.assert_array_equal(pairwise_pvalues(x * scale + shift, method="exact")[upper], p)


def test_normal_pvalues_of_tiny_rows_beside_a_large_one_are_their_own():
    # rows 1-3 at 1e-170 beside a row near 1: their squared differences would underflow to 0
    x = np.random.default_rng(0).normal(size=(4, 30))
    mixed = np.vstack([1 + x[:1] * 1e-3, x[1:] * 1e-170])
    upper = np.triu_indices(3, 1)
    alone = pairwise_pvalues(x[1:], method="normal")[upper]
    np.testing.assert_allclose(pairwise_pvalues(mixed, method="normal")[1:, 1:][upper], alone, rtol=1e-12)
    np.testing.assert_allclose(alone, [0.33915093, 0.15790497, 0.21804983], atol=1e-8)


@settings(max_examples=25, deadline=None)
@given(scores_matrices, scores_matrices, st.randoms(use_true_random=False))
def test_mid_p_spa_does_not_depend_on_system_order(h, m, random):
    if h.shape != m.shape:
        m = np.resize(m, h.shape)
    order = list(range(h.shape[0]))
    random.shuffle(order)
    base = spalib.soft_pairwise_accuracy(h, m, method="exact", ties="mid").statistic
    assert spalib.soft_pairwise_accuracy(h[order], m[order], method="exact", ties="mid").statistic == pytest.approx(base)


def test_same_seed_same_result_and_generators_are_reproducible():
    x = np.random.default_rng(0).random((8, 100))
    a = pairwise_pvalues(x, rng=np.random.default_rng(5))
    b = pairwise_pvalues(x, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)
    prepared = draw_signs(500, 100, rng=np.random.default_rng(1))     # the signs a Generator gives
    np.testing.assert_array_equal(pairwise_pvalues(x, signs=prepared),
                                  pairwise_pvalues(x, n_resamples=500, rng=np.random.default_rng(1)))


def test_results_do_not_depend_on_the_number_of_threads():
    code = ("import numpy as np, pandas as pd, spalib; x = np.random.default_rng(0).random((9, 333)); "
            "print(repr(spalib.pairwise_pvalues(x, rng=np.random.default_rng(2)).tolist())); "
            "h = pd.DataFrame(x[:, :40]); ms = {f'm{k}': h + k * 0.3 * pd.DataFrame(np.random.default_rng(k).random((9, 40))) "
            "for k in range(3)}; "
            "print(spalib.compare_metrics(h, ms, rng=4, signs='mtme', n_resamples=200).pvalues.to_numpy().tolist()); "
            "print(spalib.compare_metrics(h, ms, rng=4, n_resamples=200, spa_method='normal').pvalues.to_numpy().tolist())")
    outputs = output_per_thread_count(code)
    assert outputs[1] == outputs[2] and outputs[1].startswith("[[nan")


def test_toolkit_recipe_does_not_depend_on_blas_threads():
    """signs='mtme' multiplies in float32 as the toolkit does; OpenBLAS rounds that product
    differently on two threads (on this input, p-values moved by 1/1000 before it ran on one)."""
    code = ("import numpy as np, spalib\n"
            "x = np.random.default_rng(0).normal(size=(16, 1200)).round(1)\n"
            "p = spalib.pairwise_pvalues(x, rng=4, signs='mtme')\n"
            "print(repr(p[np.triu_indices(16, 1)].tolist()))\n")
    outputs = output_per_thread_count(code, variable="OPENBLAS_NUM_THREADS")
    assert outputs[1] == outputs[2] and outputs[1].count(",") == 16 * 15 // 2 - 1


# --- bad input -----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    (dict(scores=[[1.0, np.nan], [2.0, 3.0]]), r"1 missing value\(s\) in 1 segment\(s\) .*complete_segments"),
    (dict(scores=[[1.0, np.inf], [2.0, 3.0]]), r"1 infinite value\(s\); scores must be finite"),
    (dict(scores=[[1e38, 1e38], [2.0, 3.0]], rng=4, signs="mtme"), "overflow float32"),
    (dict(scores=H, rng=np.random.default_rng(0), signs="mtme"), "signs='mtme' reproduces .* pass `rng` as an int"),
    (dict(scores=H, signs="float32"), "`signs` must be one of"),
    (dict(scores=H, n_resamples="10"), "`n_resamples` must be a positive integer"),
    (dict(scores=[1.0, 2.0]), "must be a 2-D systems x segments matrix"),
    (dict(scores=[[1.0, 2.0]]), "at least 2 systems"),
    (dict(scores=H, n_resamples=0), "`n_resamples` must be a positive integer"),
    (dict(scores=H, method="bootstrap"), "`method` must be"),
    (dict(scores=H, ties="both"), "`ties` must be"),
    (dict(scores=np.zeros((2, 21)), method="exact"), "L = 21 is over the limit of 20"),
])
def test_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        pairwise_pvalues(**kwargs)


def test_bad_rng_and_signs():
    with pytest.raises(TypeError, match="`rng` must be None, an int or a numpy.random.Generator"):
        pairwise_pvalues(H, rng="four")
    with pytest.raises(TypeError, match="`rng` must be None, an int"):
        pairwise_pvalues(H, rng=True)
    with pytest.raises(TypeError, match="must hold real numbers"):
        pairwise_pvalues(np.array(H) + 1j)
    with pytest.raises(ValueError, match="`signs` cover 5 segments, the scores have 8"):
        pairwise_pvalues(H, signs=draw_signs(10, 5, rng=0))


@pytest.mark.parametrize("kwargs, message", [
    (dict(packed=np.zeros((4, 1), dtype=np.int64)), "must be a uint8 array of shape"),
    (dict(packed=np.zeros((4, 2), dtype=np.uint8)), r"shape \(n_resamples, 1\)"),
    (dict(reference=np.zeros((4, 8), dtype=np.float32)), "float32 matrix of ±1"),
    (dict(reference=np.ones((4, 8))), "float32 matrix of ±1"),
])
def test_prepared_sign_matrices_are_checked_before_any_kernel(kwargs, message):
    # a packed matrix narrower than the scores made the kernels read past its end (a crash)
    with pytest.raises(ValueError, match=message):
        spalib.SignMatrix(8, **kwargs)


def test_int_seed_means_the_bits_recipe_unless_mtme_is_asked_for():
    bits = pairwise_pvalues(H, rng=4)
    np.testing.assert_array_equal(bits, pairwise_pvalues(H, rng=np.random.default_rng(4)))
    assert not np.array_equal(bits[UPPER], pairwise_pvalues(H, rng=4, signs="mtme")[UPPER])
    assert draw_signs(100, 8, rng=4, signs="mtme").recipe == "mtme" and draw_signs(100, 8, rng=4).recipe == "bits"

"""Rows 27-39 of the bad-input review (/work/shared/reviews/bad-input.md, "Every failure"): the
Wei & Jia functions and the corpus metrics, one test per row.  Each bad input is either a clear
error naming the parameter or gives the documented correct answer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import spalib
from spalib.corpus_metrics import corpus_score, segment_statistics

# the review's perfect-annotator toy
SCORES = [70, 80, 90, 50, 50, 20, 10, 30, 20, 40]
OUTPUTS = [0, 0, 0, 1, 1, 2, 3, 3, 3, 3]


def test_row27_bootstrap_refuses_a_missing_system_label():
    with pytest.raises(ValueError, match=r"`systems` has 1 missing key\(s\), the first at row 1"):
        spalib.bootstrap_system_scores([1, 2, 3, 4], ["a", None, "b", "b"], n_resamples=10, rng=1)


def test_row28_bootstrap_means_of_huge_scores_do_not_overflow():
    boot = spalib.bootstrap_system_scores([1e308, 1e308, 1, 2], ["a", "a", "b", "b"], n_resamples=10, rng=1)
    assert boot.observed.tolist() == [1e308, 1.5]
    assert (boot.scores[:, 0] == 1e308).all()   # every resample of two equal scores has their mean
    assert np.isin(boot.scores[:, 1], [1.0, 1.5, 2.0]).all()
    # the values are halved exactly (a power of two): with ordinary scores nothing is scaled
    small = spalib.bootstrap_system_scores([1.0, 2.0, 1.0, 2.0], ["a", "a", "b", "b"], n_resamples=10, rng=1)
    assert np.array_equal(boot.scores[:, 1], small.scores[:, 1])
    with pytest.raises(ValueError, match="`values` are too large: their sums over a system's 2 rows overflow"):
        spalib.bootstrap_system_scores([[1e308, 1.0], [1e308, 1.0]], ["a", "a"], metric="ter", n_resamples=2)


def test_row29_perfect_annotator_refuses_a_missing_output():
    with pytest.raises(ValueError, match=r"`outputs` has 1 missing key\(s\), the first at row 9"):
        spalib.perfect_annotator(SCORES, OUTPUTS[:-1] + [None])


def test_row30_perfect_annotator_refuses_missing_annotators():
    annotators = ["x", "y", None, "x", None, "y", "x", None, "y", None]
    with pytest.raises(ValueError, match=r"`annotators` has 4 missing key\(s\), the first at row 2"):
        spalib.perfect_annotator(SCORES, OUTPUTS, annotators=annotators)


def test_row31_reliability_refuses_a_negative_number_of_judgements():
    pa = spalib.perfect_annotator(SCORES, OUTPUTS)
    with pytest.raises(ValueError, match="`n_judgements` must be positive"):
        pa.reliability(-1)
    with pytest.raises(ValueError, match="`n_judgements` must be positive"):
        pa.reliability([1, 0])
    assert pa.reliability(1) == pytest.approx(pa.perfect_variance / pa.total_variance)


def test_row32_power_below_alpha_is_refused_naming_power():
    with pytest.raises(ValueError, match=r"`power` \(0.04\) must be above `alpha` \(0.05\)"):
        spalib.judgements_for_power(1, 19, power=0.04)


def test_row33_a_text_delta_is_refused_naming_delta():
    with pytest.raises(TypeError, match="`delta` must hold real numbers"):
        spalib.judgements_for_power("x", 19)


def test_row34_shapes_that_do_not_broadcast_name_delta_and_sigma():
    with pytest.raises(ValueError, match=r"`delta` \(2,\) and `sigma` \(3,\) do not broadcast"):
        spalib.judgements_for_power([1, 2], [1, 2, 3])


def test_row35_an_effect_of_30_sigma_needs_two_judgements_per_system():
    # the documented floor: two per system, the smallest design with a variance estimate
    assert spalib.judgements_for_power(30, 1) == 4.0
    assert spalib.judgements_for_power(30, 1, method="normal") == 4.0
    assert spalib.judgements_for_power([30, 1], [1, 19]).tolist() == [4.0, pytest.approx(18766.28, abs=0.01)]


def test_row36_an_effect_of_1e_200_is_refused_as_beyond_the_float_range():
    with pytest.raises(ValueError, match=r"`delta` / `sigma` = 1e-200 is too small"):
        spalib.judgements_for_power(1e-200, 1)


def test_row37_corpus_score_refuses_text_statistics_naming_them():
    with pytest.raises(TypeError, match="`statistics` must hold real numbers"):
        corpus_score("ter", ["a", "b"])


def test_row38_segment_statistics_refuses_a_missing_hypothesis():
    with pytest.raises(ValueError, match=r"`hypotheses` has a missing text at position 1 \(nan\)"):
        segment_statistics("chrf", pd.Series(["a b", np.nan]), pd.Series(["a b", "nan"]), cache=False)


def test_row39_segment_statistics_refuses_a_string_for_a_list_of_segments():
    with pytest.raises(TypeError, match="`hypotheses` must be a sequence of texts, one per segment; got a single str"):
        segment_statistics("bleu", "the cat", "the dog", cache=False)

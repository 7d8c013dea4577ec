"""The simulation lab's generator: its moments, its truth, and p-values uniform under its null."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import spalib
from spalib.simulate import MetricModel, simulate_task


def test_moments_of_the_generator_are_the_model_s():
    model = MetricModel(noise_sd=2.0, error_correlation=0.6, slope=0.5)
    task = simulate_task(np.linspace(0, 1, 4), 20_000, {"m": model}, segment_sd=1.5, human_sd=0.8, rng=3)
    h, m = task.human.to_numpy(), task.metrics["m"].to_numpy()
    truth = task.truth.quality.to_numpy()[:, None] + task.truth.difficulty.to_numpy()[None, :]
    human_noise, metric_noise = h - truth, m - model.slope * truth
    assert task.truth.difficulty.std() == pytest.approx(1.5, rel=0.03)
    assert human_noise.std() == pytest.approx(0.8, rel=0.02) and abs(human_noise.mean()) < 0.01
    assert metric_noise.std() == pytest.approx(2.0, rel=0.02)
    assert np.corrcoef(metric_noise.ravel(), human_noise.ravel())[0, 1] == pytest.approx(0.6, abs=0.02)


def test_the_truth_is_the_limit_of_many_segments():
    bias = (0.0, 0.0, 0.6, 0.0)                                     # lifts the third system above the fourth
    task = simulate_task([0.0, 0.2, 0.4, 0.8], 40_000, {"biased": MetricModel(noise_sd=1.0, bias=bias),
                                                        "plain": MetricModel(noise_sd=1.0)}, rng=5)
    assert task.truth.pairwise_accuracy.to_dict() == {"biased": 5 / 6, "plain": 1.0}
    for name in ("biased", "plain"):
        observed = spalib.pairwise_accuracy(task.human.mean(axis=1), task.metrics[name].mean(axis=1))
        assert observed == task.truth.pairwise_accuracy[name]      # 40,000 segments: the limit
    limit = task.truth.metric_system_scores["biased"]
    means = task.metrics["biased"].mean(axis=1)
    np.testing.assert_allclose(means - means.mean(), limit - limit.mean(), atol=0.02)


def test_mqm_like_scores_tie_often_keep_the_order_and_respect_the_cap():
    task = simulate_task([-2.0, 0.0, 1.0], 5000, {"m": MetricModel()}, human="mqm", rng=2)
    h = task.human
    assert set(np.unique(h)) <= set(-np.arange(0, 26))              # whole penalties, capped at 25
    assert (h == 0).to_numpy().mean() > 0.3 and h.min().min() >= -25
    assert list(h.mean(axis=1).sort_values().index) == list(task.truth.quality.sort_values().index)


def test_the_permutation_p_value_is_uniform_under_the_null():
    """Equal qualities: the one-sided paired permutation p-value of a system pair is U(0, 1)
    (Kolmogorov-Smirnov over 2,000 replications, each with its own scores and signs)."""
    rng = np.random.default_rng(11)
    pvalues = np.empty(2000)
    for r in range(pvalues.size):
        task = simulate_task([0.0, 0.0], 40, {"m": MetricModel()}, rng=rng)
        pvalues[r] = spalib.pairwise_pvalues(task.human, n_resamples=1000, rng=rng)[0, 1]
    # p-values on a grid of 1/1000 with the >= convention sit at or above the uniform
    assert stats.kstest(pvalues, "uniform").pvalue > 0.01
    assert np.mean(pvalues <= 0.05) == pytest.approx(0.05, abs=3 * np.sqrt(0.05 * 0.95 / 2000))


def test_a_seed_gives_the_same_task_and_the_settings_record_it():
    models = {"a": MetricModel(), "b": MetricModel(noise_sd=0.1, error_correlation=-0.5)}
    first = simulate_task([0, 1, 2], 30, models, rng=np.random.default_rng(4))
    replay = np.random.Generator(getattr(np.random, first.settings["seed"]["bit_generator"])())
    replay.bit_generator.state = first.settings["seed"]["state"]
    again = simulate_task([0, 1, 2], 30, models, rng=replay)
    pd.testing.assert_frame_equal(first.human, again.human)
    pd.testing.assert_frame_equal(first.metrics["b"], again.metrics["b"])
    named = simulate_task(pd.Series([0.0, 1.0], index=["x", "y"]), 5, models, rng=1)
    assert list(named.human.index) == ["x", "y"] and named.human.index.name == "system"


@pytest.mark.parametrize("kwargs, message", [
    (dict(quality=[1.0]), "at least 2 systems"),
    (dict(n_segments=0), "`n_segments` must be a positive integer"),
    (dict(metrics={}), "non-empty dict"),
    (dict(metrics={"m": 3}), "must be a MetricModel"),
    (dict(metrics={"m": MetricModel(bias=(1.0,))}), "bias has 1 values for 3 systems"),
    (dict(human="da"), "`human` must be one of"),
    (dict(human_sd=-1), "`human_sd` must be"),
    (dict(rng="x"), "`rng` must be None"),
])
def test_bad_arguments_are_refused_by_name(kwargs, message):
    args = dict(quality=[0.0, 1.0, 2.0], n_segments=10, metrics={"m": MetricModel()}) | kwargs
    with pytest.raises((ValueError, TypeError), match=message):
        simulate_task(args.pop("quality"), args.pop("n_segments"), args.pop("metrics"), **args)


@pytest.mark.parametrize("kwargs, message", [
    (dict(noise_sd=-1), "`noise_sd`"), (dict(error_correlation=1.5), "`error_correlation`"),
    (dict(slope=0), "`slope`"), (dict(bias=[np.inf, 0]), "`bias`"),
])
def test_metric_models_check_their_fields(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        MetricModel(**kwargs)

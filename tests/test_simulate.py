"""The simulation lab's generator: its moments, its truth, and p-values uniform under its null."""

import dataclasses
import functools
import operator

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import spalib
from conftest import GOLDEN, splitmix64
from spalib import metametrics
from spalib._core import signs as sign_kernels, simulation_kernels
from spalib._core.rng import stream_key
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
    (dict(human="dam"), "`human` must be one of"),
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


# --- the lab: DA-like judgements, replications, and the jitted test loops -------------------------

def test_da_judgements_recover_their_variance_components():
    """Different-annotator pairs estimate the noise a new collection sees; same-annotator repeats
    miss the annotator offsets."""
    quality = np.linspace(0, 1, 6)
    different = simulate_task(quality, 3000, {"m": MetricModel()}, human="da",
                              da=spalib.DAModel(repeats=2), rng=1)
    j, v = different.judgements, different.truth.variance
    assert v["clipped share"] < 0.02
    est = spalib.perfect_annotator(j["score"], j[["system", "segment"]], annotators=j["annotator"])
    assert est.within_variance == pytest.approx(v["annotator"] + v["judgement"], rel=0.05)
    assert est.perfect_variance == pytest.approx(v["output"], rel=0.06)           # clipping: ~1%
    assert est.ratio == pytest.approx((v["output"] + v["annotator"] + v["judgement"]) / v["output"], rel=0.03)
    same = simulate_task(quality, 3000, {"m": MetricModel()}, human="da",
                         da=spalib.DAModel(repeats=2, same_annotator=True), rng=2).judgements
    assert (same.groupby(["system", "segment"])["annotator"].nunique() == 1).all()
    pooled = spalib.perfect_annotator(same["score"], same[["system", "segment"]])
    assert pooled.within_variance == pytest.approx(v["judgement"], rel=0.05)
    assert different.human.shape == (6, 3000)
    np.testing.assert_allclose(different.human.to_numpy().ravel(),
                               j.groupby(["system", "segment"], sort=False)["score"].mean().to_numpy())


def test_replications_are_tasks_of_the_same_model():
    sim = spalib.simulate_replications([0.0, 0.5, 1.0], 50, {"m": MetricModel(noise_sd=0.3)}, 400, rng=3)
    assert sim.human.shape == sim.metrics["m"].shape == (400, 3, 50)
    assert sim.truth.difficulty.shape == (400, 50)
    task = sim.task(7)
    np.testing.assert_array_equal(task.human.to_numpy(), sim.human[7])
    means = sim.human.mean(axis=2).mean(axis=0)
    np.testing.assert_allclose(means - means.mean(), [-0.5, 0.0, 0.5], atol=0.03)
    with pytest.raises(ValueError, match="`replication` must be an integer in"):
        sim.task(400)


def test_pair_test_pvalues_equal_the_library_s_from_the_same_signs():
    sim = spalib.simulate_replications([0.0, 0.1], 37, {"m": MetricModel()}, 6, rng=4)
    d = sim.human[:, 0] - sim.human[:, 1]
    p = spalib.pair_test_pvalues(d, n_resamples=300, rng=5)
    seed = int(np.random.default_rng(5).integers(0, 2 ** 63, dtype=np.int64))
    for r in range(6):
        signs = spalib.SignMatrix(37, packed=simulation_kernels.pair_signs(seed, r, 300, 37))
        assert p["ge"][r] == spalib.pairwise_pvalues(sim.human[r], signs=signs)[0, 1]
        assert p["mid"][r] == spalib.pairwise_pvalues(sim.human[r], signs=signs, ties="mid")[0, 1]
        assert p["normal"][r] == pytest.approx(spalib.pairwise_pvalues(sim.human[r], method="normal")[0, 1])
    assert (p["plus_one"] == (p["ge"] * 300 + 1) / 301).all()


def test_pair_test_counts_ties_half_in_mid_p():
    d = np.array([[1.0, -1.0, 1.0, -1.0]])                 # observed 0: many draws equal it
    p = spalib.pair_test_pvalues(d, n_resamples=4000, rng=6)
    assert p["ge"][0] > p["mid"][0] > 0 and p["two_sided"][0] == 1.0
    assert p["ge"][0] - p["mid"][0] == pytest.approx(6 / 16 / 2, abs=0.02)   # P(T* = 0) = 6/16


@pytest.mark.parametrize("statistic", ["pa", "spa"])
@pytest.mark.parametrize("permutation", ["both", "inputs", "systems"])
def test_metric_test_pvalues_are_compare_metrics_tests_with_the_same_swaps(statistic, permutation):
    """Each replication's null draws are the library's PERM draws of the pair from the same stream."""
    models = {"a": MetricModel(noise_sd=0.8), "b": MetricModel(noise_sd=1.0)}
    sim = spalib.simulate_replications(np.linspace(0, 0.5, 5), 20, models, 3, rng=7)
    out = spalib.metric_test_pvalues(sim, "a", "b", meta_metric=statistic, permutation=permutation,
                                     alternative=("two-sided", "greater"), n_resamples=64, rng=8)
    seed = int(np.random.default_rng(8).integers(0, 2 ** 63, dtype=np.int64))
    for r in range(3):
        task = sim.task(r)
        plan = metametrics._compare_metrics_iv(task.human, task.metrics, statistic, 64, 1, "bits", 100, "normal",
                                               "ge", permutation, None, 0.05, False, "two-sided")
        stat = metametrics._TESTERS["pa" if statistic == "pa" else "normal"](plan)
        assert out["delta"][r] == pytest.approx(stat.scores["a"] - stat.scores["b"], abs=1e-15)
        better, worse = ("a", "b") if stat.scores["a"] >= stat.scores["b"] else ("b", "a")
        # the library's own draws of this pair, from the replication's stream: the lab's draws
        _, _, draw = stat.pair(better, worse)
        null = draw(np.uint64(stream_key(seed, r)), 0, 64)
        observed = abs(out["delta"][r])                           # plain floats, as the library
        assert out["pvalue_two_sided"][r] == np.mean(np.abs(null) >= observed)
        assert out["pvalue_greater"][r] == np.mean(null >= observed)


@pytest.mark.parametrize("statistic", ["pa", "spa"])
def test_a_tuple_of_alternatives_gives_each_p_value_from_the_same_draws(statistic):
    sim = spalib.simulate_replications(np.linspace(0, 0.5, 5), 20, {"a": MetricModel(), "b": MetricModel()}, 200,
                                       rng=15)
    kw = dict(meta_metric=statistic, n_resamples=100, rng=16)
    both = spalib.metric_test_pvalues(sim, "a", "b", alternative=("two-sided", "greater"), **kw)
    assert list(both.columns) == ["delta", "pvalue_two_sided", "pvalue_greater", "draws"]
    for alternative in ("greater", "two-sided"):
        one = spalib.metric_test_pvalues(sim, "a", "b", alternative=alternative, **kw)
        assert (one["pvalue"] == both["pvalue_" + alternative.replace("-", "_")]).all()
        assert (one["delta"] == both["delta"]).all() and (one["draws"] == 100).all()
    assert (both["pvalue_greater"] <= both["pvalue_two_sided"]).all()   # a draw past +|Δ| is past |Δ|
    assert (both["pvalue_greater"] < both["pvalue_two_sided"]).any()


def test_the_lab_gives_the_same_numbers_on_one_thread_and_on_many():
    import numba
    sim = spalib.simulate_replications(np.linspace(0, 0.5, 5), 30, {"a": MetricModel(), "b": MetricModel()}, 40,
                                       rng=9)
    def run():
        return (spalib.metric_test_pvalues(sim, "a", "b", meta_metric="spa", n_resamples=50, rng=10),
                spalib.pair_test_pvalues(sim.human[:, 0] - sim.human[:, 1], n_resamples=50, rng=10),
                spalib.correlation_test_pvalues(sim.human[:, 0], sim.metrics["a"][:, 0], sim.metrics["b"][:, 0],
                                                n_resamples=50, rng=10))
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    one = run()
    numba.set_num_threads(threads)
    for x, y in zip(one, run()):
        pd.testing.assert_frame_equal(x, y)


@pytest.mark.parametrize("alternative", ["greater", "two-sided"])
def test_early_stopping_stops_where_mt_metrics_eval_would(alternative):
    sim = spalib.simulate_replications(np.linspace(0, 0.5, 6), 60, {"a": MetricModel(noise_sd=0.2),
                                                                    "b": MetricModel(noise_sd=3.0)}, 50, rng=11)
    out = spalib.metric_test_pvalues(sim, "a", "b", meta_metric="pa", n_resamples=1000, alternative=alternative,
                                     early_stopping=spalib.EarlyStopping(100, 0.02, 0.5), rng=12)
    stopped = out["draws"] < 1000
    assert stopped.any() and (out["draws"] % 100 == 0).all()
    p = out["pvalue"][stopped]
    assert ((p < 0.02) | (p > 0.5)).all()
    # each run stops after the first block whose running p-value, of this alternative, is outside
    running = {k: spalib.metric_test_pvalues(sim, "a", "b", meta_metric="pa", n_resamples=k, alternative=(alternative,),
                                             rng=12)["pvalue_" + alternative.replace("-", "_")]
               for k in range(100, 1001, 100)}
    for r, draws in enumerate(out["draws"]):
        assert running[draws][r] == out["pvalue"][r]
        assert all(0.02 <= running[k][r] <= 0.5 for k in range(100, draws, 100))


def test_correlation_test_pvalues_are_uniform_under_the_null_and_two_sided():
    rng = np.random.default_rng(13)
    h = rng.normal(size=(2000, 15))
    noise = rng.normal(size=(2, 2000, 15))
    out = spalib.correlation_test_pvalues(h, h + noise[0], h + noise[1], n_resamples=400, rng=14)
    assert stats.kstest(out["pvalue"], "uniform").pvalue > 0.001
    swapped = spalib.correlation_test_pvalues(h[:50], h[:50] + noise[1, :50], h[:50] + noise[0, :50],
                                              n_resamples=400, rng=14)
    np.testing.assert_allclose(swapped["delta"], -out["delta"][:50])
    r = [stats.pearsonr(h[i], h[i] + noise[0, i])[0] - stats.pearsonr(h[i], h[i] + noise[1, i])[0] for i in range(5)]
    np.testing.assert_allclose(out["delta"][:5], r)


def test_rejection_rates_and_the_promise_ledger_follow_their_rules():
    rates = spalib.rejection_rates(pd.DataFrame({"t": [0.01, 0.2, 0.04, 0.7]}), alphas=[0.05, 0.5])
    assert rates.loc["t", (0.05, "rate")] == 0.5 and rates.loc["t", (0.5, "rate")] == 0.75
    assert rates.loc["t", (0.05, "se")] == pytest.approx(0.25)
    with pytest.raises(ValueError, match="pvalues"):
        spalib.rejection_rates(pd.Series([0.1, np.nan]))
    ledger = spalib.promise_ledger(pd.DataFrame({"promised": [0.05, 0.05, 0.95, 0.05],
                                                 "measured": [0.06, 0.02, 0.90, 0.0],
                                                 "replications": [2000, 2000, 475, 2000]}, index=list("abcd")))
    assert ledger["verdict"].tolist() == ["kept", "below", "below", "below"]        # a rate of 0 is judged too
    assert ledger.loc["c", "se"] == pytest.approx(0.01)
    with pytest.raises(ValueError, match=r"promised.*must be"):
        spalib.promise_ledger(pd.DataFrame({"promised": [1.0], "measured": [1.0], "replications": [10]}))
    with pytest.raises(ValueError, match="replications"):
        spalib.promise_ledger(pd.DataFrame({"promised": [0.5], "measured": [0.5], "replications": [0]}))


def test_the_promise_ledger_allows_the_standard_errors_it_is_given():
    rows = pd.DataFrame({"promised": [0.05, 0.05], "measured": [0.033, 0.069], "replications": [2000, 2000]},
                        index=["low", "high"])     # z = -3.49 and +3.90
    assert spalib.promise_ledger(rows)["verdict"].tolist() == ["below", "above"]
    assert spalib.promise_ledger(rows, max_z=4)["verdict"].tolist() == ["kept", "kept"]
    assert spalib.promise_ledger(rows, max_z=3.5)["verdict"].tolist() == ["kept", "above"]
    on_the_line = abs(spalib.promise_ledger(rows)["z"]["low"])
    assert spalib.promise_ledger(rows, max_z=on_the_line)["verdict"]["low"] == "kept"     # |z| <= max_z
    for bad in (0, -1.0, np.nan, np.inf, True, "4"):
        with pytest.raises(ValueError, match="`max_z` must be"):
            spalib.promise_ledger(rows, max_z=bad)


@pytest.mark.parametrize("call, message", [
    (lambda sim: spalib.metric_test_pvalues(sim, "a", "zzz"), "`second` must name a simulated metric"),
    (lambda sim: spalib.metric_test_pvalues(sim, "a", "b", permutation="cells"), "`permutation` must be one of"),
    (lambda sim: spalib.metric_test_pvalues(sim, "a", "b", meta_metric="acc_eq"), "`meta_metric` must be one of"),
    (lambda sim: spalib.metric_test_pvalues(sim, "a", "b", n_resamples=0), "`n_resamples` must be a positive"),
    (lambda sim: spalib.metric_test_pvalues(sim, "a", "b", alternative="less"), "`alternative` must be one of"),
    (lambda sim: spalib.metric_test_pvalues(sim, "a", "b", alternative=()), "or a tuple of distinct ones"),
    (lambda sim: spalib.metric_test_pvalues(sim, "a", "b", alternative=("greater", "greater")),
     "or a tuple of distinct ones"),
    (lambda sim: spalib.metric_test_pvalues(sim, "a", "b", alternative=["greater"]), "or a tuple of distinct ones"),
    (lambda sim: spalib.metric_test_pvalues(sim, "a", "b", alternative=("greater", 1)),
     r"tuple of distinct ones; got \('greater', 1\)"),
    (lambda sim: spalib.metric_test_pvalues(sim, "a", "b", alternative=("greater", "two-sided"),
                                            early_stopping=spalib.WMT_EARLY_STOPPING), "stops on one p-value"),
    (lambda sim: spalib.metric_test_pvalues(sim.task(0), "a", "b"), "must be a SimulatedReplications"),
    (lambda sim: spalib.pair_test_pvalues(np.ones(5)), "`differences`"),
    (lambda sim: spalib.correlation_test_pvalues(np.ones((2, 5)), np.ones((2, 4)), np.ones((2, 5))), "one shape"),
    (lambda sim: spalib.simulate_replications([0, 1], 5, {"m": MetricModel()}, 0), "`n_replications`"),
    (lambda sim: spalib.DAModel(repeats=3, n_annotators=2), "need at least 3 annotators"),
    (lambda sim: spalib.simulate_task([0, 1], 5, {"m": MetricModel()}, da="x"), "`da` must be a DAModel"),
])
def test_the_lab_refuses_bad_arguments_by_name(call, message):
    sim = spalib.simulate_replications([0, 1, 2], 10, {"a": MetricModel(), "b": MetricModel()}, 2, rng=0)
    with pytest.raises((ValueError, TypeError), match=message):
        call(sim)


def _stream_bytes(key, first, n):
    """Bytes ``first .. first + n - 1`` of a simulation stream, by its definition: byte ``i`` is
    byte ``i % 8`` of word ``i // 8``, ``splitmix64(key + (i // 8 + 1) * GOLDEN)``."""
    index = np.arange(first, first + n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        words = splitmix64(np.uint64(key) + (index // np.uint64(8) + np.uint64(1)) * np.uint64(GOLDEN))
    return ((words >> (np.uint64(8) * (index % np.uint64(8)))) & np.uint64(255)).astype(np.uint8)


@pytest.mark.parametrize("first_draw", [0, 3])
def test_swap_masks_and_pair_signs_are_the_streams_bytes_in_order(first_draw):
    """PERM-BOTH's masks are the stream's bytes in order, PERM-INPUTS' one byte a group for every
    system, PERM-SYSTEMS' the lowest bit of one byte a system; the pair test's signs its bytes."""
    key, n_draws, n_systems, n_groups = np.uint64(2**64 - 5), 7, 5, 3
    cells = n_systems * n_groups
    both = simulation_kernels.swap_masks(key, first_draw, n_draws, 0, n_systems, n_groups)
    assert np.array_equal(both.reshape(-1), _stream_bytes(key, first_draw * cells, n_draws * cells))
    inputs = simulation_kernels.swap_masks(key, first_draw, n_draws, 1, n_systems, n_groups)
    by_group = _stream_bytes(key, first_draw * n_groups, n_draws * n_groups).reshape(n_draws, 1, n_groups)
    assert np.array_equal(inputs, np.broadcast_to(by_group, inputs.shape))
    systems = simulation_kernels.swap_masks(key, first_draw, n_draws, 2, n_systems, n_groups)
    bit = _stream_bytes(key, first_draw * n_systems, n_draws * n_systems).reshape(n_draws, n_systems, 1) & 1
    assert np.array_equal(systems, np.broadcast_to(bit * np.uint8(255), systems.shape))
    with np.errstate(over="ignore"):   # replication 4 of seed 9: key mix(9 ^ mix(5 * GOLDEN))
        replication_key = splitmix64(np.uint64(9) ^ splitmix64(np.uint64(5) * np.uint64(GOLDEN)))
    signs = simulation_kernels.pair_signs(9, 4, n_draws, 8 * n_groups - 3)
    assert np.array_equal(signs.reshape(-1), _stream_bytes(replication_key, 0, n_draws * n_groups))


def test_row_sums_are_row_sums_in_column_order():
    x = np.random.default_rng(6).normal(size=(4, 37)) * 10.0 ** np.arange(37)
    x[3] = -0.0
    expected = [functools.reduce(operator.add, row, 0.0) for row in x]
    assert simulation_kernels._row_sums(x).tobytes() == np.array(expected).tobytes()   # +0.0 for -0.0 rows


def test_the_tie_tolerance_is_one_rule_for_the_library_and_the_lab():
    x = np.random.default_rng(7).normal(size=(3, 29)) * 10.0 ** np.arange(29)
    expected = 1e-11 * max(functools.reduce(operator.add, np.abs(row), 0.0) for row in x)
    assert sign_kernels.tie_tolerance(x) == expected
    assert sign_kernels.tie_tolerance(x[1:2]) == 1e-11 * functools.reduce(operator.add, np.abs(x[1]), 0.0)


def test_metric_test_pvalues_refuses_replications_the_kernels_cannot_read():
    """bad-input cause 1: hand-built or mutated replications never reach the kernels."""
    sim = spalib.simulate_replications([0, 0.1, 0.2], 30, {"a": MetricModel(), "b": MetricModel()}, 20, rng=0)
    wide = {"a": np.zeros((20, 3, 400)), "b": np.zeros((20, 3, 400))}
    with pytest.raises(ValueError, match=r"`replications.metrics\['a'\]` must have the human scores' shape"):
        spalib.metric_test_pvalues(dataclasses.replace(sim, metrics=wide), "a", "b", meta_metric="spa", rng=1)
    with pytest.raises(ValueError, match="`replications.human` must have 3 dimension"):
        spalib.metric_test_pvalues(dataclasses.replace(sim, human=np.zeros((3, 30))), "a", "b", rng=1)
    human = sim.human.copy()
    human[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="`replications.human` has 1 missing"):
        spalib.metric_test_pvalues(dataclasses.replace(sim, human=human), "a", "b", rng=1)


@pytest.mark.parametrize("statistic", ["pa", "spa"])
def test_metric_test_pvalues_ignore_the_human_scores_scale(statistic):
    """bad-input cause 3: x 1e+-200 gives the unscaled p-values (powers of two are exact)."""
    sim = spalib.simulate_replications([0, 0.1, 0.2], 30, {"a": MetricModel(), "b": MetricModel(noise_sd=2)}, 20,
                                       rng=0)
    base = spalib.metric_test_pvalues(sim, "a", "b", meta_metric=statistic, rng=1)
    for factor in (1e200, 1e-200, 2.0 ** 600):
        scaled = spalib.metric_test_pvalues(dataclasses.replace(sim, human=sim.human * factor), "a", "b",
                                            meta_metric=statistic, rng=1)
        np.testing.assert_allclose(scaled.to_numpy(), base.to_numpy(), rtol=0, atol=1e-12)


def test_correlation_test_refuses_constant_rows_and_ignores_scale():
    """bad-input causes 2 and 3: a constant row is refused by name; scale does not matter."""
    rng = np.random.default_rng(0)
    h = rng.normal(size=(30, 20))
    x, y = h + rng.normal(size=h.shape), h + rng.normal(size=h.shape)
    base = spalib.correlation_test_pvalues(h, x, y, n_resamples=200, rng=1)
    scaled = spalib.correlation_test_pvalues(h * 1e200, x * 1e-200, y * 1e-200, n_resamples=200, rng=1)
    np.testing.assert_allclose(scaled["delta"], base["delta"], rtol=1e-12)
    assert (scaled["pvalue"] == base["pvalue"]).all()
    h[7] = 3.0
    with pytest.raises(ValueError, match="`human` row 7 is constant"):
        spalib.correlation_test_pvalues(h, x, y, rng=1)


def test_correlation_test_leaves_out_draws_without_a_correlation():
    """Scores with ties: a swap can make a metric's row constant; such draws are left out."""
    rng = np.random.default_rng(0)
    h = rng.integers(0, 3, size=(300, 4)).astype(float)
    x = rng.integers(0, 2, size=(300, 4)).astype(float)
    y = 1 - x
    keep = (np.ptp(h, axis=1) > 0) & (np.ptp(x, axis=1) > 0)
    out = spalib.correlation_test_pvalues(h[keep], x[keep], y[keep], n_resamples=50, rng=2)
    assert out["pvalue"].between(0, 1).all()


@pytest.mark.parametrize("pvalues, alphas, error, match", [
    (pd.Series([7.0, -0.5, 0.3]), (0.05,), ValueError, r"must lie in \[0, 1\]"),
    (pd.DataFrame({"t": []}), (0.05,), ValueError, "at least one replication"),
    (pd.Series([0.1]), [], ValueError, "`alphas` must give at least one level"),
    (pd.DataFrame({"t": ["0.1", "x"]}), (0.05,), TypeError, "`pvalues` must hold numbers"),
])
def test_rejection_rates_refuses_what_is_not_a_set_of_pvalues(pvalues, alphas, error, match):
    with pytest.raises(error, match=match):
        spalib.rejection_rates(pvalues, alphas=alphas)


def test_pair_test_normal_column_ignores_scale_and_the_simulator_refuses_overflow():
    """bad-input #99, #100, #49."""
    sim = spalib.simulate_replications([0.0, 0.0], 40, {"m": MetricModel()}, 100, rng=0)
    d = sim.human[:, 0] - sim.human[:, 1]
    base = spalib.pair_test_pvalues(d, n_resamples=100, rng=1)
    for factor in (1e200, 1e-200):
        scaled = spalib.pair_test_pvalues(d * factor, n_resamples=100, rng=1)
        np.testing.assert_allclose(scaled["normal"], base["normal"], rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="metric 's': values overflow float64"):
        with np.errstate(over="ignore"):
            simulate_task([0, 1e308], 10, {"s": MetricModel(slope=10)})


def test_simulate_task_refuses_duplicate_or_mixed_system_labels():
    """bad-input #3, #4."""
    for index in (["a", "a", "c"], [1, "1"]):
        quality = pd.Series(np.linspace(0, 0.2, len(index)), index=index)
        with pytest.raises(ValueError, match="`quality.index`"):
            simulate_task(quality, 10, {"m": MetricModel()})


def test_the_normal_limit_pvalue_is_one_rule_for_every_caller():
    """The pairs test's normal column, the pairwise p-values and the PERM-INPUTS draws of
    normal SPA all take it from signs.normal_upper_pvalue: 1 - Phi(T / sqrt(ss)), 1 (or 1/2 with
    mid-p) when ss = 0."""
    d = np.random.default_rng(8).normal(size=(5, 40))
    d[4] = 0.0
    expected = [1.0 - stats.norm.cdf(row.sum() / np.sqrt((row * row).sum())) if row.any() else 1.0 for row in d]
    normal = spalib.pair_test_pvalues(d, n_resamples=10, rng=0)["normal"].to_numpy()
    assert np.allclose(normal, expected, rtol=1e-12, atol=1e-15)
    assert sign_kernels.normal_upper_pvalues(np.zeros(2), np.zeros(2), True).tolist() == [0.5, 0.5]
    x = np.random.default_rng(9).normal(size=(4, 40))
    by_pairs = spalib.pairwise_pvalues(x, method="normal")[np.triu_indices(4, 1)]
    i, j = np.triu_indices(4, 1)
    diff = x[i] - x[j]
    kept = sign_kernels.normal_upper_pvalues(diff.sum(axis=1), (diff * diff).sum(axis=1), False)
    assert np.allclose(by_pairs, kept, rtol=1e-12)


def test_rate_se_is_the_binomial_standard_error_and_checks_its_arguments():
    assert spalib.rate_se(0.05, 2000) == np.sqrt(0.05 * 0.95 / 2000)
    rates = pd.Series([0.0, 0.5, 1.0], index=list("abc"))
    se = spalib.rate_se(rates, 100)
    assert isinstance(se, pd.Series) and se.tolist() == [0.0, 0.05, 0.0]
    table = spalib.rejection_rates(pd.Series([0.01, 0.2, 0.04, 0.7], name="t"), alphas=[0.05])
    assert table.loc["t", (0.05, "se")] == spalib.rate_se(0.5, 4)
    with pytest.raises(ValueError, match="`rate` must lie in"):
        spalib.rate_se(1.5, 10)
    with pytest.raises(ValueError, match="`n` must be positive"):
        spalib.rate_se(0.5, 0)


def test_rate_se_takes_lists_and_refuses_what_is_not_a_number():
    assert spalib.rate_se([0.05, 0.5], 100).tolist() == [np.sqrt(0.05 * 0.95 / 100), 0.05]
    assert spalib.rate_se(0.5, [100, 400]).tolist() == [0.05, 0.025]
    with pytest.raises(TypeError, match="`rate` must hold numbers"):
        spalib.rate_se(True, 10)


def test_rate_difference_paired_is_the_mean_difference_and_its_plug_in_standard_error():
    rng = np.random.default_rng(3)
    a = rng.random(500) < 0.3
    b = a & (rng.random(500) < 0.8)                     # b rejects only where a does: correlated
    d = a * 1.0 - b * 1.0
    paired = spalib.rate_difference(a, b)
    assert paired.difference == d.mean() and paired.se == d.std() / np.sqrt(500) and paired.paired
    assert paired.z == paired.difference / paired.se
    # by hand on four outcomes: d = (0, 1, 0, 0), mean 1/4, var 3/16
    small = spalib.rate_difference([1, 1, 0, 1], [1, 0, 0, 1])
    assert small.difference == 0.25 and small.se == pytest.approx(np.sqrt(3 / 16 / 4), abs=1e-15)
    # independent: the binomial standard errors combined; larger here than the paired one
    apart = spalib.rate_difference(a, b, paired=False)
    assert apart.se == np.sqrt(spalib.rate_se(a.mean(), 500) ** 2 + spalib.rate_se(b.mean(), 500) ** 2)
    assert apart.se > paired.se and not apart.paired
    assert spalib.rate_difference([1, 0, 1], [0, 1], paired=False).difference == pytest.approx(2 / 3 - 1 / 2)


def test_rate_difference_z_when_the_outcomes_never_differ():
    assert np.isnan(spalib.rate_difference([1, 0, 1], [1, 0, 1]).z)
    assert spalib.rate_difference([1, 1], [0, 0]).z == np.inf     # always differ the same way: se 0


@pytest.mark.parametrize("call, message", [
    (lambda: spalib.rate_difference([1, 0], [1, 0, 1]), "come from the same replications"),
    (lambda: spalib.rate_difference([0.2, 0.5], [1, 0]), "must hold outcomes: booleans or 0/1"),
    (lambda: spalib.rate_difference(["1", "0"], [1, 0]), "must hold outcomes"),
    (lambda: spalib.rate_difference([], [1]), "non-empty 1-D"),
    (lambda: spalib.rate_difference([[1, 0]], [1, 0]), "non-empty 1-D"),
    (lambda: spalib.rate_difference([1, 0], [1, 0], paired="yes"), "`paired` must be True or False"),
    (lambda: spalib.rate_difference(pd.Series([1, 0], index=[0, 1]), pd.Series([1, 0], index=[1, 0])),
     "same index"),
])
def test_rate_difference_refuses_what_is_not_a_pair_of_outcome_sequences(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_normal_limit_pvalues_refuse_arrays_of_different_shapes():
    with pytest.raises(ValueError, match="sums of squares of shape"):
        sign_kernels.normal_upper_pvalues(np.ones(6), np.ones(2), False)

"""The public contract: every argument checked first on every path, overflow avoided, names that
mean one thing, immutable sign matrices, seeds recorded (bad-input review rows 1, 7-18, 40-44).
"""

import inspect
import typing

import numpy as np
import pandas as pd
import pytest

import spalib
from spalib._core import vocabulary

X = np.random.default_rng(0).normal(size=(4, 30))


def comparison_toy():
    rng = np.random.default_rng(1)
    human = pd.DataFrame(rng.normal(size=(6, 40)), index=[f"s{i}" for i in range(6)])
    metrics = {f"m{k}": human + rng.normal(scale=0.5 + k, size=(6, 40)) for k in range(3)}
    return human, metrics


# --- overflow and underflow are avoided: scale-invariant statistics do not change -------------

@pytest.mark.parametrize("scale", [1e160, 1e200, 1e-200, 2.0 ** 600, 2.0 ** -600])
@pytest.mark.parametrize("method", ["normal", "permutation"])
def test_rows_7_to_9_pvalues_of_huge_or_tiny_scores_equal_the_unscaled_ones(scale, method):
    expected = spalib.pairwise_pvalues(X, method=method, rng=3)
    scaled = spalib.pairwise_pvalues(X * scale, method=method, rng=3)
    if np.log2(scale).is_integer():                      # a power of two: exact, to the last bit
        np.testing.assert_array_equal(scaled, expected)
    np.testing.assert_allclose(scaled, expected, rtol=1e-12)   # else the scores themselves round


def test_row_11_spa_normal_of_huge_metric_scores_is_unchanged():
    human, metrics = comparison_toy()
    plain = spalib.soft_pairwise_accuracy(human, metrics["m0"], method="normal").statistic
    assert spalib.soft_pairwise_accuracy(human, metrics["m0"] * 2.0 ** 600, method="normal").statistic == plain
    assert spalib.soft_pairwise_accuracy(human, metrics["m0"] * 1e160, method="normal").statistic == pytest.approx(
        plain, rel=1e-12)


@pytest.mark.parametrize("scale", [1e160, 1e300, 1e-250, 2.0 ** 900])
@pytest.mark.parametrize("kw", [dict(meta_metric="spa"), dict(meta_metric="pa"), dict(spa_method="normal"),
                                dict(meta_metric="pdp")])
def test_rows_12_to_15_compare_metrics_of_scaled_metrics_equals_the_unscaled(scale, kw):
    human, metrics = comparison_toy()
    args = dict(n_resamples=60, spa_resamples=100, rng=4, **kw)
    plain = spalib.compare_metrics(human, metrics, **args)
    scaled = spalib.compare_metrics(human, {n: m * scale for n, m in metrics.items()}, **args)
    pd.testing.assert_series_equal(scaled.scores, plain.scores, rtol=1e-12)
    pd.testing.assert_frame_equal(scaled.pvalues, plain.pvalues)


def test_row_40_intervals_of_huge_scores_equal_the_unscaled():
    human, metrics = comparison_toy()
    plain = spalib.metric_intervals(human, metrics, rng=5, n_resamples=200)
    scaled = spalib.metric_intervals(human * 1e200, {n: m * 1e200 for n, m in metrics.items()}, rng=5,
                                     n_resamples=200)
    pd.testing.assert_frame_equal(scaled, plain, rtol=1e-12)


# --- every argument is checked first, whatever the path -----------------------------------------

@pytest.mark.parametrize("method", ["normal", "exact", "permutation"])
@pytest.mark.parametrize("bad, message", [
    (dict(n_resamples=-5), "`n_resamples` must be a positive integer"),
    (dict(rng="four"), "`rng` must be None, an int or a numpy.random.Generator"),
    (dict(rng=[1, 2]), "`rng` must be None"),
    (dict(signs="garbage"), "`signs` must be one of"),
    (dict(ties="low"), "`ties` must be one of"),
])
def test_pvalue_arguments_are_checked_on_every_method(method, bad, message):
    human, metrics = comparison_toy()
    x = X[:, :12]
    with pytest.raises((ValueError, TypeError), match=message):
        spalib.pairwise_pvalues(x, method=method, **bad)
    with pytest.raises((ValueError, TypeError), match=message):
        spalib.soft_pairwise_accuracy(human.iloc[:, :12], metrics["m0"].iloc[:, :12], method=method, **bad)


@pytest.mark.parametrize("statistic", ["spa", "pa", "acc_eq"])
@pytest.mark.parametrize("bad, message", [
    (dict(spa_resamples=0), "`spa_resamples` must be a positive integer"),
    (dict(rng="x"), "`rng` must be None"),
    (dict(signs="garbage"), "`signs` must be one of"),
    (dict(spa_method="exact"), "`spa_method` must be one of"),
    (dict(alpha=1.5), "`alpha` must be"),
    (dict(progress=1), "`progress` must be True or False"),
])
def test_compare_metrics_checks_arguments_its_statistic_does_not_use(statistic, bad, message):
    human, metrics = comparison_toy()
    with pytest.raises((ValueError, TypeError), match=message):
        spalib.compare_metrics(human, metrics, meta_metric=statistic, n_resamples=10, **bad)


def test_row_10_mtme_signs_with_a_negative_seed_name_rng():
    with pytest.raises(ValueError, match="`rng` must be an integer >= 0"):
        spalib.pairwise_pvalues(X, rng=-1, signs="mtme")


def test_row_16_metric_names_of_mixed_types_are_refused_by_name():
    human, metrics = comparison_toy()
    with pytest.raises(ValueError, match="`metrics names` mixes label types"):
        spalib.compare_metrics(human, {1: metrics["m0"], "b": metrics["m1"]}, n_resamples=10)


@pytest.mark.parametrize("value", [7.0, -0.5, np.nan])
def test_rows_17_18_significance_ranks_refuses_what_is_not_a_pvalue(value):
    with pytest.raises(ValueError, match="`pvalues` must hold p-values in \\[0, 1\\]"):
        spalib.significance_ranks([[np.nan, value], [np.nan, np.nan]])


@pytest.mark.parametrize("task, message", [
    ("en-de", "tasks\\['t'\\] must be a SegmentTask or a \\(human, metrics\\) tuple"),
    ((1,), "tasks\\['t'\\] must be a SegmentTask"),
])
def test_rows_41_42_malformed_tasks_are_named(task, message):
    with pytest.raises(TypeError, match=message):
        spalib.rank_metrics({"t": task})


def test_row_43_rank_metrics_checks_confidence_level_before_any_draw(monkeypatch):
    human, metrics = comparison_toy()
    calls = []
    monkeypatch.setattr(spalib.ranking, "compare_metrics", lambda *a, **k: calls.append(1))
    with pytest.raises(ValueError, match="`confidence_level` must be"):
        spalib.rank_metrics({"a": (human, metrics)}, confidence_level=1.5, rng=1)
    assert calls == []


def test_row_44_task_names_equal_as_strings_are_refused():
    human, metrics = comparison_toy()
    with pytest.raises(ValueError, match="duplicate labels"):
        spalib.rank_metrics({1: (human, metrics), "1": (human, metrics)}, meta_metrics="pa", n_resamples=10,
                            interval_resamples=0, rng=1)


def test_row_1_a_sign_matrix_cannot_be_changed_after_it_was_checked():
    signs = spalib.draw_signs(100, 30, rng=1)
    with pytest.raises(AttributeError, match="cannot be changed"):
        signs.n_segments = 40
    with pytest.raises(ValueError, match="read-only"):
        signs.packed[0, 0] = 1
    mtme = spalib.draw_signs(100, 30, rng=4, signs="mtme")
    with pytest.raises(ValueError, match="read-only"):
        mtme.reference[0, 0] = 1.0
    packed = np.zeros((5, 4), dtype=np.uint8)
    prepared = spalib.SignMatrix(30, packed=packed)
    packed[:] = 255                                    # the caller's array, changed later
    assert not prepared.packed.any()


# --- SPA from p-values, and on a subset of systems ------------------------------------------------

def test_spa_from_pvalues_and_subset_reuse_the_result_s_pvalues():
    human, metrics = comparison_toy()
    result = spalib.soft_pairwise_accuracy(human, metrics["m1"], rng=4, signs="mtme")
    assert spalib.spa_from_pvalues(result.human_pvalues, result.metric_pvalues) == result.statistic
    keep = ["s0", "s2", "s5"]
    sub = result.subset(keep)
    direct = spalib.soft_pairwise_accuracy(human.loc[keep], metrics["m1"].loc[keep], rng=4, signs="mtme")
    assert sub.systems == keep and sub.statistic == direct.statistic
    np.testing.assert_array_equal(sub.human_pvalues, direct.human_pvalues)
    with pytest.raises(ValueError, match="does not have"):
        result.subset(["s0", "nope"])
    with pytest.raises(ValueError, match="p-values in \\[0, 1\\]"):
        spalib.spa_from_pvalues([[np.nan, 2.0], [np.nan, np.nan]], [[np.nan, 0.5], [np.nan, np.nan]])


# --- the seed is recorded and reproduces the result ----------------------------------------------

@pytest.mark.parametrize("statistic", ["pa", "spa", "acc_eq"])
@pytest.mark.parametrize("rng", [None, "advanced", "mt19937", 11])
def test_the_recorded_seed_reproduces_a_comparison(statistic, rng):
    human, metrics = comparison_toy()
    if rng == "advanced":
        rng = np.random.default_rng(3)
        rng.random(7)                                   # a Generator already drawn from
    elif rng == "mt19937":
        rng = np.random.Generator(np.random.MT19937(5))
    first = spalib.compare_metrics(human, metrics, meta_metric=statistic, n_resamples=50, rng=rng)
    seed = first.settings["seed"]
    assert isinstance(seed, int) and seed == (rng if isinstance(rng, int) else seed)
    again = spalib.compare_metrics(human, metrics, meta_metric=statistic, n_resamples=50, rng=seed)
    pd.testing.assert_frame_equal(again.pvalues, first.pvalues)
    pd.testing.assert_series_equal(again.scores, first.scores)
    assert spalib.compare_metrics(human, metrics, meta_metric="pa", n_resamples=5, rng=4,
                                  signs="mtme").settings["seed"] == 4


def test_arguments_are_checked_before_any_draw():
    human, metrics = comparison_toy()
    generator = np.random.default_rng(1)
    before = generator.bit_generator.state
    for bad in (dict(alpha=2.0), dict(spa_resamples=0), dict(progress=1), dict(permutation="cells")):
        with pytest.raises((ValueError, TypeError)):
            spalib.compare_metrics(human, metrics, n_resamples=10, rng=generator, **bad)
    with pytest.raises(ValueError, match="`confidence_level`"):
        spalib.rank_metrics({"a": (human, metrics)}, confidence_level=1.5, rng=generator)
    assert generator.bit_generator.state == before


@pytest.mark.parametrize("method", ["normal", "exact"])
def test_mtme_signs_with_a_method_that_draws_none(method):
    human, metrics = comparison_toy()
    h, m = human.iloc[:, :12], metrics["m0"].iloc[:, :12]
    with_recipe = spalib.soft_pairwise_accuracy(h, m, rng=4, signs="mtme", method=method).statistic
    assert with_recipe == spalib.soft_pairwise_accuracy(h, m, method=method).statistic


def test_normal_spa_counts_draws_equal_to_the_observed_difference():
    """PERM-SYSTEMS swaps nothing in 1 of 2**S draws: those draws equal the observed difference
    and must count (scores and draws are summed alike)."""
    rng = np.random.default_rng(8)   # 5 systems: 1 draw in 16 swaps no system or all of them
    human = pd.DataFrame(rng.normal(size=(5, 30)))
    metrics = {"a": human + rng.normal(scale=0.8, size=(5, 30)), "b": human + rng.normal(scale=1.0, size=(5, 30))}
    c = spalib.compare_metrics(human, metrics, spa_method="normal", permutation="systems", n_resamples=1024,
                               rng=8)
    better, worse = c.scores.index
    null = c.null_distributions[(better, worse)]
    delta = c.scores[better] - c.scores[worse]
    ties = np.isclose(null, delta, rtol=0, atol=1e-12)
    assert ties.any() and (null[ties] == delta).all()


# --- names mean one thing -------------------------------------------------------------------------

PUBLIC = [getattr(spalib, name) for name in spalib.__all__ if callable(getattr(spalib, name))]
RETIRED = {"human_seg", "metrics_seg", "metric_seg", "human_sys", "metric_sys", "n_bootstrap", "n_boot"}


@pytest.mark.parametrize("function", [f for f in PUBLIC if inspect.isfunction(f)], ids=lambda f: f.__name__)
def test_public_signatures_follow_the_naming_contract(function):
    parameters = inspect.signature(function).parameters
    assert not RETIRED & set(parameters), f"{function.__name__} uses a retired name"
    if "rng" in parameters:
        assert parameters["rng"].kind is inspect.Parameter.KEYWORD_ONLY
    counts = [name for name in parameters if "resample" in name or "boot" in name]
    assert all(name == "n_resamples" or name.endswith("_resamples") for name in counts), counts


RESULTS = [c for c in PUBLIC if inspect.isclass(c) and hasattr(c, "__dataclass_fields__")]


def test_every_result_s_statistic_is_a_number_and_names_no_meta_metric():
    with_statistic = [c for c in RESULTS if "statistic" in c.__dataclass_fields__]
    assert len(with_statistic) >= 4                      # the check is not vacuous
    for result in with_statistic:
        assert typing.get_type_hints(result)["statistic"] is float, result.__name__
    assert typing.get_type_hints(spalib.MetricComparison)["meta_metric"] is str


# --- a pair's verdict depends only on the seed and the pair ---------------------------------------

def pair_pvalue(comparison, a, b):
    """The pair's p-value, whichever way round the comparison ordered it."""
    p = comparison.pvalues.loc[a, b]
    return p if not np.isnan(p) else comparison.pvalues.loc[b, a]


@pytest.mark.parametrize("statistic, options", [
    ("pa", {}), ("spa", {}), ("spa", dict(spa_method="normal")), ("spa", dict(signs="mtme")),
    ("pa", dict(permutation="inputs")), ("spa", dict(permutation="systems", spa_method="normal")),
    ("acc_eq", {}), ("pdp", {}), ("pdp", dict(permutation="inputs"))])
@pytest.mark.parametrize("alternative", ["greater", "two-sided"])
def test_a_pairs_pvalue_does_not_depend_on_the_other_metrics(statistic, options, alternative):
    human, metrics = comparison_toy()
    metrics = metrics | {"m3": human + np.random.default_rng(9).normal(scale=0.9, size=human.shape)}
    kw = dict(meta_metric=statistic, n_resamples=200, rng=7, alternative=alternative, **options)
    everything = spalib.compare_metrics(human, metrics, **kw)
    for a, b in [("m0", "m1"), ("m1", "m3"), ("m2", "m0")]:
        alone = spalib.compare_metrics(human, {a: metrics[a], b: metrics[b]}, **kw)
        assert pair_pvalue(alone, a, b) == pair_pvalue(everything, a, b)
        key = next(k for k in alone.null_distributions)
        np.testing.assert_array_equal(alone.null_distributions[key], everything.null_distributions[key])


def test_early_stopping_uses_the_first_draws_of_the_pairs_own_stream():
    human, metrics = comparison_toy()
    for statistic in ("pa", "spa", "pdp"):
        full = spalib.compare_metrics(human, metrics, meta_metric=statistic, n_resamples=1000, rng=3)
        stopped = spalib.compare_metrics(human, metrics, meta_metric=statistic, n_resamples=1000, rng=3,
                                         early_stopping=spalib.WMT_EARLY_STOPPING)
        assert (stopped.draws.to_numpy() < 1000).any()
        for pair, null in stopped.null_distributions.items():
            np.testing.assert_array_equal(null, full.null_distributions[pair][:null.size])


def test_pa_draws_do_not_depend_on_spas_options():
    human, metrics = comparison_toy()
    runs = [spalib.compare_metrics(human, metrics, meta_metric="pa", n_resamples=100, rng=4, **options)
            for options in ({}, dict(signs="mtme"), dict(spa_resamples=7), dict(spa_method="normal"))]
    for run in runs[1:]:
        pd.testing.assert_frame_equal(run.pvalues, runs[0].pvalues)


def test_a_ranking_restricted_to_some_metrics_keeps_their_pvalues():
    human, metrics = comparison_toy()
    kw = dict(meta_metrics=("pa", "spa", "acc_eq"), n_resamples=100, rng=5, interval_resamples=0)
    full = spalib.rank_metrics({"x": (human, metrics), "y": (human.iloc[:, :30], {
        n: m.iloc[:, :30] for n, m in metrics.items()})}, **kw)
    some = spalib.rank_metrics({"x": (human, {n: metrics[n] for n in ("m0", "m2")})}, **kw)
    for stat in kw["meta_metrics"]:
        assert pair_pvalue(some.comparisons["x", stat], "m0", "m2") == pair_pvalue(full.comparisons["x", stat],
                                                                                  "m0", "m2")
    task_seed = full.comparisons["x", "pa"].settings["seed"]
    alone = spalib.compare_metrics(human, metrics, meta_metric="pa", n_resamples=100, rng=task_seed)
    pd.testing.assert_frame_equal(alone.pvalues, full.comparisons["x", "pa"].pvalues)


@pytest.mark.parametrize("meta_metric, spa_method", [("pa", "normal"), ("spa", "normal"), ("spa", "permutation"),
                                                     ("acc_eq", "normal"), ("pdp", "normal")])
def test_a_pair_tested_either_way_round_draws_the_same_swaps(meta_metric, spa_method):
    from spalib import metametrics
    from spalib._core import engine
    human, metrics = comparison_toy()
    plan = metametrics._compare_metrics_iv(human, metrics, meta_metric, 50, 1, "bits", 64, spa_method, "ge", "both",
                                           None, 0.05, False, "two-sided")
    stat = metametrics._TESTERS[meta_metric if meta_metric != "spa" else spa_method](plan)
    key = engine.pair_key(1, "perm", "m0", "m1")
    (delta, _, one_way), (reverse, _, other_way) = stat.pair("m0", "m1"), stat.pair("m1", "m0")
    assert delta == -reverse
    np.testing.assert_allclose(one_way(key, 0, 50), -other_way(key, 0, 50), rtol=0, atol=1e-12)


# --- one vocabulary -------------------------------------------------------------------------------

def _literal_values(function, parameter):
    """The values a parameter's Literal annotation allows (the whole union's, if it is one)."""
    hint = typing.get_type_hints(function)[parameter]
    args = typing.get_args(hint) if typing.get_origin(hint) is not typing.Literal else (hint,)
    values = []
    for arg in args:
        if typing.get_origin(arg) is typing.Literal:
            values += typing.get_args(arg)
        elif typing.get_origin(arg) is not None:   # Sequence[MetaMetric], tuple[Alternative, ...]
            values += [v for inner in typing.get_args(arg) if typing.get_origin(inner) is typing.Literal
                       for v in typing.get_args(inner)]
    return tuple(values)


@pytest.mark.parametrize("function, parameter, words", [
    (spalib.compare_metrics, "meta_metric", vocabulary.META_METRICS),
    (spalib.compare_metrics, "spa_method", vocabulary.SPA_METHODS),
    (spalib.compare_metrics, "permutation", vocabulary.SCHEMES),
    (spalib.compare_metrics, "alternative", vocabulary.ALTERNATIVES),
    (spalib.compare_metrics, "ties", vocabulary.TIES),
    (spalib.compare_metrics, "signs", vocabulary.SIGN_RECIPES),
    (spalib.soft_pairwise_accuracy, "method", vocabulary.PVALUE_METHODS),
    (spalib.pairwise_pvalues, "method", vocabulary.PVALUE_METHODS),
    (spalib.pairwise_pvalues, "ties", vocabulary.TIES),
    (spalib.rank_metrics, "meta_metrics", vocabulary.META_METRICS),
    (spalib.metric_test_pvalues, "meta_metric", vocabulary.PERM_META_METRICS),
    (spalib.metric_intervals, "meta_metric", vocabulary.META_METRICS),
    (spalib.pairwise_difference_pearson, "grouping", vocabulary.GROUPINGS),
    (spalib.tie_calibration, "grouping", vocabulary.GROUPINGS),
    (spalib.metric_test_pvalues, "permutation", vocabulary.SCHEMES),
    (spalib.metric_test_pvalues, "alternative", vocabulary.ALTERNATIVES),
])
def test_a_word_is_declared_once_and_checked_against_that_declaration(function, parameter, words):
    assert _literal_values(function, parameter)[:len(words)] == words
    human, metrics = comparison_toy()
    if function is spalib.metric_test_pvalues:
        return   # its refusals are tested in test_simulate.py
    args = {spalib.compare_metrics: (human, metrics), spalib.soft_pairwise_accuracy: (human, metrics["m0"]),
            spalib.pairwise_pvalues: (human,), spalib.rank_metrics: ({"t": (human, metrics)},),
            spalib.metric_intervals: (human, metrics), spalib.pairwise_difference_pearson: (human, metrics["m0"]),
            spalib.tie_calibration: (human, metrics["m0"])}[function]
    with pytest.raises(ValueError) as error:
        function(*args, **{parameter: "nonsense"})
    assert all(word in str(error.value) for word in words), error.value


def test_the_command_line_offers_the_library_s_words():
    import argparse
    from spalib import cli
    sub = argparse.ArgumentParser().add_subparsers()
    cli._rank_parser(sub)
    actions = {a.dest: a for a in sub.choices["rank"]._actions}
    assert tuple(actions["stat"].choices) == vocabulary.META_METRICS
    assert tuple(actions["signs"].choices) == vocabulary.SIGN_RECIPES


@pytest.mark.parametrize("function, old, new, value", [
    (spalib.compare_metrics, "statistic", "meta_metric", "pa"),
    (spalib.metric_intervals, "statistic", "meta_metric", "pa"),
    (spalib.rank_metrics, "statistics", "meta_metrics", ("pa",)),
    (spalib.metric_test_pvalues, "statistic", "meta_metric", "pa"),
])
def test_a_renamed_keyword_still_works_for_a_release_with_a_warning(function, old, new, value):
    human, metrics = comparison_toy()
    if function is spalib.metric_test_pvalues:
        sim = spalib.simulate_replications([0.0, 0.2, 0.4], 20, {"a": spalib.MetricModel(), "b": spalib.MetricModel()},
                                           5, rng=1)
        args, kw = (sim, "a", "b"), dict(n_resamples=20, rng=2)
    elif function is spalib.rank_metrics:
        args, kw = ({"t": (human, metrics)},), dict(n_resamples=20, interval_resamples=0, rng=2)
    elif function is spalib.metric_intervals:
        args, kw = (human, metrics), dict(n_resamples=20, rng=2)
    else:
        args, kw = (human, metrics), dict(n_resamples=20, rng=2)
    with pytest.warns(DeprecationWarning, match=f"`{old}=` is now `{new}=`"):
        old_way = function(*args, **{old: value}, **kw)
    new_way = function(*args, **{new: value}, **kw)
    if isinstance(new_way, pd.DataFrame):
        pd.testing.assert_frame_equal(old_way, new_way)
    else:
        assert old_way.table().equals(new_way.table())
    with pytest.raises(TypeError, match=f"got `{new}` and its former name `{old}`"):
        function(*args, **{old: value, new: value}, **kw)

"""Wei & Jia 2021: the decomposition, the perfect annotator, power (TV9), the paired bootstrap and
corpus metrics equal to sacrebleu on real WMT22 data."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sacrebleu.metrics import BLEU, CHRF, TER

import spalib
from conftest import GOLDEN, output_per_thread_count, splitmix64
from spalib import data
from spalib.corpus_metrics import corpus_score, is_lower_better, segment_statistics
from spalib._core.bootstrap import _bootstrap_scores, _draw_rows, _resample_counts, _resample_sum
from spalib._core.rng import stream_key

# --- TV9: the decomposition ----------------------------------------------------------------

Y = [[1, 1, 0], [1, 1, 0], [0, 1, 0], [1, 1, 1], [1, 1, 0]]
T = [[1, 0, 1], [1, 0, 0], [1, 1, 1], [0, 0, 1], [1, 0, 1]]


@pytest.mark.parametrize("kwargs, expected", [
    ({}, (0.6, 2 / 3, 0.0, -1 / 15)),
    ({"notebook_order": True}, (0.6, 2 / 3, -1 / 15, 0.0)),
    ({"notebook_order": True, "no_bias": True}, (0.6, 0.0, 0.6, 0.0)),
    ({"no_bias": True}, (0.6, 0.0, 2 / 3, -1 / 15)),
])
def test_tv9_decomposition_in_both_orders(kwargs, expected):
    d = spalib.decompose_pairwise_error(Y, T, **kwargs)
    assert (d.error, d.bias, d.variance, d.noise) == pytest.approx(expected, abs=1e-15)
    # Domingos's own noise term equals the remainder on this example
    assert np.mean(d.c0 * d.raw_noise) == pytest.approx(d.noise, abs=1e-15)
    assert d.pair_error.mean() == pytest.approx(d.error)


def test_tv9_notebook_order_reproduces_the_swap():
    swapped = spalib.decompose_pairwise_error(T, Y)
    flagged = spalib.decompose_pairwise_error(Y, T, notebook_order=True)
    assert (swapped.error, swapped.bias, swapped.variance, swapped.noise) == \
        (flagged.error, flagged.bias, flagged.variance, flagged.noise)


def test_constant_predictions_broadcast_over_trials():
    labels = np.array(T)
    optimal = (labels.mean(axis=0) > 0.5).astype(int)
    d = spalib.decompose_pairwise_error(optimal, labels, no_bias=True)
    # the optimal predictor's error is the label noise; it has no variance against its own labels
    assert d.error == pytest.approx(np.mean(labels != optimal))
    assert d.bias == 0 and d.noise == pytest.approx(d.error) and d.variance == 0


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.int8, st.tuples(st.integers(1, 9), st.integers(1, 6)), elements=st.integers(0, 1)),
       st.randoms(use_true_random=False))
def test_decomposition_closes_and_error_is_symmetric(predictions, random):
    labels = np.array([[random.randint(0, 1) for _ in row] for row in predictions])
    d = spalib.decompose_pairwise_error(predictions, labels)
    s = spalib.decompose_pairwise_error(predictions, labels, notebook_order=True)
    assert d.error == pytest.approx(d.bias + d.variance + d.noise)
    assert d.error == s.error and d.bias == s.bias
    assert np.all(np.abs(d.c0) <= 1) and set(np.unique(d.c1)) <= {-1.0, 1.0}


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(predictions=[[0, 2]], labels=[[0, 1]]), ValueError, "only 0 and 1"),
    (dict(predictions=[[0, 1, 1]], labels=[[0, 1]]), ValueError, "same shape"),
    (dict(predictions=[], labels=[]), ValueError, "non-empty"),
    (dict(predictions=[["a"]], labels=[[1]]), TypeError, "`predictions` must hold real numbers"),
    (dict(predictions=[[1]], labels=[[1]], no_bias=1), TypeError, "`no_bias` must be True or False"),
])
def test_decomposition_rejects_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        spalib.decompose_pairwise_error(**kwargs)


# --- TV9: the perfect annotator and power ---------------------------------------------------

def test_tv9_pooled_variance_and_ratio():
    pa = spalib.perfect_annotator([70, 80, 90, 50, 50, 20, 10, 30, 20, 40], [0, 0, 0, 1, 1, 2, 3, 3, 3, 3])
    assert pa.within_variance == pytest.approx(116.66666666666667, rel=1e-14)
    assert pa.total_variance == pytest.approx(737.7777777777778, rel=1e-14)
    assert pa.ratio == pytest.approx(1.18783542039356, rel=1e-13)
    assert pa.n_repeated_outputs == 3 and pa.perfect_variance == pytest.approx(pa.total_variance - pa.within_variance)


def test_annotators_equal_pooled_variance_when_every_repeat_is_by_someone_else():
    # with two judgements per output, the pooled variance is the mean of (x_a - x_b)^2 / 2
    scores, outputs = [70, 80, 50, 50, 20, 10, 30, 20, 40], [0, 0, 1, 1, 2, 3, 3, 4, 4]
    pooled = spalib.perfect_annotator(scores, outputs)
    paired = spalib.perfect_annotator(scores, outputs, annotators=range(9))
    assert paired.within_variance == pytest.approx(pooled.within_variance, rel=1e-14)
    assert paired.n_pairs == 4


def test_annotators_drop_same_annotator_pairs():
    # output "a": worker u twice (70, 72) and worker v once (90): only the two u-v pairs count
    pa = spalib.perfect_annotator([70, 72, 90, 10, 30], ["a", "a", "a", "b", "c"], annotators=["u", "u", "v", "u", "v"])
    assert pa.within_variance == pytest.approx(((70 - 90) ** 2 + (72 - 90) ** 2) / 4)
    assert pa.n_pairs == 2
    assert pa.reliability(1) == pytest.approx(pa.perfect_variance / pa.total_variance)


@pytest.mark.parametrize("scores, outputs, kwargs, message", [
    ([1.0, 2.0, 9.0], ["a", "a", "b"], {"annotators": ["u", "u", "v"]}, "two different annotators"),
    ([1.0, 2.0, 9.0], ["a", "a", "b"], {"annotators": ["u"]}, r"`annotators` must give one key per row \(3\)"),
    ([1.0, 2.0, 9.0], ["a", "a", "b"], {"annotators": ["u", "v", "w"], "ddof": 0}, "use ddof=1"),
])
def test_perfect_annotator_rejects_bad_annotators(scores, outputs, kwargs, message):
    with pytest.raises(ValueError, match=message):
        spalib.perfect_annotator(scores, outputs, **kwargs)


@pytest.mark.parametrize("scores, outputs, message", [
    ([1.0, 2.0], ["a", "b"], "no output is judged twice"),
    ([1.0, 5.0, 1.0, 5.0], ["a", "a", "b", "b"], "carry no signal"),
    ([1.0, np.inf], ["a", "a"], "finite"),
    ([1.0, 2.0], ["a"], r"`outputs` must give one key per row \(2\)"),
])
def test_perfect_annotator_rejects_bad_input(scores, outputs, message):
    with pytest.raises(ValueError, match=message):
        spalib.perfect_annotator(scores, outputs)


TV9_POWER = np.array([
    [32488.694, 8123.614, 3611.563, 2032.346, 1301.395],
    [27498.725, 6876.122, 3057.123, 1720.473, 1101.797],
    [22924.588, 5732.588, 2548.885, 1434.590, 918.832],
    [18766.281, 4693.012, 2086.852, 1174.697, 752.501],
    [15023.805, 3757.393, 1671.021, 940.793, 602.803],
    [11697.159, 2925.732, 1301.395, 732.879, 469.739],
])


def test_tv9_power_table():
    sigma = np.array([25, 23, 21, 19, 17, 15])[:, None]
    table = spalib.judgements_for_power(np.arange(1, 6)[None, :], sigma)
    np.testing.assert_allclose(table, TV9_POWER, atol=1e-3, rtol=0)
    assert spalib.judgements_for_power(1, 19, method="normal") == pytest.approx(18764.36, abs=0.01)


def test_power_agrees_with_a_simulated_t_test():
    from scipy import stats

    n1 = int(np.ceil(spalib.judgements_for_power(2, 10, power=0.8) / 2))
    rng = np.random.default_rng(0)
    a = rng.normal(0, 10, size=(4000, n1))
    b = rng.normal(2, 10, size=(4000, n1))
    rejected = stats.ttest_ind(a, b, axis=1).pvalue < 0.05
    assert rejected.mean() == pytest.approx(0.8, abs=0.02)


@pytest.mark.parametrize("kwargs, message", [
    (dict(delta=0, sigma=19), "`delta` must be positive"),
    (dict(delta=1, sigma=np.nan), r"`sigma` has 1 missing \(NaN\)"),
    (dict(delta=1, sigma=-2.0), "`sigma` must be positive"),
    (dict(delta=1, sigma=19, alpha=1.5), r"`alpha` must be a finite number in \(0.0, 1.0\)"),
    (dict(delta=1, sigma=19, power=True), "`power` must be a real number"),
    (dict(delta=1, sigma=19, method="z"), "`method` must be"),
])
def test_power_rejects_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        spalib.judgements_for_power(**kwargs)


# --- the paired bootstrap --------------------------------------------------------------------

def test_bootstrap_of_means():
    values = np.array([1.0, 2.0, 3.0, 10.0, 11.0, 7.0])
    systems = ["a", "a", "a", "b", "b", "c"]
    boot = spalib.bootstrap_system_scores(values, systems, n_resamples=500, rng=1)
    assert list(boot.systems) == ["a", "b", "c"]
    assert boot.observed.tolist() == [2.0, 10.5, 7.0]
    assert set(np.unique(boot.scores[:, 1])) <= {10.0, 10.5, 11.0}
    assert (boot.scores[:, 2] == 7.0).all()  # one row: every resample is that row
    assert boot.predictions([("b", "a")]).to_numpy().all() and not boot.predictions([("a", "c")]).to_numpy().any()
    assert boot.one_sided_pvalues([("b", "a"), ("b", "c")]).tolist() == [0.0, 0.0]
    # one result type whatever the pairs: tuples label the columns by first and second
    tuples = boot.predictions([("b", "a"), ("b", "c")])
    assert isinstance(tuples, pd.DataFrame) and tuples.columns.names == ["first", "second"]
    assert tuples.columns.tolist() == [("b", "a"), ("b", "c")]
    as_frame = boot.predictions(pd.DataFrame({"first": ["b", "b"], "second": ["a", "c"]}))
    pd.testing.assert_frame_equal(tuples, as_frame, check_column_type=False)
    assert isinstance(boot.observed_predictions([("b", "a")]), pd.Series)


def test_bootstrap_resamples_are_uniform_draws_with_replacement():
    rng = np.random.default_rng(5)
    values = rng.normal(size=400)
    boot = spalib.bootstrap_system_scores(values, np.zeros(400), n_resamples=20_000, rng=2)
    # the bootstrap standard error of a mean is the plug-in sd / sqrt(n)
    assert boot.scores[:, 0].std() == pytest.approx(values.std() / 20, rel=0.03)
    assert boot.scores[:, 0].mean() == pytest.approx(values.mean(), abs=3 * values.std() / 20 / np.sqrt(20_000) * 3)


def test_bootstrap_is_seeded_and_sample_size_counts_draws():
    values = np.arange(50.0)
    systems = np.repeat(["x", "y"], 25)
    a = spalib.bootstrap_system_scores(values, systems, n_resamples=200, rng=7)
    b = spalib.bootstrap_system_scores(values, systems, n_resamples=200, rng=np.random.default_rng(7))
    c = spalib.bootstrap_system_scores(values, systems, n_resamples=200, rng=8)
    assert np.array_equal(a.scores, b.scores) and not np.array_equal(a.scores, c.scores)
    one = spalib.bootstrap_system_scores(values, systems, n_resamples=200, sample_size=1, rng=7)
    assert np.isin(one.scores[:, 0], values[:25]).all()
    mixed = spalib.bootstrap_system_scores(values, systems, n_resamples=50, sample_size={"x": 1, "y": 1000}, rng=7)
    assert mixed.scores[:, 1].std() < mixed.scores[:, 0].std()


def test_integer_statistics_take_the_vectorised_sum_and_give_the_same_bits():
    rng = np.random.default_rng(3)
    stats_t = rng.integers(0, 40, size=(10, 900)).astype(np.float64)
    starts, sizes = np.array([0, 500, 900]), np.array([500, 400])
    seeds = rng.integers(0, 2**63, size=64).astype(np.uint64)
    fast = _bootstrap_scores(stats_t, starts, sizes, seeds, 1, True)
    # the fixed order (machine-independent), which statistics that are not integers take
    assert np.array_equal(fast, _bootstrap_scores(stats_t, starts, sizes, seeds, 1, False))


def test_only_whole_statistics_with_exact_sums_take_the_vectorised_sum(monkeypatch):
    taken = []

    def spy(*args):
        taken.append(args[-1])
        return _bootstrap_scores(*args)

    monkeypatch.setattr(spalib.bootstrap, "_bootstrap_scores", spy)
    systems = np.repeat(["x", "y"], 4)
    whole = np.tile([[3.0, 4.0]], (8, 1))
    for values, metric in ((whole, "ter"), (whole + 0.5, "ter"), (np.full((8, 2), 2.0**52), "ter"),
                           (np.arange(8.0), "mean")):
        spalib.bootstrap_system_scores(values, systems, metric=metric, n_resamples=2, rng=0)
    assert taken == [True, False, False, False]


@pytest.mark.parametrize("keys", [
    pd.DataFrame({"year": [2022, 2021, 2022, 2021, 2022], "lp": ["zh-en", "de-en", "de-en", "de-en", "zh-en"],
                  "system": ["b", "a", "a", "a", "c"]}),
    pd.MultiIndex(levels=[["c", "a", "b"], [2, 1]], codes=[[2, 1, 2, 0, 1], [0, 1, 1, 0, 1]], names=["x", "y"]),
    pd.Series(["b", "a", "b", "c", "a"], name="system"),
    pd.DataFrame({"system": pd.Categorical(["z", "a", "z", "m", "a"], categories=["z", "m", "a", "q"]),
                  "year": [1, 1, 2, 2, 2]}),   # sorted by value, not in category order
    pd.MultiIndex(levels=[["a", "a", "b"], [1]], codes=[[0, 1, 2, 1, 0], [0, 0, 0, 0, 0]],
                  verify_integrity=False),     # a level value given twice: one group
])
def test_bootstrap_groups_rows_as_a_sorted_factorize_of_their_keys(keys):
    """The systems are factorized from each key column's codes (fast), in the order of a
    sorted factorize of the rows' key tuples, levels given unsorted included."""
    from spalib.bootstrap import _factorize_sorted
    from spalib._core.validation import keys_iv
    index = keys_iv(keys, "systems", 5)
    codes, labels = _factorize_sorted(index)
    expected_codes, expected_labels = index.factorize(sort=True)
    assert codes.tolist() == expected_codes.tolist()
    assert labels.equals(expected_labels) and list(labels.names) == list(index.names)
    assert [labels.get_level_values(k).dtype for k in range(labels.nlevels)] == [
        expected_labels.get_level_values(k).dtype for k in range(labels.nlevels)]
    boot = spalib.bootstrap_system_scores(np.arange(5.0), keys, n_resamples=3, rng=0)
    assert boot.systems.equals(labels)


def test_bootstrap_is_identical_for_any_thread_count():
    code = ("import numpy as np, spalib; rng = np.random.default_rng(0); "
            "s = rng.integers(0, 9, size=(3000, 10)).astype(float); g = rng.integers(0, 7, size=3000); "
            "h = rng.normal(size=3000); "
            "print(spalib.bootstrap_system_scores(s, g, metric='bleu', n_resamples=64, rng=3).scores.tobytes().hex()[-400:]); "
            "print(spalib.bootstrap_system_scores(h, g, n_resamples=64, rng=3).scores.tobytes().hex()[-400:])")
    outputs = output_per_thread_count(code)
    assert outputs[1] == outputs[2] and len(outputs[1]) > 800


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(values=[1.0, 2.0], systems=["a", "b"], rng=True), TypeError, "`rng` must be None, an int"),
    (dict(values=[1.0, 2.0], systems=["a", "b"], n_resamples=0), ValueError, "`n_resamples` must be a positive"),
    (dict(values=[1.0, 2.0], systems=["a", "b"], n_resamples="10"), ValueError, "`n_resamples` must be a positive"),
    (dict(values=[1.0, 2.0], systems=["a"]), ValueError, r"`systems` must give one key per row \(2\)"),
    (dict(values=[1.0, np.inf], systems=["a", "b"]), ValueError, "finite"),
    (dict(values=[1 + 1j, 2.0], systems=["a", "b"]), TypeError, "real numbers"),
    (dict(values=[1.0, 2.0], systems=["a", "b"], metric="rouge"), ValueError, "`metric` must be"),
    (dict(values=[[1.0] * 10], systems=["a"], metric="chrf"), ValueError, r"shape \(n, 18\)"),
    (dict(values=[[-1.0, 2.0]], systems=["a"], metric="ter"), ValueError, "non-negative"),
    (dict(values=[1.0, 2.0], systems=["a", "b"], sample_size=0), ValueError, "`sample_size` must be"),
    (dict(values=[1.0, 2.0], systems=["a", "b"], sample_size={"a": 3}), ValueError, "no entry for"),
])
def test_bootstrap_rejects_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        spalib.bootstrap_system_scores(**kwargs)


def test_pairs_must_name_known_systems():
    boot = spalib.bootstrap_system_scores([1.0, 2.0], ["a", "b"], n_resamples=10, rng=0)
    with pytest.raises(ValueError, match="not in the bootstrap"):
        boot.predictions([("a", "z")])
    assert spalib.system_pairs(["a", "b", "c"]).to_numpy().tolist() == [["a", "b"], ["a", "c"], ["b", "c"]]
    with pytest.raises(ValueError, match="system 'a' appears twice"):
        spalib.system_pairs(["a", "a"])


def test_system_pairs_of_a_one_column_frame():
    # one key column: a named Index inside (pandas' Index.to_frame has no allow_duplicates)
    pairs = spalib.system_pairs(pd.DataFrame({"system": ["M0", "M1", "M2"]}))
    assert pairs.to_numpy().tolist() == [["M0", "M1"], ["M0", "M2"], ["M1", "M2"]]
    assert list(pairs.columns) == ["first", "second"]


# --- systems keyed by columns, pairs as frames (no keys glued into strings) ------------------

ROWS = pd.DataFrame({
    "year": [2022, 2022, 2022, 2022, 2021, 2021, 2022, 2022],
    "lp": ["zh-en", "zh-en", "zh-en", "zh-en", "zh-en", "zh-en", "de-en", "de-en"],
    "system": ["A", "A", "B", "B", "A", "C", "A", "D"],
    "score": [1.0, 2.0, 5.0, 6.0, 3.0, 9.0, 4.0, 0.0],
})
KEYS = ["year", "lp", "system"]


def test_key_columns_give_the_same_scores_as_glued_labels_and_a_multiindex():
    glued = ROWS["year"].astype(str) + " " + ROWS["lp"] + " " + ROWS["system"]
    by_string = spalib.bootstrap_system_scores(ROWS["score"].to_numpy(), glued.to_numpy(), n_resamples=50, rng=3)
    by_columns = spalib.bootstrap_system_scores(ROWS["score"], ROWS[KEYS], n_resamples=50, rng=3)
    assert np.array_equal(by_string.scores, by_columns.scores)
    assert isinstance(by_columns.systems, pd.MultiIndex) and list(by_columns.systems.names) == KEYS
    assert by_columns.systems.tolist() == [(2021, "zh-en", "A"), (2021, "zh-en", "C"), (2022, "de-en", "A"),
                                           (2022, "de-en", "D"), (2022, "zh-en", "A"), (2022, "zh-en", "B")]
    assert by_columns.observed.tolist() == [3.0, 9.0, 4.0, 0.0, 1.5, 5.5]


def test_pairs_within_groups_are_a_frame_with_the_group_columns():
    boot = spalib.bootstrap_system_scores(ROWS["score"], ROWS[KEYS], n_resamples=50, rng=3)
    pairs = boot.pairs(within=["year", "lp"])
    assert pairs.columns.tolist() == ["year", "lp", "first", "second"]
    assert pairs.to_numpy().tolist() == [[2021, "zh-en", "A", "C"], [2022, "de-en", "A", "D"],
                                         [2022, "zh-en", "A", "B"]]
    assert pairs["year"].dtype == np.int64
    # the same pairs from the key columns, in the order the systems are listed
    listed = spalib.system_pairs(ROWS[KEYS].drop_duplicates(), within=["year", "lp"])
    assert listed.to_numpy().tolist() == [[2022, "zh-en", "A", "B"], [2021, "zh-en", "A", "C"],
                                          [2022, "de-en", "A", "D"]]
    predictions = boot.predictions(listed)
    assert predictions.shape == (50, 3) and list(predictions.columns.names) == ["year", "lp", "first", "second"]
    assert boot.observed_predictions(listed).to_dict() == {(2022, "zh-en", "A", "B"): 0, (2021, "zh-en", "A", "C"): 0,
                                                           (2022, "de-en", "A", "D"): 1}
    assert boot.one_sided_pvalues(listed).index.equals(predictions.columns)
    # a frame without the group columns names full keys in `first` and `second`
    across = boot.pairs()
    assert len(across) == 15 and across.loc[0, "first"] == (2021, "zh-en", "A")
    assert np.array_equal(boot.predictions(across.iloc[:1]).to_numpy()[:, 0],
                          boot.predictions([((2021, "zh-en", "A"), (2021, "zh-en", "C"))]).to_numpy()[:, 0])


def test_decomposition_keeps_and_matches_the_pairs():
    boot = spalib.bootstrap_system_scores(ROWS["score"], ROWS[KEYS], n_resamples=200, rng=3)
    pairs = boot.pairs(within=["year", "lp"])
    labels = spalib.bootstrap_system_scores(ROWS["score"], ROWS[KEYS], n_resamples=200, rng=4).predictions(pairs)
    predictions = boot.predictions(pairs)
    d = spalib.decompose_pairwise_error(predictions, labels)
    assert d.pairs.equals(predictions.columns)
    # labels in another column order are matched by pair, not by position
    shuffled = spalib.decompose_pairwise_error(predictions, labels.iloc[:, ::-1])
    assert shuffled.error == d.error and np.array_equal(shuffled.pair_error, d.pair_error)
    table = d.by_pair()
    assert table.index.equals(d.pairs) and table["error"].mean() == pytest.approx(d.error)
    assert table.loc[(2022, "de-en", "A", "D"), "error"] == pytest.approx(d.pair_error[1])
    with pytest.raises(ValueError, match="labelled by different pairs"):
        spalib.decompose_pairwise_error(predictions, labels.rename(columns={"B": "Z"}, level="second"))
    # a constant prediction as a Series, matched by pair too
    optimal = (labels.mean(axis=0) > 0.5).astype(np.int8)
    assert spalib.decompose_pairwise_error(optimal[::-1], labels, no_bias=True).bias == 0


def test_sample_size_is_keyed_like_the_systems():
    keys = ROWS[KEYS]
    boot = spalib.bootstrap_system_scores(ROWS["score"], keys, n_resamples=20, rng=3,
                                          sample_size={k: 1 for k in spalib.bootstrap_system_scores(
                                              ROWS["score"], keys, n_resamples=1, rng=0).systems})
    assert np.isin(boot.scores, ROWS["score"]).all()   # one draw: each score is a row's score
    with pytest.raises(ValueError, match="no entry for"):
        spalib.bootstrap_system_scores(ROWS["score"], keys, n_resamples=20, sample_size={"A": 1})


@pytest.mark.parametrize("systems, message", [
    (ROWS[["year", "lp"]].assign(system=["A", None, "B", "B", "A", "C", "A", "D"]),
     r"`systems` has 1 missing key\(s\) \(column 'system'\), the first at row 1"),
    (ROWS[KEYS].assign(year=[2022, "2022", 2022, 2022, 2021, 2021, 2022, 2022]),
     r"`systems` mixes key types \(column 'year'\)"),
    (ROWS[KEYS].iloc[:3].to_numpy().tolist(), r"`systems` must be one label per row, or key columns"),
    (pd.DataFrame({"system": ["A", "B", "C"]}).set_axis(range(3)).to_numpy()[:, 0],
     r"`systems` must give one key per row \(8\)"),
    (ROWS[KEYS].set_axis(range(10, 18)), "different indexes"),
])
def test_bootstrap_rejects_bad_key_columns(systems, message):
    with pytest.raises(ValueError, match=message):
        spalib.bootstrap_system_scores(ROWS["score"], systems, n_resamples=10, rng=1)


@pytest.mark.parametrize("kwargs, message", [
    (dict(within="team"), r"`within` names \['team'\], which are not key columns"),
    (dict(within=["year", "lp", "system"]), "no system would be left to pair"),
])
def test_system_pairs_rejects_bad_groups(kwargs, message):
    with pytest.raises(ValueError, match=message):
        spalib.system_pairs(ROWS[KEYS].drop_duplicates(), **kwargs)
    with pytest.raises(ValueError, match=r"system 'A' appears twice in group \{'year': 2022, 'lp': 'zh-en'\}"):
        spalib.system_pairs(ROWS[KEYS], within=["year", "lp"])


# --- corpus metrics equal to sacrebleu, on real WMT22 data ----------------------------------

@pytest.fixture(scope="module")
def livonian():
    texts = data.load_wmt_toen_texts(2022, "lv-en")
    return texts.outputs["NiuTrans"], texts.references[texts.std_ref]


@pytest.mark.parametrize("metric, sacrebleu_metric, n", [("bleu", BLEU(), 420), ("chrf", CHRF(), 420), ("ter", TER(), 120)])
def test_corpus_scores_equal_sacrebleu_on_full_and_resampled_corpora(livonian, metric, sacrebleu_metric, n):
    hyps, refs = livonian[0][:n], livonian[1][:n]
    stats = segment_statistics(metric, hyps, refs, cache=False)
    assert corpus_score(metric, stats.sum(axis=0)) == sacrebleu_metric.corpus_score(hyps, [refs]).score
    # a resample drawn by the bootstrap kernel's own stream
    counts = np.empty(n)
    _resample_counts(np.uint64(12345), 0, n, counts)
    rows = np.repeat(np.arange(n), counts.astype(int))
    expected = sacrebleu_metric.corpus_score([hyps[i] for i in rows], [[refs[i] for i in rows]]).score
    assert corpus_score(metric, stats[rows].sum(axis=0)) == expected
    # ... and the kernel computes the same score for that trial
    boot = spalib.bootstrap_system_scores(stats, np.zeros(n), metric=metric, n_resamples=3, rng=0)
    seed = np.random.default_rng(0).integers(0, np.iinfo(np.uint64).max, size=3, dtype=np.uint64, endpoint=True)[1]
    _resample_counts(seed, 0, n, counts)
    rows = np.repeat(np.arange(n), counts.astype(int))
    assert boot.scores[1, 0] == sacrebleu_metric.corpus_score([hyps[i] for i in rows], [[refs[i] for i in rows]]).score
    assert boot.observed[0] == sacrebleu_metric.corpus_score(hyps, [refs]).score


def test_segment_statistics_cache_round_trip(livonian, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    hyps, refs = livonian[0][:50], livonian[1][:50]
    first = segment_statistics("bleu", hyps, refs)
    assert len(list((tmp_path / "spalib" / "sacrebleu-statistics").glob("bleu-*.npy"))) == 1
    assert np.array_equal(segment_statistics("bleu", hyps, refs), first)
    with pytest.raises(ValueError, match="50 hypotheses but 49 references"):
        segment_statistics("bleu", hyps, refs[:49])
    with pytest.raises(ValueError, match="`metric` must be one of"):
        segment_statistics("meteor", hyps, refs)


def test_segment_statistics_in_parallel_equal_serial(livonian):
    hyps = (livonian[0] * 5)[:2100]
    refs = (livonian[1] * 5)[:2100]
    parallel = segment_statistics("bleu", hyps, refs, cache=False, n_jobs=2)
    assert np.array_equal(parallel, segment_statistics("bleu", hyps, refs, cache=False, n_jobs=1))


@pytest.mark.parametrize("statistics, message", [([1.0, 2.0, 3.0], "2 columns"), ([-1.0, 2.0], "non-negative")])
def test_corpus_score_rejects_bad_statistics(statistics, message):
    with pytest.raises(ValueError, match=message):
        corpus_score("ter", statistics)


def test_is_lower_better_is_true_for_ter_only():
    assert [is_lower_better(m) for m in ("bleu", "chrf", "ter")] == [False, False, True]
    assert spalib.bootstrap_system_scores([[1.0, 4.0]], ["a"], metric="ter", n_resamples=2, rng=0).lower_is_better
    with pytest.raises(ValueError, match="`metric` must be one of"):
        is_lower_better("mean")


def test_pair_labels_never_turn_a_missing_score_into_a_label():
    mqm = pd.Series({"A": -1.0, "B": -2.0, "C": np.nan, "D": -0.5})
    pairs = spalib.system_pairs(["A", "B", "C", "D", "E"])
    with pytest.raises(ValueError, match=r"no score for \['C', 'E'\]"):
        spalib.pair_labels(mqm, pairs)
    out = spalib.pair_labels(mqm, pairs, missing="drop")
    assert out.pairs.to_numpy().tolist() == [["A", "B"], ["A", "D"], ["B", "D"]] and out.unscored == ["C", "E"]
    assert out.labels.to_dict() == {("A", "B"): 1, ("A", "D"): 0, ("B", "D"): 0} and int(out.kept.sum()) == 3
    assert spalib.pair_labels(-mqm, out.pairs, lower_is_better=True).labels.tolist() == [1, 0, 0]
    # (a, b) tuples give the same result type: a pair frame and labels indexed by its columns
    tuples = spalib.pair_labels(mqm, [("A", "B"), ("A", "D")])
    assert tuples.pairs.to_numpy().tolist() == [["A", "B"], ["A", "D"]] and tuples.labels.tolist() == [1, 0]
    assert tuples.labels.to_dict() == {("A", "B"): 1, ("A", "D"): 0}
    with pytest.raises(ValueError, match="tie"):
        spalib.pair_labels(pd.Series({"A": 1.0, "B": 1.0}), [("A", "B")])
    with pytest.raises(TypeError, match="pandas Series"):
        spalib.pair_labels(mqm.to_numpy(), pairs)
    with pytest.raises(ValueError, match="missing"):
        spalib.pair_labels(mqm, pairs, missing="zero")
    with pytest.raises(TypeError, match="`scores` must hold real numbers"):
        spalib.pair_labels(pd.Series({"A": "-1.0x", "B": -2.0}), [("A", "B")])


def test_pair_labels_read_system_names_or_full_keys_from_a_pair_frame():
    pairs = spalib.system_pairs(ROWS[KEYS].drop_duplicates(), within=["year", "lp"])
    zh = pairs[(pairs["year"] == 2022) & (pairs["lp"] == "zh-en")]
    by_name = spalib.pair_labels(pd.Series({"A": 1.0, "B": 3.0}).rename_axis("system"), zh)
    assert by_name.labels.to_dict() == {(2022, "zh-en", "A", "B"): 0}
    full = pd.Series([1.0, 3.0, 2.0, 0.5], index=pd.MultiIndex.from_tuples(
        [(2022, "zh-en", "A"), (2022, "zh-en", "B"), (2021, "zh-en", "A"), (2021, "zh-en", "C")], names=KEYS))
    out = spalib.pair_labels(full, pairs, missing="drop")
    assert out.labels.to_dict() == {(2022, "zh-en", "A", "B"): 0, (2021, "zh-en", "A", "C"): 1}
    assert out.kept.tolist() == [True, True, False] and out.unscored == [(2022, "de-en", "A"), (2022, "de-en", "D")]
    # labels and observed predictions of the same pair frame line up by pair
    boot = spalib.bootstrap_system_scores(ROWS["score"], ROWS[KEYS], n_resamples=10, rng=0)
    assert (boot.observed_predictions(pairs)[out.kept] == out.labels).tolist() == [True, False]
    with pytest.raises(ValueError, match=r"index levels \[None, None, None\] must all be named"):
        spalib.pair_labels(full.set_axis(full.index.set_names([None] * 3)), pairs)


def test_perfect_annotator_takes_key_columns():
    rows = pd.DataFrame({"system": ["A", "A", "A", "B", "B", "B"], "sid": [1, 1, 2, 1, 1, 2],
                         "score": [70.0, 80.0, 50.0, 20.0, 30.0, 90.0], "worker": ["u", "v", "u", "u", "w", "v"]})
    glued = rows["system"] + " " + rows["sid"].astype(str)
    by_columns = spalib.perfect_annotator(rows["score"], rows[["system", "sid"]])
    assert by_columns == spalib.perfect_annotator(rows["score"], glued)
    assert by_columns.within_variance == pytest.approx(50.0) and by_columns.n_repeated_outputs == 2
    assert spalib.perfect_annotator(rows["score"], rows[["system", "sid"]], annotators=rows["worker"]).n_pairs == 2


@pytest.mark.parametrize("effect", [2.0, 3.0, 4.0, 5.0])
def test_power_solves_the_equation_where_scipy_lower_tail_is_nan(effect):
    # scipy's nct.cdf is NaN deep in the lower tail (e.g. df 70, nc 10): the tail is read by symmetry
    from scipy import stats

    n1 = spalib.judgements_for_power(effect, 1) / 2
    df, nc = 2 * n1 - 2, effect * np.sqrt(n1 / 2)
    crit = stats.t.isf(0.025, df)
    assert stats.nct.sf(crit, df, nc) + stats.nct.sf(crit, df, -nc) == pytest.approx(0.95, abs=1e-9)


def _splitmix_rows(seed, group, n_draws, n_rows):
    """The bootstrap's draws one after another, a step of the SplitMix64 state each, in NumPy."""
    golden = np.uint64(GOLDEN)
    rows = np.empty(n_draws, dtype=np.uint64)
    with np.errstate(over="ignore"):
        state = splitmix64(np.uint64(seed) ^ splitmix64(np.uint64(group + 1) * golden))
        for i in range(n_draws):
            state = state + golden
            rows[i] = (splitmix64(state) >> np.uint64(32)) * np.uint64(n_rows) >> np.uint64(32)
    return rows


@pytest.mark.parametrize("n_draws", [0, 1, 511, 512, 513, 1300])
def test_batched_draws_follow_the_stream_one_draw_after_another(n_draws):
    """The kernels draw rows in batches (SIMD): the rows, their counts and the in-order sum are
    those of drawing one row after another, across batch boundaries too."""
    seed, group = np.uint64(2**63 + 11), 4
    values = np.random.default_rng(5).normal(size=97)
    rows = _splitmix_rows(seed, group, n_draws, values.size)
    drawn = np.empty(n_draws, dtype=np.uint64)
    after = _draw_rows(stream_key(seed, group), values.size, drawn)
    assert np.array_equal(drawn, rows)
    assert after == (int(stream_key(seed, group)) + n_draws * GOLDEN) % 2**64   # the state after them
    counts = np.empty(values.size)
    _resample_counts(seed, group, n_draws, counts)
    assert np.array_equal(counts, np.bincount(rows.astype(np.int64), minlength=values.size))
    expected = 0.0
    for row in rows:
        expected += values[row]
    assert _resample_sum(seed, group, n_draws, values) == expected

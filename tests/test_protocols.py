"""WMT's ranking protocols: the task sets, the new meta-metrics (Pearson, pooled PA) and the
toolkit's own values (spalib/data/results/protocol_toolkit_k0.csv, from benchmarks/bench_protocol.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import spalib
from mtme_reference import reference_pvalues
from spalib import data
from spalib._core import engine, rng as rng_kernels
from spalib.cli import main
from spalib.metametrics import _compare_metrics_iv, _Pearson
from spalib.protocols import _PooledAccuracy


@pytest.fixture(scope="module")
def toolkit():
    return pd.read_csv(data.book_table("results/protocol_toolkit_k0.csv"))


@pytest.fixture(scope="module")
def wmt23_k0():
    return spalib.run_protocol(spalib.protocol("wmt23"), n_resamples=0)


@pytest.fixture(scope="module")
def wmt24_on_wmt23_k0():
    return spalib.run_protocol(spalib.protocol("wmt24", test_set="wmt23"), n_resamples=0)


# --- the task sets, as mt-metrics-eval's tasks.py (68a481a) defines them ----------------------------

def test_wmt23_is_ten_tasks_with_the_pooled_accuracy_weighted_three():
    proto = spalib.protocol("wmt23")
    assert [t.name for t in proto.tasks] == ["en-de,he-en,zh-en sys pa"] + [
        f"{lp} {level} {stat}" for lp in ("en-de", "he-en", "zh-en")
        for level, stat in (("sys", "pearson"), ("seg", "pearson"), ("seg", "acc_eq"))]
    assert [t.weight for t in proto.tasks] == pytest.approx([3 / 12] + [1 / 12] * 9, rel=1e-15)
    assert [t.human_systems for t in proto.tasks] == [True] + [False] * 3 + [True] * 3 + [False] * 3
    assert proto.early_stopping == spalib.WMT_EARLY_STOPPING and proto.primary_only


@pytest.mark.parametrize("name, test_set, lps, human", [
    ("wmt24", None, ["en-de", "en-es", "ja-zh"], {"en-de"}),
    ("wmt24", "wmt23", ["en-de", "he-en", "zh-en"], {"he-en"}),
    ("wmt25", None, None, set()),
])
def test_wmt24_and_wmt25_are_spa_and_acc_eq_per_language_pair_equally_weighted(name, test_set, lps, human):
    proto = spalib.protocol(name, test_set=test_set)
    lps = lps or proto.lps
    assert len(proto.tasks) == 2 * len(lps) and proto.lps == lps
    assert [t.name for t in proto.tasks] == [f"{lp} {kind}" for lp in lps for kind in ("sys spa", "seg acc_eq")]
    assert [t.weight for t in proto.tasks] == pytest.approx([1 / len(proto.tasks)] * len(proto.tasks), rel=1e-15)
    assert {lp for t in proto.tasks if t.human_systems for lp in t.lps} == human


def test_a_protocol_is_data_a_user_can_change():
    proto = spalib.protocol("wmt23", lps=["zh-en", "en-de"])
    assert proto.lps == ["en-de", "zh-en"] and proto.tasks[0].weight == pytest.approx(2 / 8)
    fewer = dataclasses.replace(proto, tasks=proto.tasks[1:3])
    assert list(spalib.protocol("wmt23").table().columns) == ["task", "lps", "level", "meta_metric", "weight",
                                                              "human_systems"]
    result = spalib.run_protocol(fewer, n_resamples=0)
    assert list(result.comparisons) == ["en-de sys pearson", "en-de seg pearson"]
    by_item = dataclasses.replace(fewer, tasks=(dataclasses.replace(fewer.tasks[1], grouping="item"),))
    found = data.segment_task(data.load_mtme("wmt23", "en-de"), reference_free=True, primary_only=True,
                              basenames=True)
    scores = spalib.run_protocol(by_item, n_resamples=0).comparisons["en-de seg pearson by item"].scores
    assert scores["COMET"] == pytest.approx(_scipy_pearson(found.human.to_numpy(),
                                                           found.metrics["COMET"].to_numpy(), "item"), abs=1e-12)
    with pytest.raises(ValueError, match="only a segment-level Pearson task is grouped"):
        spalib.run_protocol(dataclasses.replace(fewer, tasks=(dataclasses.replace(fewer.tasks[0], grouping="item"),)),
                            n_resamples=0)


def test_protocol_arguments_are_checked():
    with pytest.raises(ValueError, match="`name` must be one of"):
        spalib.protocol("wmt22")
    with pytest.raises(ValueError, match="no default language pairs"):
        spalib.protocol("wmt23", test_set="wmt22")
    with pytest.raises(ValueError, match="each once"):
        spalib.protocol("wmt23", lps=["en-de", "en-de"])
    proto = spalib.protocol("wmt23")
    bad = dataclasses.replace(proto, tasks=(dataclasses.replace(proto.tasks[1], lps=("en-de", "zh-en")),))
    with pytest.raises(ValueError, match="only system-level pairwise accuracy pools"):
        spalib.run_protocol(bad, n_resamples=0)
    with pytest.raises(TypeError, match="must be a Protocol"):
        spalib.run_protocol("wmt23")
    with pytest.raises(ValueError, match="'Mine' has no scores for he-en"):
        spalib.run_protocol(proto, n_resamples=0, extra_metrics={"en-de": {"Mine": "x"}})
    with pytest.raises(ValueError, match="lower_is_better_metrics: no metric named Nope"):
        spalib.run_protocol(proto, n_resamples=0, lower_is_better_metrics="Nope")


# --- equal to mt-metrics-eval's values (k = 0) ----------------------------------------------------

def _toolkit_rows(toolkit, protocol_name, task):
    rows = toolkit[(toolkit.protocol == protocol_name) & (toolkit.task == task)]
    return rows.set_index("metric")


def test_wmt23_equals_the_toolkit_task_by_task_and_averaged(toolkit, wmt23_k0):
    for task, comparison in wmt23_k0.comparisons.items():
        theirs = _toolkit_rows(toolkit, "wmt23", task)
        assert set(theirs.index) == set(comparison.scores.index), task
        np.testing.assert_allclose(comparison.scores[theirs.index], theirs.score, rtol=0, atol=1e-12, err_msg=task)
        assert (comparison.ranks[theirs.index] == theirs["rank"]).all(), task
    theirs = _toolkit_rows(toolkit, "wmt23", "average")
    avg = wmt23_k0.average
    assert list(avg.scores.index) == list(theirs.index)              # the same order, 32 metrics
    np.testing.assert_allclose(avg.scores, theirs.score, rtol=0, atol=1e-12)
    np.testing.assert_allclose(avg.mean_task_ranks, theirs["rank"], rtol=0, atol=1e-12)   # AverageRanks
    assert avg.scores.index[0] == "XCOMET-Ensemble" and round(avg.scores.iloc[0], 3) == 0.825   # WMT23's table


def test_wmt24_on_wmt23_equals_the_toolkit_but_where_its_spa_depends_on_system_order(toolkit, wmt24_on_wmt23_k0):
    """The toolkit takes each pair's p-value in the order Python iterates a set of system names
    (its hash seed), in float32 products whose rounding is numpy's: where a metric's null sums
    tie its observed one, that order and rounding move the p-value by 1/1000.  spalib orders
    systems by name.  Its SPA equals the toolkit's for most metrics, and for the others lies
    within 1/1000 of a pair's p-value of it; the acc_eq tasks are equal throughout.  The humans'
    float32 p-values depend on the BLAS that multiplies them (the toolkit's too): on another
    machine one human pair can move by 1/1000, which shifts every metric's SPA alike, so "equal"
    is up to one shift shared by the task's metrics, of at most a few pairs' steps."""
    result = wmt24_on_wmt23_k0
    for task, comparison in result.comparisons.items():
        theirs = _toolkit_rows(toolkit, "wmt24 on wmt23", task)
        assert set(theirs.index) == set(comparison.scores.index), task
        signed = comparison.scores[theirs.index] - theirs.score
        if task.endswith("acc_eq"):
            assert signed.abs().max() < 1e-12, task
        else:
            shift = signed.round(9).mode()[0]            # the humans' share, common to all
            same = (signed - shift).abs() < 1e-9         # far below a step (1e-5)
            assert same.sum() >= 28 and abs(shift) < 1e-4, (task, shift, signed[~same])
            assert signed.abs().max() < 1e-3, task
    assert result.average.scores.index[0] == "GEMBA-MQM[noref]"


def test_the_toolkits_spa_of_a_tying_metric_depends_on_the_order_of_the_systems():
    found = data.segment_task(data.load_mtme("wmt23", "en-de"), reference_free=True, primary_only=True,
                              basenames=True)
    h, m = found.human.to_numpy(), found.metrics["GEMBA-MQM[noref]"].to_numpy()   # scores in steps of 0.5 and 1
    upper, rng = np.triu_indices(len(h), 1), np.random.default_rng(0)
    values = set()
    for _ in range(10):
        order = rng.permutation(len(h))
        values.add(1 - np.mean(np.abs(reference_pvalues(h[order])[upper] - reference_pvalues(m[order])[upper])))
    assert len(values) > 1 and max(values) - min(values) > 1e-4
    ours = spalib.soft_pairwise_accuracy(found.human, found.metrics["GEMBA-MQM[noref]"], rng=4, signs="mtme")
    shuffled = spalib.soft_pairwise_accuracy(found.human.iloc[::-1], found.metrics["GEMBA-MQM[noref]"].iloc[::-1],
                                             rng=4, signs="mtme")
    assert ours.statistic == shuffled.statistic                     # spalib's does not


# --- the new meta-metrics' draws, against a direct computation -----------------------------------

def _toy(seed=0, n_systems=5, n_segments=12):
    rng = np.random.default_rng(seed)
    human = pd.DataFrame(rng.normal(size=(n_systems, n_segments)))
    return human, {"a": human + rng.normal(size=human.shape), "b": human + 2 * rng.normal(size=human.shape)}


def _scipy_pearson(h, m, grouping):
    """Pearson's r with scipy: over all cells, or the mean over segments (columns) or systems (rows)
    where neither side is constant (mt-metrics-eval leaves those out)."""
    if grouping == "none":
        return scipy.stats.pearsonr(h.ravel(), m.ravel())[0]
    pairs = zip(h.T, m.T) if grouping == "item" else zip(h, m)
    return np.mean([scipy.stats.pearsonr(x, y)[0] for x, y in pairs if np.ptp(x) > 0 and np.ptp(y) > 0])


@pytest.mark.parametrize("grouping", ["none", "item", "system"])
def test_pearson_is_scipys_and_its_draws_are_the_swapped_hybrids(grouping):
    human, metrics = _toy()
    comparison = spalib.compare_metrics(human, metrics, meta_metric="pearson", grouping=grouping, n_resamples=64,
                                        rng=7)
    h = human.to_numpy()
    for name, m in metrics.items():
        assert comparison.scores[name] == pytest.approx(_scipy_pearson(h, m.to_numpy(), grouping), abs=1e-14)
    plan = _compare_metrics_iv(human, metrics, "pearson", 64, 7, "bits", 1000, "permutation", "ge", "both", None,
                               0.05, False, "greater", grouping)
    better, worse = comparison.scores.index
    key = engine.pair_key(plan.seed, "perm", "a", "b")
    swaps = np.unpackbits(rng_kernels.swap_masks(key, 0, 64, 0, 5, 2), axis=-1, bitorder="little")[..., :12]
    a, b = plan.metrics[worse], plan.metrics[better]
    by_hand = [_scipy_pearson(h, np.where(w, a, b), grouping) - _scipy_pearson(h, np.where(w, b, a), grouping)
               for w in swaps.astype(bool)]
    np.testing.assert_allclose(comparison.null_distributions[(better, worse)], by_hand, rtol=0, atol=1e-12)
    delta, _, _ = _Pearson(plan).pair(better, worse)
    assert comparison.pvalues.loc[better, worse] == np.mean(np.asarray(by_hand) >= delta)
    assert comparison.settings["grouping"] == grouping


def test_grouping_is_pearsons_alone():
    human, metrics = _toy()
    with pytest.raises(ValueError, match="`grouping` applies to meta_metric 'pearson'"):
        spalib.compare_metrics(human, metrics, meta_metric="pa", grouping="item")
    with pytest.raises(ValueError, match="`grouping` must be one of"):
        spalib.compare_metrics(human, metrics, meta_metric="pearson", grouping="segment")


def test_a_constant_metric_has_no_pearson():
    human, metrics = _toy()
    with pytest.raises(ValueError, match=r"metrics\['c'\] scores every cell of every group alike"):
        spalib.compare_metrics(human, {**metrics, "c": human * 0 + 1}, meta_metric="pearson", n_resamples=0)


def test_pooled_accuracy_counts_pairs_within_each_language_pair_and_swaps_whole_systems():
    rng = np.random.default_rng(3)
    index = pd.MultiIndex.from_tuples([(lp, f"s{k}") for lp, n in (("x", 4), ("y", 5)) for k in range(n)],
                                      names=["lp", "system"])
    human = pd.Series(rng.normal(size=9), index=index)
    human.iloc[2] = np.nan                                  # a system without a human score: its pairs skipped
    metrics = {"a": human.fillna(0) + rng.normal(size=9), "b": pd.Series(rng.normal(size=9), index=index)}
    stat = _PooledAccuracy(human, metrics)
    for name, m in metrics.items():
        agree = pairs = 0
        for lp in ("x", "y"):
            h, v = human[lp].to_numpy(), m[lp].to_numpy()
            for i in range(len(h)):
                for j in range(i + 1, len(h)):
                    if not (np.isnan(h[i]) or np.isnan(h[j])):
                        agree += np.sign(h[i] - h[j]) == np.sign(v[i] - v[j])
                        pairs += 1
        assert pairs == 3 + 10 and stat.scores[name] == agree / pairs
    delta, _, draw = stat.pair("a", "b")
    key = engine.pair_key(11, "perm", "a", "b")
    swapped = rng_kernels.swap_masks(key, 0, 30, 0, 9, 1)[:, :, 0] & 1
    z = {n: (m - m.mean()) / m.std(ddof=0) for n, m in metrics.items()}     # z-scored over both pairs together
    expected = [stat._accuracy(np.where(w, z["b"], z["a"])[None])[0] - stat._accuracy(np.where(w, z["a"], z["b"])[None])[0]
                for w in swapped.astype(bool)]                     # better' takes worse's swapped systems
    np.testing.assert_allclose(draw(key, 0, 30), expected, rtol=0, atol=1e-15)


def test_pearson_tasks_are_rescaled_to_0_1_before_averaging():
    human, metrics = _toy(1)
    r = spalib.compare_metrics(human, metrics, meta_metric="pearson", n_resamples=50, rng=1)
    pa = spalib.compare_metrics(human, metrics, meta_metric="pa", n_resamples=50, rng=2)
    avg = spalib.average_comparisons({"r": r, "pa": pa}, weights={"r": 1, "pa": 3})
    for name in metrics:
        assert avg.scores[name] == pytest.approx(0.25 * (r.scores[name] + 1) / 2 + 0.75 * pa.scores[name], abs=1e-15)
    best, worst = avg.scores.index
    summed = 0.25 * r.null_draws(best, worst) / 2 + 0.75 * pa.null_draws(best, worst)
    assert avg.pvalues.loc[best, worst] == pytest.approx(np.mean(summed >= avg.scores[best] - avg.scores[worst]))
    assert avg.settings["weights"] == {"r": 0.25, "pa": 0.75}


# --- with significance, an added metric, the command ----------------------------------------------

def test_a_run_with_significance_is_the_same_run_after_run_and_clusters_the_average(wmt23_k0):
    proto = spalib.protocol("wmt23", lps=["en-de"])
    assert proto.name == "wmt23 (en-de only)" and spalib.protocol("wmt23").name == "wmt23"
    once = spalib.run_protocol(proto, n_resamples=40, rng=5)
    assert once.settings["seed"] == 5 and "seed 5;" in once.to_string()   # an int seed is kept
    again = spalib.run_protocol(proto, n_resamples=40, rng=5)
    pd.testing.assert_frame_equal(once.table(), again.table())
    assert once.average.ranks.is_monotonic_increasing and once.average.ranks.max() > 1
    assert once.average.pvalues.notna().sum().sum() == len(once.average.scores) * (len(once.average.scores) - 1) / 2
    assert "clusters at p <= 0.05" in once.to_string()


def test_an_added_metric_lands_in_the_table(tmp_path):
    proto = spalib.protocol("wmt24", test_set="wmt23", lps=["en-de"])
    es = data.load_mtme("wmt23", "en-de")
    mine = es.seg_scores("COMET-refA") + 0.01      # COMET shifted: the same ranks everywhere
    result = spalib.run_protocol(proto, n_resamples=0, extra_metrics={"en-de": {"Mine": mine}})
    table = result.table()
    for task in result.comparisons:
        assert table.loc["Mine", task] == pytest.approx(table.loc["COMET", task], abs=1e-12)
    assert result.place("Mine").startswith(f"Mine: {list(table.index).index('Mine') + 1} of {len(table)} by the ")


def test_the_command_prints_the_protocol_table_and_refuses_options_it_fixes(capsys, toolkit):
    assert main(["rank", "--protocol", "wmt23", "--lp", "en-de", "--k", "0", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Protocol wmt23 (en-de only): 4 tasks on wmt23 (en-de); no significance test (k = 0)")
    assert out.splitlines()[4].startswith("XCOMET-Ensemble")
    for given in (["--meta-metric", "pa"], ["--stat", "spa", "pa"], ["--bootstrap=1000"]):   # defaults too
        assert main(["rank", "--protocol", "wmt23", *given]) == 2
        assert f"{given[0].split('=')[0]} does not apply with --protocol" in capsys.readouterr().err
    assert main(["rank", "--k", "0"]) == 2
    assert "give --test-set and --lp (or --protocol)" in capsys.readouterr().err


def test_the_command_warns_about_an_added_metric_before_running_the_protocol(tmp_path, capsys):
    es = data.load_mtme("wmt23", "en-de")
    path = data.write_seg_score_file(-es.seg_scores("COMET-refA"), tmp_path / "reversed.seg.score")
    assert main(["rank", "--protocol", "wmt24", "--test-set", "wmt23", "--lp", "en-de", "--k", "0", "--quiet",
                 "--add", f"Reversed={path}"]) == 0
    out = capsys.readouterr()
    assert "warning: en-de: Reversed" in out.err and "--lower-is-better" in out.err
    assert out.out.rstrip().splitlines()[-1].startswith("Reversed: ")


def test_a_group_of_equal_scores_is_left_out_though_its_rounded_mean_is_off():
    human, metrics = _toy(2)
    flat = metrics["a"].copy()
    flat[3] = 0.1                                          # five 0.1s: their rounded mean is not 0.1
    scores = spalib.compare_metrics(human, {"flat": flat, "b": metrics["b"]}, meta_metric="pearson",
                                    grouping="item", n_resamples=0).scores
    assert scores["flat"] == pytest.approx(_scipy_pearson(human.to_numpy(), flat.to_numpy(), "item"), abs=1e-14)


@pytest.mark.parametrize("name, lps, names", [
    ("wmt24", ["en-de", "en-es", "ja-zh"], ("XCOMET", "BLEU")),          # en-de ranks its refA
    ("wmt25", ["cs-de_DE", "en-ar_EG"], ("GEMBA-v2", "MetricX-25")),
])
def test_wmt24_and_wmt25_run_on_a_test_set_in_the_toolkits_layout(tmp_path, monkeypatch, name, lps, names):
    """No WMT24 or WMT25 data here: a small test set in mt-metrics-eval's layout, each task checked
    against the meta-metric computed directly (SPA with the toolkit's seed-4 signs)."""
    from spalib.data.mtme import MTME_META
    from test_ranking import mtme_tree

    for lp in lps:
        meta = MTME_META[(name, lp)]
        refs = ("refA", "refB") if (name, lp) == ("wmt24", "en-de") else (meta.std_ref,)
        mtme_tree(tmp_path, name, lp, meta.std_ref, meta.seg_gold, names[0], refs, n_segments=12)
        folder = tmp_path / "mt-metrics-eval-v2" / name / "metric-scores" / lp
        (folder / f"BLEU-{meta.std_ref}.seg.score").rename(folder / f"{names[1]}-{meta.std_ref}.seg.score")
    monkeypatch.setenv("SPALIB_DATA", str(tmp_path))
    result = spalib.run_protocol(spalib.protocol(name, lps=lps), n_resamples=20, rng=1)
    assert list(result.comparisons) == [f"{lp} {kind}" for lp in lps for kind in ("sys spa", "seg acc_eq")]
    for lp in lps:
        ranks_human = (name, lp) == ("wmt24", "en-de")
        found = data.segment_task(data.load_mtme(name, lp), reference_free=True, primary_only=True, basenames=True,
                                  include_human_systems=ranks_human)
        assert ("refA" in found.human.index) == ranks_human and set(found.metrics) == set(names)
        for metric, scores in found.metrics.items():
            spa = spalib.soft_pairwise_accuracy(found.human, scores, rng=4, signs="mtme").statistic
            acc = spalib.tie_calibration(found.human, scores, variant="acc_eq", grouping="item").statistic
            assert result.comparisons[f"{lp} sys spa"].scores[metric] == pytest.approx(spa, abs=1e-12)
            assert result.comparisons[f"{lp} seg acc_eq"].scores[metric] == pytest.approx(acc, abs=1e-12)
    average = {m: np.mean([c.scores[m] for c in result.comparisons.values()]) for m in names}
    for metric in names:
        assert result.average.scores[metric] == pytest.approx(average[metric], abs=1e-12)
    assert result.average.pvalues.notna().sum().sum() == 1 and result.average.draws.iloc[0, 1] > 0


def test_a_metric_missing_a_ranked_human_translation_is_told_to_score_it(tmp_path):
    es = data.load_mtme("wmt23", "he-en")
    without_refa = es.seg_scores("chrF-refB").drop(index="refA")
    with pytest.raises(ValueError, match="refA: a human translation ranked as a system; score it like the others, "
                                         "against the standard reference refB"):
        data.segment_task(es, extra_metrics={"Mine": without_refa})

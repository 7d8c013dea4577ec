"""Ranking your own metric: meta information, extra metrics, intervals, averages, the command line."""

from __future__ import annotations

import re
import numpy as np
import pandas as pd
import pytest
import scipy.stats

import spalib
from conftest import output_per_thread_count
from spalib import data
from spalib._core import bootstrap
from spalib.cli import main
from spalib.data.mtme import MTME_META
from spalib.ranking import WRONG_REFERENCE_SHARE, _reference_win_share, _warnings_of_added_metrics


@pytest.fixture(scope="module")
def en_de():
    return data.load_mtme("wmt23", "en-de")


def ensemble(es):
    """A real new metric: the mean of z-scored chrF and COMET (a released lexical and neural one)."""
    parts = [es.seg_scores(name) for name in ("chrF-refA", "COMET-refA")]
    return sum((p - np.nanmean(p.to_numpy())) / np.nanstd(p.to_numpy()) for p in parts) / 2


def test_meta_information_covers_every_mt_metrics_eval_test_set():
    assert len(MTME_META) == 177
    assert {t for t, _ in MTME_META} == {"wmt19", "wmt20", "wmt21.news", "wmt21.tedtalks", "wmt21.flores",
                                        "wmt22", "wmt23", "wmt23.sent", "wmt24", "wmt24pp", "wmt25"}
    wmt24 = {lp: m for (t, lp), m in MTME_META.items() if t == "wmt24"}
    assert wmt24["en-de"].std_ref == "refB" and wmt24["en-de"].seg_gold == "mqm"
    assert {lp for lp, m in wmt24.items() if m.seg_gold == "mqm"} == {"en-de", "en-es", "ja-zh"}
    assert {m.seg_gold for lp, m in wmt24.items() if lp not in ("en-de", "en-es", "ja-zh")} == {"esa"}
    assert MTME_META[("wmt24pp", "en-de_DE")].std_ref == "posteditB"
    assert sum(t == "wmt24pp" for t, _ in MTME_META) == 55
    wmt25 = {lp: m.seg_gold for (t, lp), m in MTME_META.items() if t == "wmt25"}
    assert wmt25["ja-zh_CN"] == wmt25["en-ko_KR"] == "mqm" and wmt25["cs-de_DE"] == "esa-human1"
    news = MTME_META[("wmt21.news", "en-de")]
    assert (news.std_ref, news.seg_gold, news.sys_gold) == ("refC", "mqm", "mqm")
    assert {"cushLEPOR(LM)", "bleurt-20", "TER"} <= news.primary_metrics
    assert MTME_META[("wmt21.news", "cs-en")].sys_gold == "wmt-z"
    assert MTME_META[("wmt22", "de-fr")].seg_gold is None
    assert MTME_META[("wmt20", "de-en")].outlier_systems == {"yolo.1052", "zlabs-nlp.1153", "WMTBiomedBaseline.387"}
    he_en = MTME_META[("wmt23", "he-en")]
    assert he_en.std_ref == "refB" and len(he_en.primary_metrics) == 32 and len(he_en.baseline_metrics) == 14
    assert he_en.baseline_metrics <= he_en.primary_metrics


def test_primary_only_keeps_primary_and_baseline_base_names(en_de):
    task = data.segment_task(en_de, primary_only=True, reference_free=True)
    bases = {en_de.metric_basename(m) for m in task.metrics}
    assert bases <= MTME_META[("wmt23", "en-de")].primary_metrics
    assert "XCOMET-XXL-refA" in task.report["metrics_excluded"] and "MetricX-23-refA" in task.metrics
    assert "CometKiwi-src" in task.metrics


def test_extra_metric_from_file_frame_and_long_frame_agree(en_de, tmp_path):
    frame = ensemble(en_de)
    path = data.write_seg_score_file(frame, tmp_path / "Ensemble.seg.score")
    long = frame.stack(future_stack=True).rename("score").reset_index()
    wide = data.from_long(long, system="system", item="segment", score="score", n_segments=len(en_de.segments))
    tasks = [data.segment_task(en_de, extra_metrics={"Ensemble": source}) for source in (path, frame, wide)]
    for task in tasks[1:]:
        pd.testing.assert_frame_equal(task.metrics["Ensemble"], tasks[0].metrics["Ensemble"])
        pd.testing.assert_frame_equal(task.human, tasks[0].human)
    info = tasks[0].report["extra_metrics"]["Ensemble"]
    assert info["source"] == str(path) and info["systems_ignored"] == ["synthetic_ref"]
    assert tasks[0].human.shape == (12, 460) and len(tasks[0].metrics) == 26


def test_mismatched_metric_files_name_the_differences(en_de, tmp_path):
    frame = ensemble(en_de)
    renamed = data.write_seg_score_file(frame.rename(index={"ONLINE-A": "MyMT"}), tmp_path / "a.seg.score")
    with pytest.raises(ValueError, match="system\\(s\\) MyMT are not in wmt23/en-de"):
        data.segment_task(en_de, extra_metrics={"M": renamed})
    with pytest.raises(ValueError, match="no scores for system\\(s\\) ONLINE-A, ONLINE-B"):
        data.segment_task(en_de, extra_metrics={"M": frame.drop(["ONLINE-A", "ONLINE-B"])})
    with pytest.raises(ValueError, match="556 segment columns, wmt23/en-de has 557 segments"):
        data.segment_task(en_de, extra_metrics={"M": frame.iloc[:, 1:]})
    short = data.write_seg_score_file(frame.iloc[:, 1:], tmp_path / "b.seg.score")
    with pytest.raises(ValueError, match=r"b.seg.score:556: system 'AIRC' has 556 lines, the test set has 557"):
        data.segment_task(en_de, extra_metrics={"M": short})
    with pytest.raises(ValueError, match="COMET-refA already name"):
        data.segment_task(en_de, extra_metrics={"COMET-refA": frame})
    with pytest.raises(ValueError, match="segment 2.5 is not an integer"):
        data.from_long(pd.DataFrame({"system": ["A"], "segment": [2.5], "score": [1.0]}))
    with pytest.raises(ValueError, match="appears twice"):
        data.from_long(pd.DataFrame({"system": ["A", "A"], "segment": [0, 0], "score": [1.0, 2.0]}))


def test_missing_scores_of_an_extra_metric_drop_segments_and_are_reported(en_de):
    frame = ensemble(en_de)
    frame.iloc[0, :5] = np.nan
    task = data.segment_task(en_de, extra_metrics={"M": frame})
    full = data.segment_task(en_de)
    assert task.report["extra_metrics"]["M"]["segments_without_score"] == 5
    assert task.report["segments_kept"] == full.report["segments_kept"] - int(full.human.columns.isin(range(5)).sum())


def test_unknown_test_sets_and_pairs_are_clear_errors():
    with pytest.raises(ValueError, match="unknown test set 'wmt99'; mt-metrics-eval has wmt19"):
        data.load_mtme("wmt99", "en-de")
    with pytest.raises(ValueError, match="wmt23 has no language pair 'xx-en'; it has cs-uk"):
        data.load_mtme("wmt23", "xx-en")
    with pytest.raises(FileNotFoundError, match="wmt22/de-en is not in"):
        data.load_mtme("wmt22", "de-en")


def small_case(seed=0, n_systems=12, n_segments=40):
    rng = np.random.default_rng(seed)
    quality = np.linspace(0, 1, n_systems)[:, None]
    human = quality + rng.normal(size=(n_systems, n_segments))
    return human, human + 1.5 * rng.normal(size=(n_systems, n_segments))


def scipy_statistic(stat, human, metric):
    upper = np.triu_indices(len(human), 1)

    def statistic(idx):
        h, m = human[:, idx.astype(int)], metric[:, idx.astype(int)]
        if stat == "pa":
            return spalib.pairwise_accuracy(h.mean(axis=1), m.mean(axis=1))
        if stat == "spa":
            return 1 - np.mean(np.abs(spalib.pairwise_pvalues(h, method="normal")[upper]
                                      - spalib.pairwise_pvalues(m, method="normal")[upper]))
        return spalib.kendall_tau(h, m, variant="acc_eq", epsilon=0.5, grouping="item").statistic
    return statistic


@pytest.mark.parametrize("stat", ["pa", "spa", "acc_eq"])
def test_intervals_agree_with_scipy_bootstrap(stat):
    human, metric = small_case()
    ours = spalib.metric_intervals(pd.DataFrame(human), {"m": pd.DataFrame(metric)}, meta_metric=stat,
                                   n_resamples=4000, rng=1, epsilons={"m": 0.5} if stat == "acc_eq" else None)
    theirs = scipy.stats.bootstrap((np.arange(human.shape[1]),), scipy_statistic(stat, human, metric),
                                   vectorized=False, method="percentile", n_resamples=4000, rng=2)
    # two Monte-Carlo estimates of the same percentiles: a few hundredths apart at most
    assert ours.loc["m", "low"] == pytest.approx(theirs.confidence_interval.low, abs=0.02)
    assert ours.loc["m", "high"] == pytest.approx(theirs.confidence_interval.high, abs=0.02)


def test_interval_arguments_are_checked():
    human, metric = small_case()
    with pytest.raises(ValueError, match="confidence_level"):
        spalib.metric_intervals(human, {"m": metric}, confidence_level=1.0)
    with pytest.raises(ValueError, match="`meta_metric` must be"):
        spalib.metric_intervals(human, {"m": metric}, meta_metric="tau")
    with pytest.raises(ValueError, match="one tie threshold per metric"):
        spalib.metric_intervals(human, {"m": metric}, meta_metric="acc_eq", epsilons={"x": 0.1})


def toy_comparisons(seed=0):
    human, _ = small_case(seed, n_systems=6, n_segments=24)
    rng = np.random.default_rng(seed + 1)
    metrics = {f"m{k}": pd.DataFrame(human + s * rng.normal(size=human.shape)) for k, s in enumerate((0.3, 1, 3))}
    return pd.DataFrame(human), metrics


def test_average_of_one_task_or_of_a_task_twice_is_that_task():
    human, metrics = toy_comparisons()
    one = spalib.compare_metrics(human, metrics, meta_metric="pa", n_resamples=300, rng=3)
    for tasks in ({"a": one}, {"a": one, "b": one}):
        avg = spalib.average_comparisons(tasks)
        pd.testing.assert_series_equal(avg.scores, one.scores.rename("average"), check_exact=False, rtol=1e-12)
        np.testing.assert_array_equal(avg.pvalues.to_numpy(), one.pvalues.to_numpy())
        np.testing.assert_array_equal(avg.ranks.to_numpy(), one.ranks.to_numpy())
        np.testing.assert_allclose(avg.mean_task_ranks.to_numpy(), one.ranks.to_numpy())


def test_average_uses_the_oriented_draws_of_each_task_and_its_weights():
    human, metrics = toy_comparisons()
    a = spalib.compare_metrics(human, metrics, meta_metric="pa", n_resamples=200, rng=3)
    b = spalib.compare_metrics(human, {k: -v if k == "m0" else v for k, v in metrics.items()}, meta_metric="pa",
                               n_resamples=300, rng=4)
    avg = spalib.average_comparisons({"a": a, "b": b}, weights={"a": 3, "b": 1})
    best, worst = avg.scores.index[0], avg.scores.index[-1]

    def oriented(comparison):
        nulls = comparison.null_distributions
        return nulls[(best, worst)] if (best, worst) in nulls else -nulls[(worst, best)]
    by_hand = 0.75 * np.resize(oriented(a), 300) + 0.25 * oriented(b)
    observed = 0.75 * (a.scores[best] - a.scores[worst]) + 0.25 * (b.scores[best] - b.scores[worst])
    # a tie counts within 1e-11 of the summed terms' magnitudes (spalib/_core/extreme.py)
    tol = 1e-11 * sum(abs(w * c.scores[m]) for c, w in ((a, 0.75), (b, 0.25)) for m in (best, worst))
    assert avg.pvalues.loc[best, worst] == np.mean(by_hand >= observed - tol)
    assert avg.draws.loc[best, worst] == 300 and avg.settings["weights"] == {"a": 0.75, "b": 0.25}
    with pytest.raises(ValueError, match="one weight per task"):
        spalib.average_comparisons({"a": a, "b": b}, weights={"a": 1})


def test_rank_metrics_table_equals_compare_metrics_on_wmt23(en_de):
    task = data.segment_task(en_de, extra_metrics={"Ensemble": ensemble(en_de)}, exclude_metrics=("X", "M", "e"))
    ranking = spalib.rank_metrics({"en-de": task}, meta_metrics=("spa", "pa", "acc_eq"), n_resamples=50, rng=4,
                                  signs="mtme", spa_resamples=200, interval_resamples=100)
    table = ranking.table()
    for stat in ("spa", "pa", "acc_eq"):
        kw = {} if stat == "acc_eq" else dict(signs="mtme", spa_resamples=200)
        direct = spalib.compare_metrics(task.human, task.metrics, meta_metric=stat, n_resamples=50, rng=4, **kw)
        column = table[f"en-de {stat}"].reindex(direct.scores.index)
        np.testing.assert_array_equal(column.to_numpy(), direct.scores.to_numpy())
        np.testing.assert_array_equal(table[f"en-de {stat} rank"].reindex(direct.ranks.index).to_numpy(),
                                      direct.ranks.to_numpy())
        assert (table[f"en-de {stat} low"] <= table[f"en-de {stat} high"]).all()
    assert "Ensemble" in table.index and ranking.average is not None
    text = ranking.to_string("text")
    assert "Ensemble" in text and "percentile bootstrap" in text
    assert ranking.to_string("latex").startswith("\\begin{tabular}")
    assert ranking.to_string("markdown").splitlines()[1].startswith("|---")
    html = ranking._repr_html_()   # Jupyter shows a table, not a wide block of text
    assert html.count("<tr") == len(table) + 2 and "Ensemble" in html   # header, rows, the chance row
    assert html.rstrip().endswith("</p>") and "percentile bootstrap" in html
    # the chance row: chance_levels of the task, derived for SPA and PA, simulated for acc_eq
    levels = spalib.chance_levels(task.human, meta_metrics=("spa", "pa", "acc_eq"), n_resamples=50,
                                  spa_resamples=200, rng=spalib._core.engine.derived_seed(4, "en-de", "chance"))
    pd.testing.assert_frame_equal(ranking.chance.droplevel("task"), levels.loc[["spa", "pa", "acc_eq"]],
                                  check_names=False)
    last = text.splitlines()[len(table) + 1].split()
    assert last[0] == "(chance)" and f"{levels.loc['pa', 'expected']:.3f}" in last
    assert "(chance): what a metric scoring every cell at random gets (acc_eq simulated, 50 random metrics" in text
    assert spalib.rank_metrics({"en-de": task}, meta_metrics="pa", n_resamples=0, interval_resamples=0,
                               chance_resamples=0).chance is None


def test_rank_metrics_is_the_same_for_every_numba_thread_count():
    code = ("import numpy as np, pandas as pd, spalib\n"
            "rng = np.random.default_rng(0); h = rng.normal(size=(6, 30))\n"
            "ms = {f'm{k}': pd.DataFrame(h + s * rng.normal(size=h.shape)) for k, s in enumerate((0.5, 1, 2))}\n"
            "r = spalib.rank_metrics({'t': (pd.DataFrame(h), ms)}, meta_metrics=('spa', 'pa'), n_resamples=100,"
            " spa_resamples=100, interval_resamples=100, rng=7)\n"
            "print(r.to_string('tsv'))\n")
    outputs = output_per_thread_count(code)
    assert outputs[1] == outputs[2]


def test_intervals_are_the_same_for_every_blas_thread_count():
    """The bootstrap's sums over drawn segments are summed in one order, not by a BLAS product
    (whose rounding follows its threads): PA's system totals and acc_eq's item accuracies.
    """
    code = ("import numpy as np, pandas as pd, spalib\n"
            "rng = np.random.default_rng(0); h = rng.normal(size=(8, 400))\n"
            "ms = {f'm{k}': pd.DataFrame(h + s * rng.normal(size=h.shape)) for k, s in enumerate((0.5, 1, 2))}\n"
            "for stat in ('pa', 'acc_eq'):\n"
            "    ci = spalib.ranking.metric_intervals(pd.DataFrame(h), ms, meta_metric=stat, rng=3)\n"
            "    print(repr(ci.to_numpy().tolist()))\n")
    outputs = output_per_thread_count(code, variable="OPENBLAS_NUM_THREADS")
    assert outputs[1] == outputs[2] and outputs[1].count("[[") == 2


def _sum_in_eight_lanes(counts, column):
    """The order the bootstrap's sums are defined in: row i goes to running sum i % 8, the eight
    sums are added pairwise, then the rows past the last multiple of eight one by one."""
    whole = len(counts) - len(counts) % 8
    lanes = [0.0] * 8
    for i in range(whole):
        lanes[i % 8] += float(counts[i]) * float(column[i])
    total = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))
    for i in range(whole, len(counts)):
        total += float(counts[i]) * float(column[i])
    return total


def test_resampled_sums_are_added_in_one_order_on_every_machine():
    """Not in the order a compiler picks for the machine's vector width: that order gave intervals
    differing in the last bit between an Intel and an AMD AVX-512 machine."""
    rng = np.random.default_rng(11)
    for size in (*range(20), 1817):
        counts = rng.integers(0, 4, size=(3, size)).astype(np.float64)
        rows = rng.normal(size=(2, size))
        sums = bootstrap._resample_sums(counts, rows)
        expected = [[_sum_in_eight_lanes(c, r) for r in rows] for c in counts]
        assert sums.tolist() == expected, size
    # the order matters: added left to right, the last case gives other bits
    assert any(sum(c * r for c, r in zip(counts[b].tolist(), rows[0].tolist())) != sums[b, 0] for b in range(3))


def test_command_line_ranks_a_metric_file_and_names_mismatches(en_de, tmp_path, capsys):
    path = data.write_seg_score_file(ensemble(en_de), tmp_path / "Ensemble.seg.score")
    status = main(["rank", "--test-set", "wmt23", "--lp", "en-de", "--add", f"Ensemble={path}", "--stat", "pa",
                   "--k", "50", "--bootstrap", "50", "--format", "tsv", "--quiet", "--no-qe"])
    out = capsys.readouterr()
    assert status == 0 and "Ensemble: from" in out.err
    header = [line for line in out.out.splitlines() if line.startswith("# ")]
    assert any("wmt23 en-de: standard reference refA; human score mqm; 12 systems ranked" in h for h in header)
    table = pd.read_csv(pd.io.common.StringIO(out.out), sep="\t", index_col=0, comment="#")
    task = data.segment_task(en_de, extra_metrics={"Ensemble": path}, basenames=True)
    direct = spalib.rank_metrics({"en-de": task}, meta_metrics="pa", n_resamples=50, interval_resamples=50,
                                 rng=4).comparisons[("en-de", "pa")]      # the command's default seed is 4
    np.testing.assert_allclose(table["en-de pa"].reindex(direct.scores.index), direct.scores, rtol=1e-5)
    np.testing.assert_array_equal(table["en-de pa rank"].reindex(direct.ranks.index), direct.ranks)

    bad = data.write_seg_score_file(ensemble(en_de).rename(index={"AIRC": "MyMT"}), tmp_path / "bad.seg.score")
    assert main(["rank", "--test-set", "wmt23", "--lp", "en-de", "--add", f"B={bad}", "--quiet"]) == 2
    assert "system(s) MyMT are not in wmt23/en-de" in capsys.readouterr().err
    assert main(["rank", "--test-set", "wmt23", "--lp", "xx-yy"]) == 2
    assert "wmt23 has no language pair 'xx-yy'" in capsys.readouterr().err


@pytest.fixture(scope="module")
def he_en():
    return data.load_mtme("wmt23", "he-en")


def test_added_metrics_that_look_reversed_or_scored_against_another_reference_are_warned(he_en):
    chrf = he_en.seg_scores("chrF-refB")
    against_refa = chrf.copy()
    against_refa.loc["refA"] = 100.0        # a metric scored against refA finds refA perfect
    task = data.segment_task(he_en, extra_metrics={"AgainstRefA": against_refa, "Flipped": -chrf,
                                                   "Fine": chrf.copy()}, basenames=True)
    assert task.report["standard_reference"] == "refB" and task.report["reference_systems"] == ["refA"]
    ranking = spalib.rank_metrics({"he-en": (task.human, {m: task.metrics[m] for m in
                                                          ("AgainstRefA", "Flipped", "Fine", "BLEU")})},
                                  meta_metrics="pa", n_resamples=10, interval_resamples=0, rng=0)
    assert ranking.warnings == []            # a (human, metrics) pair carries no report
    ranking = spalib.rank_metrics({"he-en": task}, meta_metrics="pa", n_resamples=10, interval_resamples=0,
                                  rng=0)
    assert len(ranking.warnings) == 2
    assert re.match(r"he-en: AgainstRefA scores refA above every other system on \d+% of the segments",
                    ranking.warnings[0])
    assert ranking.warnings[0].endswith("the standard reference of wmt23 he-en is refB")
    assert ranking.warnings[1].startswith("he-en: Flipped looks reversed")
    assert ranking.warnings[1].endswith("pass --lower-is-better Flipped")


def test_added_names_that_collide_are_refused(he_en, tmp_path, capsys):
    with pytest.raises(ValueError, match=r"two metrics would both be named 'chrF': 'chrF-refB' and 'chrF'"):
        data.segment_task(he_en, extra_metrics={"chrF": he_en.seg_scores("chrF-refB")}, basenames=True)
    path = data.write_seg_score_file(he_en.seg_scores("chrF-refB"), tmp_path / "a.seg.score")
    status = main(["rank", "--test-set", "wmt23", "--lp", "he-en", "--add", f"Mine={path}",
                   "--add", f"Mine={tmp_path / 'b.seg.score'}"])
    assert status == 2
    assert "--add names 'Mine' more than once" in capsys.readouterr().err


def test_the_command_prints_each_warning_on_one_line_and_exits_0(he_en, tmp_path, capsys):
    path = data.write_seg_score_file(-he_en.seg_scores("chrF-refB"), tmp_path / "flipped.seg.score")
    status = main(["rank", "--test-set", "wmt23", "--lp", "he-en", "--add", f"Flipped={path}", "--stat", "pa",
                   "--k", "10", "--bootstrap", "0", "--no-qe", "--quiet"])
    err = capsys.readouterr().err
    assert status == 0
    assert [line for line in err.splitlines() if line.startswith("warning:")] == [
        next(line for line in err.splitlines() if "Flipped looks reversed" in line)]


def test_versus_gives_two_sided_pvalues_and_verdicts_from_the_stored_draws():
    rng = np.random.default_rng(5)
    human = pd.DataFrame(rng.normal(size=(12, 100)) + np.linspace(0, 1, 12)[:, None])
    metrics = {"good": human + 0.2 * rng.normal(size=human.shape),
               "noisy": pd.DataFrame(rng.normal(size=human.shape)),   # knows nothing
               "twin": human + 0.2 * rng.normal(size=human.shape)}
    ranking = spalib.rank_metrics({"toy": (human, metrics)}, meta_metrics=("spa", "pa"), n_resamples=200,
                                  interval_resamples=0, rng=2)
    table = ranking.versus("good", ["noisy", "twin"])
    assert list(table.columns) == ["task", "meta_metric", "baseline", "score", "baseline score", "difference",
                                   "p-value", "draws", "extreme draws", "verdict"]
    for row in table.itertuples():
        c = ranking.comparisons[("toy", row.meta_metric)]
        null = (c.null_distributions[("good", row.baseline)] if ("good", row.baseline) in c.null_distributions
                else -c.null_distributions[(row.baseline, "good")])
        assert row.difference == c.scores["good"] - c.scores[row.baseline]
        tol = 1e-11 * (abs(c.scores["good"]) + abs(c.scores[row.baseline]))   # a tie counts
        assert table.loc[row.Index, "p-value"] == np.mean(np.abs(null) >= abs(row.difference) - tol)
    verdicts = table.set_index(["meta_metric", "baseline"])["verdict"]
    assert verdicts["spa", "noisy"] == "better" and verdicts["spa", "twin"] == "not distinguishable"
    assert "< 0.005" in ranking.versus_string("good", "noisy")       # no extreme draw in 200
    # a script at a terminal: pandas would elide the middle columns (max_columns 0: fit the width)
    with pd.option_context("display.width", 80, "display.max_columns", 0):
        printed = str(table).splitlines()
    assert "..." not in printed[0] and all(c in printed[0] for c in ["p-value", "verdict"])
    assert printed == table.to_string().splitlines()
    assert ranking.versus("noisy", "good").set_index("meta_metric")["verdict"]["spa"] == "worse"
    with pytest.raises(ValueError, match="no metric named 'chrF'"):
        ranking.versus("good", "chrF")
    with pytest.raises(ValueError, match="other than the metric itself"):
        ranking.versus("good", "good")


def test_the_command_compares_an_added_metric_with_the_baselines(en_de, tmp_path, capsys):
    path = data.write_seg_score_file(ensemble(en_de), tmp_path / "Ensemble.seg.score")
    status = main(["rank", "--test-set", "wmt23", "--lp", "en-de", "--add", f"Ensemble={path}", "--stat", "pa",
                   "--k", "50", "--bootstrap", "0", "--no-qe", "--quiet", "--baseline", "chrF",
                   "--baseline", "BLEU"])
    out = capsys.readouterr().out
    assert status == 0
    assert "Ensemble against baselines (two-sided test" in out
    lines = [line.split() for line in out.splitlines() if line.startswith("en-de")]
    assert [line[2] for line in lines] == ["chrF", "BLEU"]
    assert main(["rank", "--test-set", "wmt23", "--lp", "en-de", "--add", f"Ensemble={path}", "--stat", "pa",
                 "--k", "5", "--bootstrap", "0", "--quiet", "--baseline", "chrf"]) == 2
    err = capsys.readouterr().err
    assert "--baseline: no metric named chrf" in err and "ranked in" not in err   # refused before ranking
    assert main(["rank", "--test-set", "wmt23", "--lp", "en-de", "--add", f"Ensemble={path}",
                 "--baseline", "Ensemble", "--quiet"]) == 2
    assert "--baseline Ensemble: that is the metric given with --add" in capsys.readouterr().err
    assert main(["rank", "--test-set", "wmt23", "--lp", "en-de", "--baseline", "chrF", "--quiet"]) == 2
    assert "give one with --add NAME=FILE" in capsys.readouterr().err


def test_the_command_prints_what_the_same_calls_in_python_print(en_de, tmp_path, capsys):
    """The own-metric chapter's claim: `spalib rank` and rank_metrics + versus_string, same text."""
    path = data.write_seg_score_file(ensemble(en_de), tmp_path / "Ensemble.seg.score")
    status = main(["rank", "--test-set", "wmt23", "--lp", "en-de", "--primary-only", "--add", f"Ensemble={path}",
                   "--stat", "spa", "pa", "acc_eq", "--k", "20", "--spa-resamples", "10", "--bootstrap", "10",
                   "--seed", "7", "--wmt-early-stopping", "--baseline", "COMET", "--baseline", "chrF",
                   "--format", "tsv", "--quiet"])
    out = capsys.readouterr().out
    assert status == 0
    task = data.segment_task(en_de, reference_free=True, primary_only=True, basenames=True,
                             extra_metrics={"Ensemble": path})
    in_python = spalib.rank_metrics({"en-de": task}, meta_metrics=("spa", "pa", "acc_eq"), n_resamples=20,
                                    spa_resamples=10, interval_resamples=10, rng=7,
                                    early_stopping=spalib.WMT_EARLY_STOPPING)
    assert out == in_python.to_string("tsv") + "\n" + in_python.versus_string("Ensemble", ["COMET", "chrF"])


def test_no_draws_means_no_test_and_ranks_by_score_as_mt_metrics_eval_k_0(en_de, capsys):
    """n_resamples=0 (the toolkit's k = 0): the scores of a tested run, no p-values, positions as ranks."""
    rng = np.random.default_rng(3)
    human = pd.DataFrame(rng.normal(size=(6, 40)))
    metrics = {name: human + noise * rng.normal(size=human.shape)
               for name, noise in (("a", 0.3), ("b", 0.5), ("c", 2.0))}
    untested = spalib.compare_metrics(human, metrics, meta_metric="pa", n_resamples=0, rng=1)
    tested = spalib.compare_metrics(human, metrics, meta_metric="pa", n_resamples=50, rng=1)
    pd.testing.assert_series_equal(untested.scores, tested.scores)
    assert untested.ranks.tolist() == [1, 2, 3] and untested.pvalues.isna().all().all()
    assert untested.n_significant == 0 and (untested.draws == 0).all().all() and untested.null_distributions == {}
    tasks = {"x": (human, metrics), "y": (human.iloc[:, :20], {m: f.iloc[:, :20] for m, f in metrics.items()})}
    ranking = spalib.rank_metrics(tasks, meta_metrics=("spa", "pa"), n_resamples=0, interval_resamples=0, rng=2)
    with_test = spalib.rank_metrics(tasks, meta_metrics=("spa", "pa"), n_resamples=20, interval_resamples=0, rng=2)
    pd.testing.assert_series_equal(ranking.average.scores, with_test.average.scores)
    assert ranking.average.ranks.tolist() == [1, 2, 3] and ranking.average.pvalues.isna().all().all()
    assert set(ranking.versus("a", ["b"])["verdict"]) == {"not tested"}
    assert "Significance: none (k = 0" in ranking.describe()
    with pytest.raises(ValueError, match="made without a test"):
        spalib.average_comparisons({"u": untested, "t": tested})
    assert main(["rank", "--test-set", "wmt23", "--lp", "en-de", "--stat", "pa", "--k", "0", "--bootstrap", "0",
                 "--quiet", "--no-qe", "--format", "tsv"]) == 0
    out = capsys.readouterr().out
    table = pd.read_csv(pd.io.common.StringIO(out), sep="\t", index_col=0, comment="#")
    assert "Significance: none (k = 0" in out
    assert table["en-de pa rank"].tolist() == list(range(1, len(table) + 1))     # ties get positions too
    assert table["en-de pa"].is_monotonic_decreasing


def test_a_metric_is_refused_as_the_human_score(en_de, capsys):
    """bad-input cause 6: --human and human= take a human score only."""
    with pytest.raises(ValueError, match="got 'COMET-refA': a metric's scores, not human ones"):
        data.segment_task(en_de, human="COMET-refA")
    with pytest.raises(ValueError, match="got 'COMET-refA': a metric's scores"):
        data.metric_inputs(en_de, human="COMET-refA")
    with pytest.raises(TypeError, match="`es` must be an EvalSet"):
        data.metric_inputs("wmt23")
    assert main(["rank", "--test-set", "wmt23", "--lp", "en-de", "--human", "COMET-refA", "--quiet"]) == 2
    assert "a metric's scores, not human ones" in capsys.readouterr().err


def test_the_exported_inputs_make_a_score_file_the_command_accepts(tmp_path, capsys):
    assert main(["inputs", "--test-set", "wmt23", "--lp", "he-en", "--out", str(tmp_path / "in")]) == 0
    printed = capsys.readouterr().out
    assert "against the standard reference refB" in printed and "not ranked: " in printed
    folder = tmp_path / "in"
    systems = (folder / "systems.txt").read_text(encoding="utf-8").split()
    reference = (folder / "reference.txt").read_text(encoding="utf-8").split("\n")[:-1]
    assert len(reference) == len((folder / "sources.txt").read_text(encoding="utf-8").split("\n")) - 1
    lines = []
    for system in systems:         # a toy metric: closeness of the output's length to the reference's
        outputs = (folder / "systems" / f"{system}.txt").read_text(encoding="utf-8").split("\n")[:-1]
        assert len(outputs) == len(reference)
        lines += [f"{system}\t{-abs(len(h) - len(r)) / (len(r) + 1):.6f}" for h, r in zip(outputs, reference)]
    (tmp_path / "len.seg.score").write_text("\n".join(lines) + "\n", encoding="utf-8")
    status = main(["rank", "--test-set", "wmt23", "--lp", "he-en", "--add", f"LenMatch={tmp_path / 'len.seg.score'}",
                   "--stat", "pa", "--k", "10", "--bootstrap", "0", "--no-qe", "--quiet"])
    assert status == 0
    assert "LenMatch" in capsys.readouterr().out


def test_score_files_read_as_mt_metrics_eval_reads_them(en_de, tmp_path):
    frame = ensemble(en_de)
    tab = data.write_seg_score_file(frame, tmp_path / "tab.seg.score")
    text = tab.read_text(encoding="utf-8")
    n = len(en_de.segments)
    spaces = tmp_path / "spaces.seg.score"
    spaces.write_text(text.replace("\t", "  ").removesuffix("\n"), encoding="utf-8")  # no final newline
    pd.testing.assert_frame_equal(data.read_seg_score_file(spaces, n), data.read_seg_score_file(tab, n))
    cut = tmp_path / "cut.seg.score"
    cut.write_text(text[: text.rindex("\n", 0, len(text) - 1)], encoding="utf-8")  # the last line lost
    with pytest.raises(ValueError, match=r"cut.seg.score:\d+: system 'synthetic_ref' has 556 lines"):
        data.read_seg_score_file(cut, n)
    bom = tmp_path / "bom.seg.score"
    bom.write_text("\ufeff" + text, encoding="utf-8")
    with pytest.raises(ValueError, match=r"bom.seg.score:1: the file starts with a byte-order mark"):
        data.read_seg_score_file(bom, n)
    nan = tmp_path / "nan.seg.score"
    first, rest = text.split("\n", 1)
    nan.write_text(first.split("\t")[0] + "\tnan\n" + rest, encoding="utf-8")
    with pytest.raises(ValueError, match=r"nan.seg.score:1: score 'nan' is not a finite number; write None"):
        data.read_seg_score_file(nan, n)


def test_command_line_messages_name_the_option_file_and_system(en_de, tmp_path, capsys):
    base = ["rank", "--test-set", "wmt23", "--lp", "en-de", "--quiet", "--bootstrap", "0"]
    for bad in (["--k", "-1"], ["--k", "-5"], ["--spa-resamples", "x"]):
        with pytest.raises(SystemExit) as exit_:
            main(base + bad)
        assert exit_.value.code == 2 and f"argument {bad[0]}:" in capsys.readouterr().err
    frame = ensemble(en_de)
    frame.loc["AIRC"] = np.nan
    unscored = data.write_seg_score_file(frame, tmp_path / "unscored.seg.score")
    assert main(base + ["--add", f"Mine={unscored}"]) == 2
    assert "no score for system(s) AIRC on any segment" in capsys.readouterr().err
    good = data.write_seg_score_file(ensemble(en_de), tmp_path / "good.seg.score")
    assert main(base + ["--add", f"Mine={good}", "--output", str(tmp_path)]) == 2
    assert f"--output {tmp_path} is a folder" in capsys.readouterr().err
    assert main(base + ["--lp", "he-en", "--add", f"Mine={good}"]) == 2
    assert "with several language pairs, put {lp} in the path" in capsys.readouterr().err


def test_data_command_errors_are_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SPALIB_DATA", str(tmp_path / "nowhere"))
    assert main(["data", "where"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m spalib.data: error:") and len(err.strip().splitlines()) == 1


def mtme_tree(root, test_set, lp, std_ref, gold, metric, references=("refA",), n_segments=5):
    """A tiny mt-metrics-eval v2 tree: 3 systems (and every non-standard reference) x 5 segments,
    one human score, two metrics scored against the standard reference."""
    rng = np.random.default_rng(0)
    base = root / "mt-metrics-eval-v2" / test_set
    for sub in ("sources", "documents", "references", f"system-outputs/{lp}", "human-scores", f"metric-scores/{lp}"):
        (base / sub).mkdir(parents=True, exist_ok=True)

    def lines(tag):
        return "".join(f"{tag} {k}\n" for k in range(n_segments))
    (base / "sources" / f"{lp}.txt").write_text(lines("source"), encoding="utf-8")
    (base / "documents" / f"{lp}.docs").write_text("".join(f"news\tdoc{k // 2}\n" for k in range(n_segments)))
    scored = ["sysA", "sysB", "sysC", *[r for r in references if r != std_ref]]
    for name in {*references, std_ref, *scored}:
        (base / "system-outputs" / lp / f"{name}.txt").write_text(lines(name), encoding="utf-8")
    for ref in {*references, std_ref}:
        (base / "references" / f"{lp}.{ref}.txt").write_text(lines(ref), encoding="utf-8")
    for path, noise in ((base / "human-scores" / f"{lp}.{gold}.seg.score", 0.1),
                        (base / "metric-scores" / lp / f"{metric}-{std_ref}.seg.score", 0.5),
                        (base / "metric-scores" / lp / f"BLEU-{std_ref}.seg.score", 2.0)):
        path.write_text("".join(f"{system}\t{quality + noise * rng.normal():.6f}\n"
                                for quality, system in enumerate(scored) for _ in range(n_segments)))


@pytest.mark.parametrize("test_set, lp, std_ref, gold, metric, references, human", [
    ("wmt24", "en-de", "refB", "mqm", "XCOMET", ("refA", "refB"), None),       # MQM, refA ranked
    ("wmt24", "cs-uk", "refA", "esa", "MetricX-24-Hybrid", ("refA",), None),     # ESA gold
    ("wmt25", "cs-de_DE", "refA", "esa-human1", "GEMBA-v2", ("refA",), None),  # a region in the LP
    ("wmt24pp", "en-de_DE", "posteditB", "esa", "MetricX-24", ("posteditA", "posteditB"), "esa"),
])
def test_every_mt_metrics_eval_layout_is_ranked_end_to_end(tmp_path, monkeypatch, capsys, test_set, lp, std_ref,
                                                           gold, metric, references, human):
    mtme_tree(tmp_path, test_set, lp, std_ref, gold, metric, references)
    monkeypatch.setenv("SPALIB_DATA", str(tmp_path))
    args = ["rank", "--test-set", test_set, "--lp", lp, "--stat", "pa", "--k", "20", "--bootstrap", "0",
            "--quiet", "--format", "tsv", *(["--human", human] if human else [])]
    assert main(args) == 0
    out = capsys.readouterr()
    table = pd.read_csv(pd.io.common.StringIO(out.out), sep="\t", index_col=0, comment="#")
    assert set(table.index) == {metric, "BLEU"}
    assert f"{test_set} {lp}: standard reference {std_ref}; human score {human or gold}" in out.err
    n_ranked = 3 + len([r for r in references if r != std_ref])
    assert f"{n_ranked} systems ranked" in out.err
    if human:
        assert main(args[:-2]) == 2
        assert "choose one with human=NAME (--human NAME on the command line): esa" in capsys.readouterr().err


def test_a_known_test_set_absent_from_the_data_says_how_to_get_it(tmp_path, monkeypatch, capsys):
    mtme_tree(tmp_path, "wmt24", "en-de", "refB", "mqm", "XCOMET", ("refA", "refB"))
    monkeypatch.setenv("SPALIB_DATA", str(tmp_path))
    assert main(["rank", "--test-set", "wmt24", "--lp", "en-es", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "wmt24/en-es is not in" in err and "python -m spalib.data download mt-metrics-eval-v2" in err


def test_the_command_warns_about_a_metric_scored_against_another_reference(he_en, tmp_path, capsys):
    against_refa = he_en.seg_scores("chrF-refB").copy()
    against_refa.loc["refA"] = 100.0
    path = data.write_seg_score_file(against_refa, tmp_path / "refA.seg.score")
    status = main(["rank", "--test-set", "wmt23", "--lp", "he-en", "--add", f"Mine={path}", "--stat", "pa",
                   "--k", "10", "--bootstrap", "0", "--no-qe", "--quiet"])
    lines = capsys.readouterr().err.splitlines()
    assert status == 0
    warning = [k for k, line in enumerate(lines) if line.startswith("warning: he-en: Mine scores refA above every")]
    assert len(warning) == 1 and lines[warning[0]].endswith(
        "of the segments: it seems to have been scored against refA; the standard reference of wmt23 he-en is refB")
    # printed before the ranking starts, not after it
    assert warning[0] < next(k for k, line in enumerate(lines) if line.startswith("ranked in"))


def test_the_wrong_reference_rule_is_set_on_the_released_metrics():
    """No released metric scored against the standard reference is warned about (0 false alarms in
    50); of the 46 released metrics scored against the ranked human translation, the only two that
    also score it are; so is a metric whose self-scores sit just under the top (the new user's
    simulated case: 83%)."""
    shares, against_ranked = {}, 0
    for test_set, lp in (("wmt23", "he-en"), ("wmt22", "zh-en")):
        es = data.load_mtme(test_set, lp)
        task = data.segment_task(es)
        (ranked,) = task.report["reference_systems"]
        for name in es.metric_names:
            if (name, "seg") in es._score_files and es.metric_reference(name) != "src":
                against_ranked += es.metric_reference(name) == ranked
                frame = es.seg_scores(name).reindex(index=task.human.index, columns=task.human.columns)
                if ranked in frame.index and frame.loc[ranked].notna().all():
                    shares[test_set, lp, name] = _reference_win_share(frame.dropna(axis=1), ranked)
    wrong = {key: share for key, share in shares.items() if key[2].endswith("-" + ("refA" if key[1] == "he-en"
                                                                                     else "refB"))}
    right = {key: share for key, share in shares.items() if key not in wrong}
    assert len(right) == 50 and sorted(k[2] for k in wrong) == ["SEScore-refB", "eBLEU-refA"]
    assert against_ranked == 46           # the other 44 leave the translation they were scored against out
    assert max(right.values()) < WRONG_REFERENCE_SHARE <= min(wrong.values())
    assert round(max(right.values()), 2) == 0.48 and sorted(round(v, 2) for v in wrong.values()) == [0.73, 1.0]
    he_en = data.load_mtme("wmt23", "he-en")
    rng = np.random.default_rng(0)
    comet = he_en.seg_scores("COMET-refB")    # a metric close to COMET, scored against refA:
    simulated = comet + rng.normal(0, 0.02, size=comet.shape)
    simulated.loc["refA"] = 0.98 + rng.normal(0, 0.005, size=comet.shape[1])   # near its ceiling
    task = data.segment_task(he_en, extra_metrics={"Mine": simulated}, basenames=True)
    assert 0.75 < _reference_win_share(task.metrics["Mine"], "refA") < 0.9
    assert any("Mine scores refA above every other system" in w for w in _warnings_of_added_metrics({"he-en": task}))


def test_rank_metrics_refuses_a_fork_process_pool_before_any_work():
    """bad-input cause 5: a forked worker cannot run numba's parallel kernels once the parent has."""
    import concurrent.futures
    import multiprocessing

    rng = np.random.default_rng(0)
    human = rng.normal(size=(4, 20))
    metrics = {"a": human + 1, "b": 2 * human + rng.normal(size=human.shape)}
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        with pytest.raises(ValueError, match="spawn"):
            spalib.rank_metrics({"t": (human, metrics)}, n_resamples=10, rng=0, executor=pool)


def test_rank_metrics_refuses_a_submit_that_returns_no_future():
    class Eager:
        def submit(self, fn, *args, **kw):
            return fn(*args, **kw)

    rng = np.random.default_rng(0)
    human = rng.normal(size=(4, 20))
    metrics = {"a": human + 1, "b": 2 * human + rng.normal(size=human.shape)}
    with pytest.raises(TypeError, match="`executor`.submit must return a concurrent.futures.Future"):
        spalib.rank_metrics({"t": (human, metrics)}, n_resamples=10, rng=0, interval_resamples=0, executor=Eager())


def test_versus_and_subset_name_a_bad_argument():
    """bad-input #148, #149, #32."""
    rng = np.random.default_rng(0)
    human = rng.normal(size=(4, 20))
    metrics = {"a": human + 1, "b": 2 * human + rng.normal(size=human.shape), "c": human - 1}
    ranking = spalib.rank_metrics({"t": (human, metrics)}, meta_metrics=("pa",), n_resamples=10, rng=0,
                                  interval_resamples=0)
    with pytest.raises(TypeError, match="`baselines` must be a str or an iterable of str"):
        ranking.versus("a", None)
    with pytest.raises(ValueError, match="`baselines` names a metric more than once"):
        ranking.versus("a", ["b", "b"])
    spa = spalib.soft_pairwise_accuracy(human, metrics["b"], rng=0)
    with pytest.raises(TypeError, match="`systems` must be a sequence"):
        spa.subset(None)


def test_a_negated_metric_that_looks_reversed_is_told_to_drop_the_option(en_de, tmp_path, capsys):
    """bad-input #82: the advice does not repeat the option already given."""
    path = data.write_seg_score_file(ensemble(en_de), tmp_path / "Ensemble.seg.score")
    assert main(["rank", "--test-set", "wmt23", "--lp", "en-de", "--add", f"Ensemble={path}",
                 "--lower-is-better", "Ensemble", "--stat", "pa", "--k", "5", "--bootstrap", "0", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "it was negated by --lower-is-better Ensemble: drop that option" in err


def test_an_output_that_cannot_be_written_is_named(en_de, capsys):
    """bad-input #108."""
    assert main(["rank", "--test-set", "wmt23", "--lp", "en-de", "--stat", "pa", "--k", "5", "--bootstrap", "0",
                 "--quiet", "--output", "/dev/full"]) == 2
    assert "--output /dev/full:" in capsys.readouterr().err


def small_ranking(metrics=("a", "b", "c", "d"), rng=1):
    """A two-task ranking by PA, SPA and acc_eq with early stopping, intervals and an average."""
    g = np.random.default_rng(0)
    human = g.random((5, 20))
    scores = {n: human + g.random((5, 20)) * (1 + i) for i, n in enumerate("abcd")}
    tasks = {t: (human + j, {m: scores[m] + j for m in metrics}) for j, t in enumerate(("t1", "t2"))}
    return spalib.rank_metrics(tasks, meta_metrics=("pa", "spa", "acc_eq"), n_resamples=40, rng=rng,
                               interval_resamples=20, early_stopping=spalib.EarlyStopping(20, 0.02, 0.5))


def assert_same_but_draws(a, b):
    """Every attribute of two comparisons equal, exactly, except the null draws."""
    assert type(a) is type(b)
    for name, value in a._stored_parts().items():
        other = getattr(b, name)
        if isinstance(value, pd.Series):
            pd.testing.assert_series_equal(value, other, check_exact=True)
        elif isinstance(value, pd.DataFrame):
            pd.testing.assert_frame_equal(value, other, check_exact=True)
        else:
            assert value == other, name


def test_a_saved_ranking_reads_back_equal_in_every_table_and_setting(tmp_path):
    ranking = small_ranking()
    ranking.save(tmp_path / "r.json")
    back = spalib.MetricRanking.load(tmp_path / "r.json")
    for key, comparison in ranking.comparisons.items():
        assert_same_but_draws(comparison, back.comparisons[key])
        pd.testing.assert_frame_equal(ranking.intervals[key], back.intervals[key], check_exact=True)
    assert_same_but_draws(ranking.average, back.average)
    pd.testing.assert_frame_equal(ranking.chance, back.chance, check_exact=True)
    assert back.settings == ranking.settings and back.warnings == ranking.warnings
    assert back.to_string("tsv") == ranking.to_string("tsv") and back.to_string() == ranking.to_string()
    one = ranking.comparisons["t1", "spa"]
    one.save(tmp_path / "c.json")
    assert_same_but_draws(one, spalib.MetricComparison.load(tmp_path / "c.json"))


def test_a_stored_ranking_refuses_draws_it_does_not_keep_and_files_it_cannot_read(tmp_path):
    small_ranking().save(tmp_path / "r.json")
    back = spalib.MetricRanking.load(tmp_path / "r.json")
    with pytest.raises(ValueError, match="read from a file, which keeps no draws"):
        back.versus("a", ["b"])
    with pytest.raises(ValueError, match="read from a file, which keeps no draws"):
        back.comparisons["t1", "pa"].recount(alpha=0.1)
    with pytest.raises(ValueError, match="not a stored spalib.MetricComparison"):
        spalib.MetricComparison.load(tmp_path / "r.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="bad.json: not a stored spalib result"):
        spalib.MetricRanking.load(tmp_path / "bad.json")
    (tmp_path / "new.json").write_text('{"format": "spalib.MetricRanking", "version": 99, "content": {}}')
    with pytest.raises(ValueError, match="format version 99; this spalib reads version 1"):
        spalib.MetricRanking.load(tmp_path / "new.json")


def test_a_rerun_of_some_metrics_lends_a_stored_ranking_their_draws_after_matching_it(tmp_path):
    full = small_ranking()
    full.save(tmp_path / "r.json")
    stored = spalib.MetricRanking.load(tmp_path / "r.json")
    lent = stored.with_draws_of(small_ranking(("c", "a")))   # in another order
    pd.testing.assert_frame_equal(lent.versus("c", ["a"]), full.versus("c", ["a"]), check_exact=True)
    assert np.array_equal(lent.average.null_draws("a", "c"), full.average.null_draws("a", "c"))
    with pytest.raises(ValueError, match="read from a file"):
        lent.versus("c", ["b"])
    with pytest.raises(ValueError, match="draws of some pairs only"):
        lent.comparisons["t1", "pa"].recount(alpha=0.1)
    with pytest.raises(ValueError, match="other settings than this ranking: interval_seed, seed"):
        stored.with_draws_of(small_ranking(("a", "c"), rng=2))
    with pytest.raises(TypeError, match="`rerun` must be a MetricRanking"):
        stored.with_draws_of(full.comparisons["t1", "pa"])
    tampered = full.comparisons["t1", "spa"]
    tampered.pvalues.iloc[0, 1] += 1e-12
    with pytest.raises(ValueError, match="t1 spa: `rerun`'s pvalues differ from the stored ones"):
        stored.with_draws_of(full)

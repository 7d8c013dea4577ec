"""The runs ``chapters/wei_jia_annotators.md`` reads from ``spalib/data/results/`` are what the library
computes.

``benchmarks/wei_jia_annotators.py`` writes them once because they are slow.  The chapter draws
Figure 2's first point, BERTScore's first point of Figure 3 and the majorities of WMT22 zh-en's
near-tied pairs again; this file reruns other points and pairs, each from its own place in the
stream, and checks them against the files bit for bit.
"""


import pandas as pd
import pytest

from spalib import data
from conftest import benchmark


@pytest.fixture(scope="module")
def run():
    """The script, and the chapter's inputs as it builds them (about 10 s)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        script = benchmark("wei_jia_annotators", monkeypatch)
        return script, script.inputs()


def test_the_curve_file_holds_what_the_perfect_annotators_first_point_gives(run):
    script, inp = run
    stored = pd.read_csv(data.book_table("results/wei_jia_annotators_curve.csv"))
    assert stored["judgements per system"].tolist() == [n for n in script.SIZES for _ in script.ESTIMATORS]
    assert stored["estimator"].tolist() == list(script.ESTIMATORS) * len(script.SIZES)
    # the second point: the perfect annotator at 10, after the humans' 2,000 trials at 10
    rng = script.stream(script.CURVE_START + script.N_CURVE)
    rerun = pd.DataFrame([script.curve_point(inp, script.SIZES[0], "perfect annotator", rng)], index=[1])
    pd.testing.assert_frame_equal(rerun, stored.iloc[[1]], check_exact=True)


def test_the_agreement_file_holds_what_bleus_first_and_comets_last_point_give(run):
    script, inp = run
    stored = pd.read_csv(data.book_table("results/wei_jia_annotators_agreement.csv"))
    runs = script.metric_runs(inp)
    assert stored["metric"].tolist() == [r[0] for r in runs for _ in script.ROW_SIZES]
    assert stored[script.ROWS].tolist() == script.ROW_SIZES * len(runs)
    last = len(stored) - 1   # COMET-22 at 800 rows, the last 1,000 trials of the run
    for k, run_k, m in ((0, runs[0], script.ROW_SIZES[0]), (last, runs[-1], script.ROW_SIZES[-1])):
        rng = script.stream(script.AGREEMENT_START + k * script.N_SIZES)
        rerun = pd.DataFrame([script.agreement_point(inp, run_k, m, rng)], index=[k])
        pd.testing.assert_frame_equal(rerun, stored.iloc[[k]], check_exact=True)


def test_the_majority_file_holds_what_other_pairs_give(run):
    script, inp = run
    stored = pd.read_csv(data.book_table("results/wei_jia_annotators_majority.csv"))
    shares = {name: rows.set_index(script.PAIR)["share"] for name, rows in stored.groupby("run")}
    near = script.near_pairs(inp)
    assert shares["labels"].index.equals(pd.MultiIndex.from_frame(near))
    assert shares["BLEU"].index.equals(pd.MultiIndex.from_frame(inp.zh_pairs))
    # the labels on WMT22 uk-en's near-tied pairs; BLEU on two zh-en pairs it does not tie
    uk = near[(near["year"] == 2022) & (near["lp"] == "uk-en")]
    bleu_pairs = inp.zh_pairs[(inp.zh_pairs["first"] == "Lan-Bridge")
                              & inp.zh_pairs["second"].isin(["Online-A", "HuaweiTSC"])]
    assert len(uk) == 3 and len(bleu_pairs) == 2
    for name, values, position, pair_list, metric in (
            ("labels", inp.raw, 0, uk, "mean"),
            ("BLEU", inp.stats["bleu"], script.BLEU_START, bleu_pairs, "bleu")):
        rerun = script.redraw(inp, values, position, pair_list, metric=metric)
        expected = shares[name][rerun.index]
        assert (rerun.to_numpy() == expected.to_numpy()).all()

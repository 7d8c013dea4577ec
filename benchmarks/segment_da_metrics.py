"""The slow runs of ``chapters/segment_da_metrics.md``: every translation scored with the chapter's
five sentence-level string metrics, on WMT13 and on WMT17.

WMT13 (the chapter's "We score every DA-judged translation"): for each language pair, the
translations of the untokenised texts that have a DA score, in the data's order, and their
sentBLEU, sentBLEU+1, chrF, chrF++ and TER (sacrebleu; TER from spalib's copy).  WMT17 (the
chapter's "The same on WMT17"): for each to-English language pair, the Williams test of each
metric against the test set's own sentBLEU column (two-sided p), and the table's row (items and
each score's |r| with DA, rounded to 3 places, in the order of |r|).  No random draws.

    python benchmarks/segment_da_metrics.py
        # writes spalib/data/results/segment_da_metrics_wmt13.csv (per WMT13 translation),
        # segment_da_metrics_wmt17.csv (per WMT17 language pair) and
        # segment_da_metrics_wmt17_tests.csv (per WMT17 language pair and metric)

The chapter rescores WMT13 cs-en and reruns WMT17 lv-en, and checks them against these files;
``tests/test_stored_segment_da_metrics.py`` reruns WMT13 en-de and WMT17 tr-en.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import sacrebleu

import _setup  # first: the threading layer
import spalib
from spalib import data
from spalib.corpus_metrics import corpus_score, segment_statistics

RESULTS = _setup.RESULTS
OUT_WMT13 = os.path.join(RESULTS, "segment_da_metrics_wmt13.csv")
OUT_WMT17 = os.path.join(RESULTS, "segment_da_metrics_wmt17.csv")
OUT_TESTS = os.path.join(RESULTS, "segment_da_metrics_wmt17_tests.csv")
TER_CHECKED = 20   # TER checked against sacrebleu's, per call
METRIC_NAMES = ["sentBLEU", "sentBLEU+1", "chrF", "chrF++", "TER"]
WMT17_LPS = ["cs-en", "de-en", "fi-en", "lv-en", "ru-en", "tr-en", "zh-en"]
FILE = "sentBLEU (file)"


def sentence_metrics(hyps, refs):
    """The chapter's ``sentence_metrics``: each translation's five scores."""
    pairs = list(zip(hyps, refs))
    seg = segment_statistics("ter", list(hyps), list(refs), cache=False)
    ter = corpus_score("ter", seg)   # row i: sentence i's TER
    checked = [sacrebleu.sentence_ter(h, [r]).score for h, r in pairs[:TER_CHECKED]]
    assert np.array_equal(ter[:TER_CHECKED], checked)
    bleu, chrf = sacrebleu.sentence_bleu, sacrebleu.sentence_chrf
    return pd.DataFrame({
        "sentBLEU": [bleu(h, [r]).score for h, r in pairs],
        "sentBLEU+1": [bleu(h, [r], smooth_method="add-k", smooth_value=1).score for h, r in pairs],
        "chrF": [chrf(h, [r]).score for h, r in pairs],
        "chrF++": [chrf(h, [r], word_order=2).score for h, r in pairs],
        "TER": ter,
    })


def wmt13_items(lp):
    """The chapter's WMT13 ``lp``: the DA-judged translations with texts, before scoring."""
    texts = data.load_wmt13_texts(lp)   # untokenised `.pre-tok`
    da = data.load_wmt13_da(lp).drop(columns=["lp", "z"])
    items = texts.merge(da, on=["system", "sid"], how="left", validate="one_to_one")
    assert items["raw"].notna().all()
    return items


def wmt13_scores(lp):
    """The WMT13 file's rows of ``lp``: each translation's keys and its five scores."""
    items = wmt13_items(lp)
    metrics = sentence_metrics(items["mt"], items["ref"])
    keys = items[["system", "sid"]].reset_index(drop=True)
    return pd.concat([keys, metrics], axis=1).assign(lp=lp)[["lp", "system", "sid", *METRIC_NAMES]]


def two_sided(result):
    """Two-sided p of every tested pair of a williams_matrix (the chapter's)."""
    return result.pvalues.stack().dropna().mul(2).clip(upper=1)


def file_tests(lp, items):
    """The chapter's WMT17 run on ``lp``: its table row, and each metric's test against FILE."""
    scores = sentence_metrics(items["translation"], items["reference"])
    scores.insert(0, FILE, items["sentbleu"])
    res = spalib.williams_matrix(items["human"], scores)
    p, r = two_sided(res), res.correlations
    tests = []
    for m in METRIC_NAMES:     # the pair's one tested cell
        p_m = p.get((m, FILE), p.get((FILE, m)))
        tests.append({"lp": lp, "metric": m, "stronger": r[m] > r[FILE], "p": p_m})
    return {"lp": lp, "items": len(items), **r.round(3).to_dict()}, tests


def wmt17_run(lp):
    """``file_tests`` on WMT17 ``lp`` as the chapter loads it: the row and the tests as frames."""
    row, tests = file_tests(lp, data.load_wmt17_testset(lp))
    return pd.DataFrame([row]), pd.DataFrame(tests)


def main():
    wmt13 = pd.concat(_setup.timed_runs(wmt13_scores, data.WMT13_LPS, label="WMT13"),
                      ignore_index=True)
    wmt13.to_csv(OUT_WMT13, index=False)
    runs = _setup.timed_runs(wmt17_run, WMT17_LPS, label="WMT17")
    wmt17 = pd.concat([row for row, _ in runs], ignore_index=True)
    tests = pd.concat([t for _, t in runs], ignore_index=True)
    wmt17.to_csv(OUT_WMT17, index=False)
    tests.to_csv(OUT_TESTS, index=False)
    # read back as the chapter reads them: each number the same float, bit for bit
    for frame, file in ((wmt13, OUT_WMT13), (wmt17, OUT_WMT17), (tests, OUT_TESTS)):
        pd.testing.assert_frame_equal(pd.read_csv(file), frame, check_exact=True)
        print(f"{os.path.basename(file)}: {os.path.getsize(file) / 1000:.0f} kB")
    print(wmt17.to_string(index=False))


if __name__ == "__main__":
    main()

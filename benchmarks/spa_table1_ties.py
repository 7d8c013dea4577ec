"""The slow runs of ``chapters/spa_table1_ties.md``, all with the chapter's seed 4: WMT23's
two-sided PA tests recounted under four rules for draws that tie |Δ|, and the WMT23 zh-en PA test
with one system left out.

The tie rules (the chapter's ``count_by_rule``): for each of WMT23 en-de, he-en and zh-en, one
two-sided PERM-INPUTS PA test (k = 1,000 draws, ``signs="mtme"``, en-de with the chapter's
``spa_method="normal"`` as well); a PA difference is a whole number of system pairs, so
|Δ*| = |Δ| is decided on those whole numbers.  Per language pair it writes the significant pairs
under each rule (plain floating-point ``>=``, conservative, mid-p, never), the number of metrics,
all draws, the tied draws and the tied draws plain floats count as extreme; per metric pair with
tied draws, those two tallies and whether plain floats and the conservative rule disagree.

The zh-en drops (the chapter's last section): each system whose removal keeps Table 1's number of
distinct PA values, the significant PA pairs of the same PA test without it, and that test's
p-value of each metric pair (each pair draws from its own stream, so a test on fewer metrics gives
the same p-values for its pairs).

    python benchmarks/spa_table1_ties.py
        # writes spalib/data/results/spa_table1_ties_rules.csv (per language pair),
        # spa_table1_ties_pairs.csv (per metric pair with ties), spa_table1_ties_drops.csv
        # (per dropped system) and spa_table1_ties_drop_pairs.csv (per drop and metric pair)

The chapter recounts en-de, reruns the first drop on five metrics and checks them against these
files; ``tests/test_stored_spa_table1_ties.py`` reruns he-en and the second drop.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

import _setup  # first: the threading layer
import spalib
from spalib import data

RESULTS = _setup.RESULTS
OUT_RULES = os.path.join(RESULTS, "spa_table1_ties_rules.csv")
OUT_PAIRS = os.path.join(RESULTS, "spa_table1_ties_pairs.csv")
OUT_DROPS = os.path.join(RESULTS, "spa_table1_ties_drops.csv")
OUT_DROP_PAIRS = os.path.join(RESULTS, "spa_table1_ties_drop_pairs.csv")
REF_SEED = 4
LANGUAGE_PAIRS = ("en-de", "he-en", "zh-en")
RULES = ("plain", "conservative", "mid-p", "never")


def pa_test(lp):
    """The chapter's two-sided PA test of WMT23 ``lp``, and its task."""
    task = data.segment_task(data.load_mtme("wmt23", lp))
    extra = {"spa_method": "normal"} if lp == "en-de" else {}   # as the chapter's en-de run
    c = spalib.compare_metrics(task.human, task.metrics, meta_metric="pa", permutation="inputs",
                               alternative="two-sided", rng=REF_SEED, signs="mtme", **extra)
    return c, task


def rule_tallies(c, n, lp):
    """``count_by_rule`` of the chapter as whole numbers: the language pair's row and one row per
    metric pair with tied draws.
    """
    n_pairs, counts, tied, pairs, n_draws = n * (n - 1) // 2, np.zeros(4, int), [0, 0], [], 0
    for (a, b), null in c.null_distributions.items():
        delta = abs(c.scores[a] - c.scores[b])
        observed, swapped = round(delta * n_pairs), np.abs(np.rint(null * n_pairs))
        is_tie, plain = swapped == observed, np.abs(null) >= delta
        ties, above = np.mean(is_tie), np.mean(swapped > observed)
        p = np.array([plain.mean(), above + ties, above + ties / 2, above])
        counts += p <= 0.05
        tied = [tied[0] + int(is_tie.sum()), tied[1] + int((is_tie & plain).sum())]
        n_draws += null.size
        if is_tie.any():
            pairs.append({"lp": lp, "metric a": a, "metric b": b, "tied": int(is_tie.sum()),
                          "tied plain": int((is_tie & plain).sum()),
                          "differs": bool((p[0] <= 0.05) != (p[1] <= 0.05))})
    row = {"lp": lp, **{rule: int(k) for rule, k in zip(RULES, counts)},
           "draws": n_draws, "tied": tied[0], "tied plain": tied[1]}
    return row, pairs


def tie_rules(lp):
    """The language pair's rows of both tie-rule files (``metrics``: its number of metrics)."""
    c, task = pa_test(lp)
    row, pairs = rule_tallies(c, len(task.human), lp)
    return {**row, "metrics": len(task.metrics)}, pairs


def zh_en():
    """WMT23 zh-en's task and Table 1's number of distinct PA values for it."""
    published = pd.read_csv(data.book_table("published/spa_table1.csv"),
                            dtype={"published": str}, keep_default_na=False)
    printed = published.set_index(["test set", "lp", "quantity"])["published"]
    return data.segment_task(data.load_mtme("wmt23", "zh-en")), int(printed["wmt23", "zh-en", "distinct PA"])


def without(zh, system):
    keep = zh.human.index != system
    return zh.human[keep], {m: f[keep] for m, f in zh.metrics.items()}


def distinct_pa(human, metrics):
    means = human.mean(axis=1)
    return pd.Series([spalib.pairwise_accuracy(means, f.mean(axis=1))
                      for f in metrics.values()]).round(10).nunique()


def kept_systems(zh, zh_distinct):
    """The systems whose removal keeps Table 1's number of distinct PA values, in data order."""
    return [s for s in zh.human.index if distinct_pa(*without(zh, s)) == zh_distinct]


def drop_test(zh, system, names=None):
    """The two-sided PA test without ``system``, on the metrics ``names`` (None: all)."""
    human, metrics = without(zh, system)
    names = names or list(metrics)
    return spalib.compare_metrics(human, {m: metrics[m] for m in names}, meta_metric="pa",
                                  permutation="inputs", alternative="two-sided", rng=REF_SEED,
                                  signs="mtme")


def pair_pvalues(c):
    """A comparison's p-values, one row per metric pair (better first, in its order)."""
    p = c.pvalues.stack(future_stack=True).dropna()
    return p.rename_axis(["better", "worse"]).rename("p-value").reset_index()


def drop(zh, system):
    """The drops files' rows of ``system``: the count and each metric pair's p-value."""
    c = drop_test(zh, system)
    return {"system": system, "significant PA": c.n_significant}, pair_pvalues(c).assign(system=system)


def main():
    rules, pairs = [], []
    for row, lp_pairs in _setup.timed_runs(tie_rules, LANGUAGE_PAIRS, label="tie rules"):
        rules.append(row)
        pairs += lp_pairs
    pd.DataFrame(rules).to_csv(OUT_RULES, index=False)
    pd.DataFrame(pairs).to_csv(OUT_PAIRS, index=False)
    zh, zh_distinct = zh_en()
    runs = _setup.timed_runs(lambda s: drop(zh, s), kept_systems(zh, zh_distinct), label="without")
    drops = pd.DataFrame([row for row, _ in runs])
    drops.to_csv(OUT_DROPS, index=False)
    pvalues = pd.concat([p for _, p in runs], ignore_index=True)[["system", "better", "worse", "p-value"]]
    pvalues.to_csv(OUT_DROP_PAIRS, index=False)
    # read back as the chapter reads it: each p-value the same float, bit for bit
    pd.testing.assert_frame_equal(pd.read_csv(OUT_DROP_PAIRS), pvalues, check_exact=True)
    print(pd.DataFrame(rules).to_string(index=False))
    print(drops.to_string(index=False))


if __name__ == "__main__":
    main()

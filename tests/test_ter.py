"""TER statistics from spalib's numba shift search equal sacrebleu 2.6.0's, segment by segment.

Real pairs: the distinct (hypothesis, reference) pairs of the WMT21+22 to-English outputs the book
scores, in six disjoint deterministic samples (five of 160 random pairs from each of the 13
year-language pairs, 2,080 each; one of 52 long pairs, the 25th, 50th, 75th and 100th longest of
each year-language pair among the rest), 10,452 distinct pairs in all; each test took under 40 s
on a shared two-core machine, the file three and a half minutes.  Made-up pairs: empty and
whitespace-only texts, identical texts, pure shifts, repeated words, punctuation, casing, lengths
120 times apart (a widened beam), shifts beyond the size and distance limits, and random texts
over 2-3 words that exhaust sacrebleu's budget of 1,000 shift candidates.  ``benchmarks/bench_ter.py --pairs 0`` compares every pair.
"""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu.metrics.lib_ter as lib_ter
from conftest import output_per_thread_count
from sacrebleu.metrics import TER

from spalib import data
from spalib.corpus_metrics import segment_statistics

GROUPS = ["year", "lp"]
PER_GROUP = 160
PARTS = 5
LONG_RANKS = (25, 50, 75, 100)  # the 25th, ..., 100th longest pair of each group


def sacrebleu_ter(hyps, refs):
    return np.array(TER()._extract_corpus_statistics(list(hyps), [list(refs)]), dtype=float)


def assert_equal_to_sacrebleu(hyps, refs):
    hyps, refs = list(hyps), list(refs)
    ours, theirs = segment_statistics("ter", hyps, refs, cache=False), sacrebleu_ter(hyps, refs)
    assert ours.shape == theirs.shape == (len(hyps), 2) and ours.dtype == np.float64
    differ = np.flatnonzero((ours != theirs).any(axis=1))
    assert differ.size == 0, (f"{differ.size} of {len(hyps)} differ; first: spalib {ours[differ[0]]}, sacrebleu "
                              f"{theirs[differ[0]]}, hyp {hyps[differ[0]]!r}, ref {refs[differ[0]]!r}")


@pytest.fixture(scope="module")
def pairs():
    """Distinct pairs in a deterministic random order within their group, with a length rank."""
    outputs = data.load_wmt_toen_da().outputs.drop_duplicates(["hypothesis", "reference"])
    outputs = outputs.assign(n_words=outputs["hypothesis"].str.split().str.len()
                             + outputs["reference"].str.split().str.len())
    order = outputs.groupby(GROUPS).sample(frac=1, random_state=0)
    order["shuffled_rank"] = order.groupby(GROUPS).cumcount()
    # the long pairs are ranked among the pairs no random sample takes
    rest = order[order["shuffled_rank"] >= PARTS * PER_GROUP]
    order["length_rank"] = rest.groupby(GROUPS)["n_words"].rank(ascending=False, method="first")
    return order


def random_part(pairs, part):
    rank = pairs["shuffled_rank"]
    return pairs[(rank >= part * PER_GROUP) & (rank < (part + 1) * PER_GROUP)]


def long_part(pairs):
    return pairs[pairs["length_rank"].isin(LONG_RANKS)]


def test_samples_are_disjoint_cover_every_language_pair_and_hold_over_10000_pairs(pairs):
    samples = [random_part(pairs, part) for part in range(PARTS)] + [long_part(pairs)]
    assert all(sample.groupby(GROUPS).ngroups == 13 for sample in samples)
    assert [len(s) for s in samples] == [13 * PER_GROUP] * PARTS + [13 * len(LONG_RANKS)]
    union = {(h, r) for s in samples for h, r in zip(s["hypothesis"], s["reference"])}
    assert len(union) == sum(len(s) for s in samples) == 10_452
    # the long sample is long: each pair has more words (hypothesis + reference) than 90% of all
    assert long_part(pairs)["n_words"].min() > pairs["n_words"].quantile(0.9)


@pytest.mark.parametrize("part", range(PARTS))
def test_equal_to_sacrebleu_on_random_wmt_pairs(pairs, part):
    sample = random_part(pairs, part)
    assert_equal_to_sacrebleu(sample["hypothesis"], sample["reference"])


def test_equal_to_sacrebleu_on_long_wmt_pairs(pairs):
    sample = long_part(pairs)
    assert_equal_to_sacrebleu(sample["hypothesis"], sample["reference"])


def words(prefix, n):
    return " ".join(f"{prefix}{k}" for k in range(n))


HAND_MADE = [
    ("", "the cat sat"),                                    # empty hypothesis: every reference word
    ("the cat sat", ""),                                    # empty reference: every hypothesis word
    ("", ""),
    ("   ", "a"), ("a\t b \n", "a  b"), (" a b", "a b \u2003"),  # whitespace only, odd whitespace
    ("the cat sat on the mat", "the cat sat on the mat"),   # identical
    ("on the mat the cat sat", "the cat sat on the mat"),   # one shift of three words
    ("b c d a", "a b c d"), ("d a b c", "a b c d"),         # one word shifted, either way
    ("the the the cat", "the cat the the"),                 # repeated words
    ("a a a a b", "b a a a a"), ("a b a b a b", "b a b a b a"),
    ("x y x y z z y x", "z x y y x z x y"),
    ("Hello, world!", "hello world !"),                     # punctuation stays attached
    ("hello , world !", "Hello, world!"),
    ("The CAT Sat", "the cat sat"),                         # lowercased
    ("STRASSE İstanbul", "straße i̇stanbul"),                # lower(), not casefold()
    ("word", words("r", 120)),                              # lengths 120 times apart: wider beam
    (words("h", 120), "h0"),
    (words("w", 15), words("w", 15)[3:] + " w0"),           # blocks longer than 10 words
    (words("w", 80), " ".join(words("w", 80).split()[60:] + words("w", 80).split()[:60])),  # far
    (words("w", 60) + " x y z", "x y z " + words("w", 60)),  # a block moved 60 positions
]


@pytest.mark.parametrize("hyp, ref", HAND_MADE)
def test_equal_to_sacrebleu_on_hand_made_pairs(hyp, ref):
    assert_equal_to_sacrebleu([hyp], [ref])


def test_equal_to_sacrebleu_when_the_shift_budget_runs_out(monkeypatch):
    """Random texts over two or three words: many equal blocks, many ties, and sacrebleu's budget of
    1,000 candidate shifts runs out (its last best shift is then not taken)."""
    rng = np.random.default_rng(1)
    texts = [[" ".join(rng.choice(list("abc")[:v], n)) for _ in range(2)]
             for n, v in [(n, v) for n in (5, 12, 20, 30, 35, 40) for v in (2, 3)] * 2]
    scored = []
    original = lib_ter._shift

    def counting_shift(*args):
        result = original(*args)
        scored.append(result[2])
        return result

    monkeypatch.setattr(lib_ter, "_shift", counting_shift)
    assert_equal_to_sacrebleu([h for h, _ in texts], [r for _, r in texts])
    assert max(scored) >= lib_ter._MAX_SHIFT_CANDIDATES


def test_statistics_do_not_depend_on_the_thread_count():
    code = ("import numpy as np\nfrom spalib.corpus_metrics import segment_statistics\n"
            "rng = np.random.default_rng(2)\n"
            "texts = [' '.join(rng.choice(list('abcdef'), rng.integers(0, 60))) for _ in range(400)]\n"
            "print(segment_statistics('ter', texts[::2], texts[1::2], cache=False).tolist())")
    outputs = output_per_thread_count(code)
    assert outputs[1] == outputs[2] and len(outputs[1]) > 1000

"""SummEval: the reader on the real files, on corrupted copies, and its download from a local mirror."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import spalib
from spalib import data
from spalib.data.__main__ import main as cli_main
from spalib.data._tables import resolve
from test_download import server  # noqa: F401  (the fixture: a throwaway HTTP server on 127.0.0.1)

FOLDER = data.dataset_path("summeval")
FILES = ("relevance", *data.SUMMEVAL_METRIC_FILES)


@pytest.fixture(scope="module")
def summeval():
    return data.load_summeval()


def lines_of(name: str) -> list[str]:
    path = resolve(FOLDER / f"{name}.jsonl")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return f.read().splitlines(keepends=True)


# --- the real files (present in CI) ----------------------------------------------------------------

def test_every_summary_has_3_expert_and_5_crowd_ratings_of_4_qualities(summeval):
    j = summeval.judgements
    assert j["document"].nunique() == 100 and j["system"].nunique() == 16
    per = j.groupby(["document", "system", "group", "dimension"]).size().unstack("group")
    assert len(per) == 1600 * 4 and (per["expert"] == 3).all() and (per["crowd"] == 5).all()
    assert set(j["score"]) <= {1, 2, 3, 4, 5}


def test_the_first_line_is_read_as_written(summeval):
    record = json.loads(lines_of("relevance")[0])
    key = record["instance_id"], record["summarizer_id"]
    j = summeval.judgements.set_index(["document", "system"]).loc[key]
    for group, (name, _) in data.SUMMEVAL_GROUPS.items():
        for dimension, values in record["metrics"][name].items():
            rows = j[(j["group"] == group) & (j["dimension"] == dimension)].sort_values("annotator")
            assert rows["score"].tolist() == values


def test_metric_scores_are_joined_on_the_key_not_the_line(summeval):
    table = summeval.metric_table()
    ratings_keys = [tuple(json.loads(line)[k] for k in ("instance_id", "summarizer_id"))
                    for line in lines_of("relevance")]
    bert = [json.loads(line) for line in lines_of("bertscore")]
    bert_keys = [(r["instance_id"], r["summarizer_id"]) for r in bert]
    assert ratings_keys != bert_keys and set(ratings_keys) == set(bert_keys)   # other orders
    for record in bert[:50]:
        key = record["instance_id"], record["summarizer_id"]
        assert table.loc[key, "bertscore/f1"] == record["metrics"]["bertscore"]["f1"]
    assert table.shape == (1600, 34) and not table.isna().any().any()


def test_ratings_average_the_dimensions_of_one_judgement(summeval):
    expert = summeval.ratings("expert")
    assert len(expert) == 1600 * 3
    j = summeval.judgements
    one = j[(j["group"] == "expert") & (j["annotator"] == 1)].groupby(["document", "system"])["score"].mean()
    ours = expert[expert["annotator"] == 1].set_index(["document", "system"])["score"]
    assert np.array_equal(ours.to_numpy(), one.loc[ours.index].to_numpy())
    relevance = summeval.ratings("crowd", "relevance")
    assert set(relevance["score"]) <= {1, 2, 3, 4, 5} and len(relevance) == 1600 * 5
    with pytest.raises(ValueError, match="`group` must be one of 'expert', 'crowd'"):
        summeval.ratings("turker")
    with pytest.raises(ValueError, match="`dimensions` must name some of"):
        summeval.ratings("expert", ["clarity"])
    with pytest.raises(ValueError, match="no metric 'ROUGE-WE'"):
        summeval.metric_table(["ROUGE-WE"])


def test_wei_jia_table4_crowd_column_and_expert_within_value(summeval):
    # Wei & Jia (2021), Table 4, with their notebook's ddof-0 variances: crowd 0.745 / 0.475 /
    # 0.574 / 1.686 (all printed digits); expert within-output SD 0.293
    crowd = summeval.ratings("crowd")
    pa = spalib.perfect_annotator(crowd["score"], crowd[["document", "system"]], ddof=0)
    sds = np.sqrt([pa.total_variance, pa.within_variance, pa.perfect_variance])
    assert np.round(sds, 3).tolist() == [0.745, 0.475, 0.574] and round(pa.ratio, 3) == 1.686
    expert = summeval.ratings("expert")
    pa = spalib.perfect_annotator(expert["score"], expert[["document", "system"]], ddof=0)
    assert round(float(np.sqrt(pa.within_variance)), 3) == 0.293


# --- corrupted copies: every problem names the file and line -------------------------------------

def corrupted_copy(tmp_path: Path, name: str, edit) -> Path:
    """A copy of the SummEval folder (uncompressed) with one file's lines edited."""
    folder = tmp_path / "summeval"
    folder.mkdir()
    for other in FILES:
        lines = lines_of(other)
        if other == name:
            lines = edit(lines)
        (folder / f"{other}.jsonl").write_text("".join(lines), encoding="utf-8")
    return folder


def set_field(line: str, change) -> str:
    record = json.loads(line)
    change(record)
    return json.dumps(record) + "\n"


def drop_rating(r):
    r["metrics"]["expert"]["fluency"] = r["metrics"]["expert"]["fluency"][:2]


def null_rating(r):
    r["metrics"]["turker"]["relevance"][4] = None


def six(r):
    r["metrics"]["expert"]["coherence"][0] = 6


def text_score(r):
    r["metrics"]["METEOR"] = "0.2"


def missing_metric(r):
    del r["metrics"]["bertscore"]["recall"]


def other_key(r):
    r["summarizer_id"] = "M99"


CASES = [
    ("relevance", lambda ls: ls + [ls[3]], r"relevance\.jsonl:1601: .* repeated \(first on line 4\)"),
    ("relevance", lambda ls: [ls[0], set_field(ls[1], drop_rating), *ls[2:]],
     r"relevance\.jsonl:2: metrics\.expert\.fluency must hold 3 ratings"),
    ("relevance", lambda ls: [*ls[:9], set_field(ls[9], null_rating), *ls[10:]],
     r"relevance\.jsonl:10: metrics\.turker\.relevance\[4\] = None is not a rating from 1 to 5"),
    ("relevance", lambda ls: [set_field(ls[0], six), *ls[1:]],
     r"relevance\.jsonl:1: metrics\.expert\.coherence\[0\] = 6 is not a rating"),
    ("relevance", lambda ls: ls[:-1], r"rouge\.jsonl:\d+: .* has no ratings in relevance\.jsonl"),
    ("rouge", lambda ls: ls[:-1], r"relevance\.jsonl:\d+: .* has no scores in rouge\.jsonl"),
    ("relevance", lambda ls: [ls[0][:40] + "\n", *ls[1:]], r"relevance\.jsonl:1: not a JSON object"),
    ("relevance", lambda ls: [*ls[:-1], ls[-1].rstrip("\n")], r"relevance\.jsonl:1600: the last line has no newline"),
    ("meteor", lambda ls: [*ls[:6], set_field(ls[6], text_score), *ls[7:]],
     r"meteor\.jsonl:7: metric 'METEOR' = '0\.2' is not a finite number"),
    ("bertscore", lambda ls: [*ls[:2], set_field(ls[2], missing_metric), *ls[3:]],
     r"bertscore\.jsonl:3: metrics \['bertscore/recall'\] differ from line 1's"),
    ("s3", lambda ls: [set_field(ls[0], other_key), *ls[1:]],
     r"s3\.jsonl:1: \(.*'M99'\) has no ratings in relevance\.jsonl"),
]


@pytest.mark.parametrize("name, edit, message", CASES)
def test_a_corrupted_file_is_an_error_naming_file_and_line(tmp_path, name, edit, message):
    folder = corrupted_copy(tmp_path, name, edit)
    with pytest.raises(ValueError, match=message):
        data.load_summeval(root=folder)


def as_meteor(r):
    r["metrics"] = {"METEOR": 0.1}


def test_a_metric_in_two_files_is_an_error(tmp_path):
    folder = corrupted_copy(tmp_path, "bertscore", lambda ls: [set_field(x, as_meteor) for x in ls])
    with pytest.raises(ValueError, match="metric 'METEOR' is in more than one of the metric files read"):
        data.load_summeval(root=folder)


def test_only_known_metric_files_are_read(tmp_path):
    with pytest.raises(ValueError, match="`metric_files` must name distinct files of rouge, "):
        data.load_summeval(metric_files=["rouge", "rouge"])
    with pytest.raises(ValueError, match="got \\['supert'\\]"):
        data.load_summeval(metric_files=["supert"])
    only = data.load_summeval(metric_files=[])
    assert only.metrics.empty and len(only.judgements) == 51_200


# --- the download, from a local server standing in for GitHub ------------------------------------

def test_download_fetches_the_pinned_files_and_checks_them(server, tmp_path, monkeypatch, capsys):  # noqa: F811
    served, base = server
    source = data.DATASETS["summeval"]
    assert all("/7b05bd874defac6c047deb2313c398318f2113e3/" in f.url for f in source.files)
    for remote, name in zip(source.files, FILES, strict=True):   # the mirror's layout: HOST/PATH
        copy = served / remote.url.split("://", 1)[1]
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text("".join(lines_of(name)), encoding="utf-8")
    monkeypatch.setenv("SPALIB_DATA", str(tmp_path))
    assert cli_main(["download", "summeval", "--mirror", base]) == 0
    assert cli_main(["verify", "summeval"]) == 0
    assert "summeval: 9 files match the manifest" in capsys.readouterr().out
    fetched = data.load_summeval(root=tmp_path / "summeval")
    assert fetched.metric_table().equals(data.load_summeval().metric_table())
    # a changed byte on the server: the manifest refuses it, and nothing is installed
    shutil.rmtree(tmp_path / "summeval")
    meteor = served / source.files[FILES.index("meteor")].url.split("://", 1)[1]
    meteor.write_text(meteor.read_text().replace("0.2", "0.3", 1))
    assert cli_main(["download", "summeval", "--mirror", base]) == 2
    assert "meteor.jsonl: SHA-256" in capsys.readouterr().err
    assert not (tmp_path / "summeval").exists()

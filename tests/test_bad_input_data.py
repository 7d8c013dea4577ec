"""spalib.data on the bad inputs of the bad-input review (rows 2-6, 48-82): one test per row.

Corrupted files are small edited copies of the real ones in ``tmp_path``, read with ``root=``
the copy; the data folder itself is only read.
"""

from __future__ import annotations

import gzip
import io
import shutil
import tarfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from spalib import data
from spalib.cli import main as spalib_main
from spalib.data.__main__ import main as data_main

WMT23 = data.dataset_path("mt-metrics-eval-v2") / "wmt23"
COMET = WMT23 / "metric-scores" / "en-de" / "COMET-refA.seg.score"
CLI_BASE = ["rank", "--test-set", "wmt23", "--lp", "en-de", "--k", "50", "--spa-resamples", "50", "--bootstrap", "0",
            "--quiet", "--stat", "pa"]


@pytest.fixture(scope="module")
def es():
    return data.load_mtme("wmt23", "en-de")


def copy(dataset: str, relative: str, root: Path) -> Path:
    """A copy of ``dataset/relative`` at ``root/relative``."""
    target = root / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(data.dataset_path(dataset) / relative, target)
    return target


def append_line(path: Path, number: int) -> int:
    """Append line ``number`` (1-based) of ``path`` again; return the new line's number."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines) + lines[number - 1], encoding="utf-8")
    return len(lines) + 1


def mtme_copy(root: Path, *metric_files: str) -> Path:
    """A copy of wmt23 en-de (texts, MQM and the named metric files) under ``root``."""
    files = ["sources/en-de.txt", "documents/en-de.docs", "references/en-de.refA.txt",
             "references/en-de.synthetic_ref.txt", "human-scores/en-de.mqm.seg.score"]
    files += [f"system-outputs/en-de/{p.name}" for p in (WMT23 / "system-outputs" / "en-de").iterdir()]
    files += [f"metric-scores/en-de/{name}" for name in metric_files]
    for relative in files:
        copy("mt-metrics-eval-v2", f"wmt23/{relative}", root)
    return root


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    return err.splitlines()[-1]


# --- section 1: duplicate rows -------------------------------------------------------------


def test_row_2_domain_scores_duplicate_row(tmp_path):
    root = mtme_copy(tmp_path, "COMET-refA.domain.score")
    line = append_line(root / "wmt23/metric-scores/en-de/COMET-refA.domain.score", 1)
    es = data.load_mtme("wmt23", "en-de", root=root)
    with pytest.raises(ValueError, match=rf"COMET-refA\.domain\.score:{line}: system '[^']+' in domain '[^']+' "
                                         r"appears twice \(first on line 1\)"):
        es.domain_scores("COMET-refA")


def test_row_3_williams_results_repeated_row(tmp_path):
    relative = "significance-williams/example-output/orig.williams-results.es-en"
    path = copy("wmt12", relative, tmp_path)
    lines = path.read_text().splitlines()
    first = next(k for k, line in enumerate(lines, 1) if line.startswith("AMBER\t"))
    path.write_text("\n".join(lines) + "\nAMBER\t-\t0.5\n")
    with pytest.raises(ValueError, match=rf"williams-results\.es-en:{len(lines) + 1}: metric 'AMBER' repeated "
                                         rf"\(first on line {first}\)"):
        data.read_williams_results(path)


def test_row_4_wmt17_syslevel_duplicate_row(tmp_path):
    line = append_line(copy("wmt-da", "2017/DA-syslevel.csv", tmp_path), 4)
    with pytest.raises(ValueError, match=rf"DA-syslevel\.csv:{line}: \(lp, system\) = \('[^']+', '[^']+'\) repeated"):
        data.load_wmt17_da("sys", root=tmp_path)


def test_row_5_wmt20_sys_scores_duplicate_row(tmp_path):
    line = append_line(copy("wmt-da", "2020/manual-evaluation/DA/ad-sys-scores-de-en.csv", tmp_path), 3)
    with pytest.raises(ValueError, match=rf"ad-sys-scores-de-en\.csv:{line}: \(SYS\) = \('[^']+',\) repeated"):
        data.load_wmt20_da("de-en", "sys", root=tmp_path)


def test_row_6_mqm_avg_seg_scores_duplicate_row(tmp_path):
    path = copy("wmt-mqm-human-evaluation", "ted/ende/mqm_ted_ende.avg_seg_scores.tsv", tmp_path)
    line = append_line(path, 2)
    with pytest.raises(ValueError, match=rf"avg_seg_scores\.tsv:{line}: \(system, seg_id\) = \('Facebook-AI', 1\) "
                                         "repeated"):
        data.read_mqm_avg_seg_scores(path)


# --- section 2: the public functions of spalib.data ----------------------------------------


@pytest.mark.parametrize("n_segments", ["557", 557.0, 0, True, None])
def test_row_48_seg_score_file_n_segments_not_an_int(n_segments):
    with pytest.raises(ValueError, match=rf"`n_segments` must be a positive integer; got {n_segments!r}"):
        data.read_seg_score_file(COMET, n_segments)
    with pytest.raises(TypeError, match="`systems` must hold str names; got 1"):
        data.read_seg_score_file(COMET, 557, systems=[1])


def test_row_49_extra_metric_frame_with_text_cells(es):
    frame = es.seg_scores("COMET-refA").astype(object)
    frame[frame > 0.9] = "x"
    with pytest.raises(ValueError, match=r"extra_metrics\['Mine'\] \(DataFrame\), system '[^']+', segment \d+: "
                                         "'x' is not a number"):
        data.segment_task(es, extra_metrics={"Mine": frame})


def test_row_50_extra_metric_named_like_a_released_basename(es):  # already fixed
    with pytest.raises(ValueError, match="two metrics would both be named 'COMET': 'COMET-refA' and 'COMET'; "
                                         "give your metric another name"):
        data.segment_task(es, basenames=True, extra_metrics={"COMET": COMET})


def test_row_51_complete_segments_duplicate_systems():
    a = pd.DataFrame([[1.0, np.nan, 2.0], [1.0, 2.0, 3.0]], index=["x", "x"])
    b = pd.DataFrame([[1.0, 2.0, 2.0], [1.0, np.nan, 3.0]], index=["x", "x"])
    with pytest.raises(ValueError, match=r"frame 0 \(scores\) has duplicate systems: \['x'\]"):
        data.complete_segments(a, b)
    with pytest.raises(ValueError, match=r"`systems` has duplicate labels: \['x'\]"):
        data.complete_segments(a.iloc[:1], systems=["x", "x"])


def test_row_52_from_long_segment_is_text():
    long = pd.DataFrame({"system": ["A", "A", "B"], "segment": [0, "a", 1], "score": [0.5, 0.7, 0.2]})
    with pytest.raises(ValueError, match=r"row 1: segment 'a' is not an integer index \(column 'segment'\)"):
        data.from_long(long)


def test_row_53_from_long_scores_are_text():
    long = pd.DataFrame({"system": ["A", "A", "B"], "segment": [0, 1, 1], "score": ["a", "b", "c"]})
    with pytest.raises(ValueError, match=r"row 0, column 'score' \(`score`\): 'a' is not a number"):
        data.from_long(long)
    with pytest.raises(ValueError, match=r"row 2, column 'score' \(`score`\): score inf is not finite"):
        data.from_long(long.assign(score=[0.5, 0.7, np.inf]))
    with pytest.raises(ValueError, match=r"row 1: the system \(column 'system'\) is missing"):
        data.from_long(long.assign(system=["A", None, "B"], score=0.5))


def test_row_54_write_seg_score_file_tab_in_system_name(tmp_path):
    path = tmp_path / "m.seg.score"
    with pytest.raises(ValueError, match=r"`frame`: system name 'A\\tB' cannot be written"):
        data.write_seg_score_file(pd.DataFrame([[0.5]], index=["A\tB"]), path)
    for name in ("A B", "", "\ufeffA", "A\u2028B"):  # every other name the reader would split or refuse
        with pytest.raises(ValueError, match="cannot be written"):
            data.write_seg_score_file(pd.DataFrame([[0.5]], index=[name]), path)
    assert not path.exists()


def test_row_55_write_seg_score_file_newline_in_system_name(tmp_path):
    path = tmp_path / "m.seg.score"
    with pytest.raises(ValueError, match=r"`frame`: system name 'A\\nB' cannot be written"):
        data.write_seg_score_file(pd.DataFrame([[0.5]], index=["A\nB"]), path)
    assert not path.exists()


def test_row_56_write_seg_score_file_infinite_score(tmp_path):
    path = tmp_path / "m.seg.score"
    with pytest.raises(ValueError, match="`frame`, system 'A', column 0: score inf is not finite"):
        data.write_seg_score_file(pd.DataFrame([[np.inf]], index=["A"]), path)
    with pytest.raises(ValueError, match=r"`frame` has duplicate systems: \['A'\]"):
        data.write_seg_score_file(pd.DataFrame([[0.5], [0.6]], index=["A", "A"]), path)
    with pytest.raises(ValueError, match="'x' is not a number"):
        data.write_seg_score_file(pd.DataFrame([["x"]], index=["A"]), path)
    with pytest.raises(TypeError, match="system names must be str; got 1"):
        data.write_seg_score_file(pd.DataFrame([[0.5]], index=[1]), path)
    assert not path.exists()


def test_write_seg_score_file_writes_only_what_its_reader_reads(tmp_path):
    frame = pd.DataFrame([[0.5, np.nan, -0.0], [1e308, -1e-300, 3.0], [1.0, 2.0, 3.0]],
                         index=["Zürich-MT", "None", "sys.1"])
    path = data.write_seg_score_file(frame, tmp_path / "m.seg.score")
    back = data.read_seg_score_file(path, 3)
    pd.testing.assert_frame_equal(back, frame.sort_index(), check_names=False, check_index_type=False,
                                  check_column_type=False)


def test_row_57_prepare_statistics_pair_not_loaded():
    da = data.load_wmt_toen_da((2022,), lps=["lv-en"])
    with pytest.raises(ValueError, match=r"`lp`: 'xx-en' is not among the judged outputs \(they have: lv-en\)"):
        data.prepare_statistics("ter", "xx-en", da=da)
    with pytest.raises(ValueError, match="`metric` must be one of"):
        data.prepare_statistics("meteor", "lv-en", da=da)


def test_row_58_mqm_weight_severity_none():
    with pytest.raises(TypeError, match="`severity` must be a str"):
        data.mqm_weight(None, "Accuracy")
    with pytest.raises(TypeError, match="`category` must be a str"):
        data.mqm_weight("Major", 3)


# --- section 3: readers on corrupt copies ---------------------------------------------------


def sys_file_without(tmp_path, keep) -> data.EvalSet:
    root = mtme_copy(tmp_path, "COMET-refA.sys.score")
    path = root / "wmt23/metric-scores/en-de/COMET-refA.sys.score"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(keep(lines)))
    return data.load_mtme("wmt23", "en-de", root=root)


def test_row_59_sys_scores_missing_systems(tmp_path):
    es = sys_file_without(tmp_path, lambda lines: lines[:-2])
    with pytest.raises(ValueError, match=r"COMET-refA\.sys\.score: no scores for system\(s\) \w+"):
        es.sys_scores("COMET-refA")


def test_row_60_sys_scores_missing_system(tmp_path):
    es = sys_file_without(tmp_path, lambda lines: [line for line in lines if not line.startswith("AIRC\t")])
    with pytest.raises(ValueError, match=r"COMET-refA\.sys\.score: no scores for system\(s\) AIRC$"):
        es.sys_scores("COMET-refA")


def test_row_61_system_output_plain_and_gzipped_is_one_system(tmp_path):
    root = mtme_copy(tmp_path)
    outputs = root / "wmt23/system-outputs/en-de"
    (outputs / "AIRC.txt.gz").write_bytes(gzip.compress((outputs / "AIRC.txt").read_bytes()))
    systems = data.load_mtme("wmt23", "en-de", root=root).systems
    assert systems.count("AIRC") == 1 and len(systems) == 14
    (outputs / "AIRC.txt.gz").write_bytes(gzip.compress((outputs / "GPT4-5shot.txt").read_bytes()))
    with pytest.raises(ValueError, match=r"AIRC\.txt\.gz and AIRC\.txt are two different copies of 'AIRC'"):
        data.load_mtme("wmt23", "en-de", root=root)


def test_row_62_wmt12_metrics_file_with_only_its_header(tmp_path):
    folder = "significance-williams/example-data-multi"
    copy("wmt12", f"{folder}/mt-systems-scored-by-humans", tmp_path)
    path = copy("wmt12", f"{folder}/mt-systems-scored-by-metrics", tmp_path)
    path.write_text(path.read_text().splitlines(keepends=True)[0])
    with pytest.raises(ValueError, match="mt-systems-scored-by-metrics: no metric scores for es-en"):
        data.load_wmt12("es-en", root=tmp_path)


def test_row_63_wmt12_unknown_lp():
    with pytest.raises(ValueError, match="`lp`: .*mt-systems-scored-by-humans has no human scores for 'xx-yy'; "
                                         "it has en-fr, es-en"):
        data.load_wmt12("xx-yy")


def test_row_64_wmt13_row_of_another_pair(tmp_path):
    source = data.dataset_path("wmt13") / "segment-mteval" / "seg-mteval-data.tar.gz"
    target = tmp_path / "segment-mteval" / "seg-mteval-data.tar.gz"
    target.parent.mkdir()
    member = "seg-mteval-data/raw-seg-scrs/seg.ad.es-en.csv"
    with tarfile.open(source) as tin, tarfile.open(target, "w:gz") as tout:
        for info in tin.getmembers():
            raw = tin.extractfile(info).read() if info.isfile() else None
            if info.name == member:
                lines = raw.decode().split("\n")
                assert lines[1].startswith("es-en")
                lines[1] = lines[1].replace("es-en", "de-en", 1)
                raw = "\n".join(lines).encode()
                info.size = len(raw)
            tout.addfile(info, io.BytesIO(raw) if raw is not None else None)
    with pytest.raises(ValueError, match=rf"seg-mteval-data\.tar\.gz!{member}:2: LP 'de-en', but the file holds "
                                         "es-en"):
        data.load_wmt13_da("es-en", root=tmp_path)


def wmt17_with(tmp_path, name: str, column: int, value: str) -> None:
    path = copy("wmt-da", f"2017/{name}", tmp_path)
    lines = path.read_text().splitlines()
    fields = lines[3].split(" ")
    fields[column] = value
    lines[3] = " ".join(fields)
    path.write_text("\n".join(lines) + "\n")


def test_row_65_wmt17_seg_score_not_a_number(tmp_path):
    wmt17_with(tmp_path, "DA-seglevel.csv", 4, "abc")
    with pytest.raises(ValueError, match=r"2017/DA-seglevel\.csv:4: score 'abc' is not a number"):
        data.load_wmt17_da("seg", root=tmp_path)


def test_row_66_wmt17_seg_score_nan(tmp_path):
    wmt17_with(tmp_path, "DA-seglevel.csv", 4, "nan")
    with pytest.raises(ValueError, match=r"2017/DA-seglevel\.csv:4: score 'nan' is not a finite number"):
        data.load_wmt17_da("seg", root=tmp_path)


def test_row_67_wmt17_sys_score_not_a_number(tmp_path):
    wmt17_with(tmp_path, "DA-syslevel.csv", 1, "abc")
    with pytest.raises(ValueError, match=r"2017/DA-syslevel\.csv:4: score 'abc' is not a number"):
        data.load_wmt17_da("sys", root=tmp_path)


def test_row_68_da_seg_scores_year_2020():
    with pytest.raises(ValueError, match=r"`year` must be 2021 or 2022 \(an int\); got 2020"):
        data.load_wmt_da_seg_scores(2020, "cs-en")


def test_row_69_da_seg_scores_year_as_a_string():
    with pytest.raises(ValueError, match=r"`year` must be 2021 or 2022 \(an int\); got '2021'"):
        data.load_wmt_da_seg_scores("2021", "cs-en")


def test_row_70_toen_da_unknown_pair():
    with pytest.raises(ValueError, match=r"`lps`: 'xx-en' has no public judgements for 2022 \(they have: cs-en, "):
        data.load_wmt_toen_da((2022,), lps=["xx-en"])
    with pytest.raises(ValueError, match="`lps`: a language pair is repeated"):
        data.load_wmt_toen_da((2022,), lps=["lv-en", "lv-en"])
    with pytest.raises(ValueError, match="`years` must hold 2021 and/or 2022, each once"):
        data.load_wmt_toen_da((2022, 2022), lps=["lv-en"])


def test_row_71_toen_da_one_pair_as_a_string():
    da = data.load_wmt_toen_da((2022,), lps="lv-en")
    assert len(da.judgements) == 4638 and set(da.outputs["lp"]) == {"lv-en"}


# --- section 4: the command line (fixed before; confirmed here) ------------------------------


def comet_copy(tmp_path, edit=lambda system, score: score) -> Path:
    lines = []
    for line in COMET.read_text().splitlines():
        system, score = line.split("\t")
        lines.append(f"{system}\t{edit(system, score)}\n")
    path = tmp_path / "mine.seg.score"
    path.write_text("".join(lines))
    return path


def test_row_72_cli_file_with_a_bom(tmp_path, capsys):
    path = comet_copy(tmp_path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert spalib_main([*CLI_BASE, "--add", f"Mine={path}"]) == 2
    assert one_error_line(capsys) == (f"spalib rank: error: {path}:1: the file starts with a byte-order mark (BOM); "
                                      "save it as UTF-8 without one")


def test_row_73_cli_every_airc_score_none(tmp_path, capsys):
    path = comet_copy(tmp_path, lambda system, score: "None" if system == "AIRC" else score)
    assert spalib_main([*CLI_BASE, "--add", f"Mine={path}"]) == 2
    assert one_error_line(capsys).endswith(f"extra_metrics['Mine'] ({path}): no score for system(s) AIRC on any "
                                           "segment (every line is None)")


def ranked_tables(tmp_path, capsys, scales) -> list[str]:
    tables = []
    for scale in scales:
        path = comet_copy(tmp_path, lambda system, score, scale=scale: repr(float(score) * scale))
        assert spalib_main([*CLI_BASE, "--add", f"Mine={path}", "--format", "tsv"]) == 0
        tables.append(capsys.readouterr().out)
    return tables


@pytest.mark.filterwarnings("ignore:overflow encountered in dot:RuntimeWarning",
                            "ignore:invalid value encountered in divide:RuntimeWarning")
def test_row_74_cli_scaled_scores_rank_as_the_originals(tmp_path, capsys):
    tables = ranked_tables(tmp_path, capsys, (1, 1e200))
    assert tables[0] == tables[1]
    assert any(line.startswith("Mine\t0.969697\t2") for line in tables[1].splitlines())


def test_row_74_cli_scaled_scores_give_no_numpy_warning(tmp_path, capsys):
    ranked_tables(tmp_path, capsys, (1e200,))


def test_row_75_cli_added_metric_named_like_a_released_one(capsys):
    assert spalib_main([*CLI_BASE, "--add", f"COMET={COMET}"]) == 2
    assert "two metrics would both be named 'COMET'" in one_error_line(capsys)


def test_row_76_cli_one_name_given_twice(tmp_path, capsys):
    assert spalib_main([*CLI_BASE, "--add", f"Mine={COMET}", "--add", f"Mine={COMET}"]) == 2
    assert "--add names 'Mine' more than once" in one_error_line(capsys)


@pytest.mark.parametrize("k", ["-1", "-5"])
def test_row_77_78_cli_k_negative(k, capsys):
    """--k 0 is mt-metrics-eval's "no significance" (tests/test_ranking.py); below it, refused."""
    with pytest.raises(SystemExit) as exit_:
        spalib_main([*CLI_BASE, "--k", k])
    assert exit_.value.code == 2
    assert one_error_line(capsys) == f"spalib rank: error: argument --k: must be at least 0, got {k}"


def test_row_79_cli_output_is_a_folder(tmp_path, capsys):
    assert spalib_main([*CLI_BASE, "--add", f"Mine={COMET}", "--output", str(tmp_path)]) == 2
    assert one_error_line(capsys) == f"spalib rank: error: --output {tmp_path} is a folder; give a file name"


def test_row_80_data_where_without_the_data_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SPALIB_DATA", str(tmp_path / "nope"))
    assert data_main(["where"]) == 2
    assert one_error_line(capsys) == f"python -m spalib.data: error: SPALIB_DATA={tmp_path / 'nope'} is not a folder"


def test_row_81_data_download_into_a_folder_that_has_it(tmp_path, capsys):
    (tmp_path / "wmt12").mkdir()
    assert data_main(["download", "wmt12", "--root", str(tmp_path)]) == 2
    assert one_error_line(capsys) == (f"python -m spalib.data: error: {tmp_path / 'wmt12'} already exists; delete "
                                      "it to download 'wmt12' again")
    assert list((tmp_path / "wmt12").iterdir()) == []


def test_row_82_data_verify_an_altered_file(tmp_path, monkeypatch, capsys):
    shutil.copytree(data.dataset_path("wmt12"), tmp_path / "wmt12")
    path = tmp_path / "wmt12/significance-williams/example-data/mt-systems-scored-by-humans"
    raw = bytearray(path.read_bytes())
    raw[10] ^= 1
    path.write_bytes(bytes(raw))
    monkeypatch.setenv("SPALIB_DATA", str(tmp_path))
    assert data_main(["verify", "wmt12"]) == 2
    assert one_error_line(capsys).startswith(f"python -m spalib.data: error: {path}: SHA-256 ")


# --- the renamed parameter of segment_task ---------------------------------------------------


def test_lower_is_better_metrics_negates_and_is_reported(es):
    frame = es.seg_scores("COMET-refA")
    task = data.segment_task(es, extra_metrics={"Mine": frame, "Distance": -frame},
                             lower_is_better_metrics="Distance")
    pd.testing.assert_frame_equal(task.metrics["Distance"], task.metrics["Mine"])
    assert task.report["lower_is_better_metrics"] == ["Distance"]
    with pytest.raises(ValueError, match=r"lower_is_better_metrics \(--lower-is-better on the command line\): "
                                         "no metric named Nope in the task; its metrics: BERTscore-refA, "):
        data.segment_task(es, lower_is_better_metrics=["Nope"])
    with pytest.raises(TypeError, match="`lower_is_better_metrics` must hold str names; got 1"):
        data.segment_task(es, lower_is_better_metrics=[1])
    with pytest.raises(TypeError, match="`basenames` must be True or False; got 'yes'"):
        data.segment_task(es, basenames="yes")


def test_download_checks_its_options_before_any_download(tmp_path):
    """bad-input #45, #50, #51, #52: named, and before the (large) download."""
    from spalib import data

    with pytest.raises(TypeError, match="`mirror` must be None or a URL prefix"):
        data.download("mt-metrics-eval-v2", tmp_path, mirror=5)
    with pytest.raises(TypeError, match="`test_sets` must be a str or an iterable of str"):
        data.download("mt-metrics-eval-v2", tmp_path, test_sets=5)
    for wrong in ([], ["wmt24x"]):
        with pytest.raises(ValueError, match="`test_sets` must name at least one of"):
            data.download("mt-metrics-eval-v2", tmp_path, test_sets=wrong)
    assert list(tmp_path.iterdir()) == []


def test_write_metric_inputs_and_wmt13_texts_name_a_bad_argument(tmp_path):
    """bad-input #166, #167, #179."""
    from spalib import data

    es = data.load_mtme("wmt23", "he-en")
    for out in (None, 5):
        with pytest.raises(TypeError, match="`out` must be a path"):
            data.write_metric_inputs(es, out)
    with pytest.raises(TypeError, match="`tokenized`"):
        data.load_wmt13_texts("es-en", tokenized="yes")

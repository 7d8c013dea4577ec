"""The WMT releases outside mt-metrics-eval: WMT12 system scores (Williams test), WMT13 segment DA,
WMT17-20 DA, and WMT21/22 to-English individual DA judgements with the texts they judge.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from spalib._core.validation import choice_iv, flag_iv
from spalib.data._tables import (no_duplicates, read_lines, resolve, space_table, split_lines, table, tar_member,
                                 to_float, to_int)
from spalib.data.paths import resolve_root

def load_wmt12(lp: str = "es-en", *, multi: bool = True, root: Path | str | None = None):
    """System-level human scores and metric scores of WMT12 (the Williams-test example data).

    Parameters
    ----------
    lp : {"es-en", "en-fr"}
    multi : bool
        Read ``example-data-multi`` (es-en: 12 metrics; en-fr: 2), else ``example-data`` (AMBER
        and BLEU).
    root : path, optional
        The ``wmt12`` folder.

    Returns
    -------
    (Series, DataFrame)
        Human scores indexed by system, and systems x metrics, both sorted by system name.

    Notes
    -----
    Metric scores keep their published orientation (TER is an error rate: lower is better).  A
    metric that lacks a system the humans scored, or scores one they did not, an ``lp`` without
    human or without metric scores, are errors.

    References
    ----------
    Graham, Y. and Baldwin, T. (2014). EMNLP. Data: ygraham/significance-williams.

    Examples
    --------
    >>> human, metrics = load_wmt12("es-en")
    >>> human.shape, metrics.shape
    ((12,), (12, 12))
    """
    if not isinstance(lp, str):
        raise TypeError(f"`lp` must be a str such as 'es-en'; got {lp!r}")
    multi = flag_iv(multi, "multi")
    folder = resolve_root(root, "wmt12") / "significance-williams"
    folder = folder / ("example-data-multi" if multi else "example-data")
    human_path, metrics_path = folder / "mt-systems-scored-by-humans", folder / "mt-systems-scored-by-metrics"
    human, human_lps = _read_wmt12_file(human_path, lp)
    if not human:
        raise ValueError(f"`lp`: {human_path} has no human scores for {lp!r}; it has "
                         f"{', '.join(sorted(human_lps)) or 'none'}")
    if list(human) != ["HUMAN"]:
        raise ValueError(f"{human_path}: expected METRIC = HUMAN only, found {', '.join(human)} for {lp}")
    human = human["HUMAN"]
    metrics, _ = _read_wmt12_file(metrics_path, lp)
    if not metrics:
        raise ValueError(f"{metrics_path}: no metric scores for {lp}")
    for metric, scores in metrics.items():
        missing, extra = set(human) - set(scores), set(scores) - set(human)
        if missing or extra:
            raise ValueError(f"{folder / 'mt-systems-scored-by-metrics'}: {metric} ({lp}) "
                             f"misses {sorted(missing)} / has extra {sorted(extra)} systems")
    human_s = pd.Series(human, name="HUMAN", dtype=float).rename_axis("system").sort_index()
    frame = pd.DataFrame(metrics).reindex(human_s.index)
    frame.columns.name = "metric"
    return human_s, frame


def _read_wmt12_file(path: Path, lp: str) -> tuple[dict[str, dict[str, float]], set[str]]:
    """The scores of ``lp`` (metric -> system -> score), and every language pair of the file."""
    frame, numbers = space_table(path, ["METRIC", "LP", "TESTSET", "SYSTEM", "SCORE"], sep="\t")
    out: dict[str, dict[str, float]] = {}
    for k, metric, row_lp, system, score in zip(numbers, frame["METRIC"], frame["LP"], frame["SYSTEM"], frame["SCORE"]):
        if row_lp != lp:
            continue
        scores = out.setdefault(metric, {})
        if system in scores:
            raise ValueError(f"{path}:{k}: {metric} scores {system!r} twice")
        scores[system] = to_float([score], path, [k], allow_none=False)[0]
    return out, set(frame["LP"])


def read_williams_results(path: Path | str) -> pd.DataFrame:
    """Read a p-value matrix written by the significance-williams R tool.

    Parameters
    ----------
    path : path
        ``#`` comment lines, then a tab-separated matrix (``-`` = not tested).

    Returns
    -------
    DataFrame
        Metric x metric p-values, NaN where not tested.

    Notes
    -----
    The released example output uses ``n - 2`` degrees of freedom (see :func:`spalib.williams_test`).
    A metric named by two rows or two columns is an error naming the line.

    References
    ----------
    Graham, Y. and Baldwin, T. (2014). EMNLP. Tool: ygraham/significance-williams.

    Examples
    --------
    >>> from spalib.data import dataset_path
    >>> path = dataset_path("wmt12") / "significance-williams/example-output/orig.williams-results.es-en"
    >>> read_williams_results(path).shape
    (2, 2)
    """
    path = resolve(Path(path))
    rows = [(k, line) for k, line in enumerate(read_lines(path), start=1) if line and not line.startswith("#")]
    if not rows:
        raise ValueError(f"{path}: no matrix found")
    header = rows[0][1].split("\t")[1:]
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        raise ValueError(f"{path}:{rows[0][0]}: metric {repeated[0]!r} names two columns")
    values, lines = {}, {}
    for k, line in rows[1:]:
        fields = line.split("\t")
        if len(fields) != len(header) + 1:
            raise ValueError(f"{path}:{k}: expected {len(header) + 1} fields, found {len(fields)}")
        if fields[0] in values:
            raise ValueError(f"{path}:{k}: metric {fields[0]!r} repeated (first on line {lines[fields[0]]})")
        lines[fields[0]] = k
        cells = [np.nan if f == "-" else f for f in fields[1:]]
        values[fields[0]] = [c if isinstance(c, float) else to_float([c], path, [k], allow_none=False)[0]
                             for c in cells]
    return pd.DataFrame.from_dict(values, orient="index", columns=header)


# --- WMT13 segment-level DA (Graham, Mathur & Baldwin 2015) ---------------------------------

WMT13_LPS = ("cs-en", "de-en", "es-en", "fr-en", "ru-en", "en-de", "en-es", "en-fr", "en-ru")


def _parse_lp_sys_sid_human(text: str, where: str, sep: str | None, lp: str) -> pd.DataFrame:
    frame, numbers = table(split_lines(text, where), where, ["LP", "SYSTEM", "SID", "HUMAN"], sep=sep)
    frame.columns = ["lp", "system", "sid", "human"]
    other = (frame["lp"] != lp).to_numpy()
    if other.any():
        k = int(np.argmax(other))
        raise ValueError(f"{where}:{numbers[k]}: LP {frame['lp'].iloc[k]!r}, but the file holds {lp}")
    bad = ~frame["sid"].str.isdigit()
    if bad.any():
        k = int(np.argmax(bad.to_numpy()))
        raise ValueError(f"{where}:{numbers[k]}: SID {frame['sid'].iloc[k]!r} is not a non-negative integer")
    frame["sid"] = frame["sid"].astype(int)
    frame["human"] = to_float(list(frame["human"]), Path(where), numbers, allow_none=False)
    dup = frame.duplicated(["system", "sid"])
    if dup.any():
        raise ValueError(f"{where}:{numbers[int(np.argmax(dup.to_numpy()))]}: (system, SID) repeated")
    return frame


def load_wmt13_da(lp: str, *, root: Path | str | None = None) -> pd.DataFrame:
    """WMT13 segment-level DA of Graham et al. (2015): one row per judged translation.

    Parameters
    ----------
    lp : str
        One of the nine WMT13 language pairs.
    root : path, optional
        The ``wmt13`` folder.

    Returns
    -------
    DataFrame
        Columns lp, system, sid (0-based line in newstest2013), raw, z: the mean raw (0-100) and
        standardised score of the item's (at least 15) crowd judgements.

    Notes
    -----
    The raw and z files must hold the same items, and only rows of ``lp`` (checked).

    References
    ----------
    Graham, Y., Mathur, N. and Baldwin, T. (2015). Accurate evaluation of segment-level machine
    translation metrics. NAACL. Data: ygraham/segment-mteval.

    Examples
    --------
    >>> load_wmt13_da("es-en").shape
    (840, 5)
    """
    if lp not in WMT13_LPS:
        raise ValueError(f"`lp` must be one of {', '.join(WMT13_LPS)}; got {lp!r}")
    archive = resolve_root(root, "wmt13") / "segment-mteval" / "seg-mteval-data.tar.gz"
    raw_name = f"seg-mteval-data/raw-seg-scrs/seg.ad.{lp}.csv"
    z_name = f"seg-mteval-data/z-seg-scrs/seg.ad.stnd.{lp}.csv"
    raw = _parse_lp_sys_sid_human(tar_member(archive, raw_name), f"{archive}!{raw_name}", "\t", lp)
    z = _parse_lp_sys_sid_human(tar_member(archive, z_name), f"{archive}!{z_name}", None, lp)
    merged = raw.rename(columns={"human": "raw"}).merge(
        z.rename(columns={"human": "z"}).drop(columns="lp"), on=["system", "sid"], how="outer", indicator=True)
    unmatched = merged["_merge"] != "both"
    if unmatched.any():
        raise ValueError(f"{archive}: {int(unmatched.sum())} items of {lp} are in only one of "
                         f"{raw_name} and {z_name}")
    return merged.drop(columns="_merge").sort_values(["system", "sid"]).reset_index(drop=True)


def load_wmt13_texts(lp: str, *, tokenized: bool = False, root: Path | str | None = None) -> pd.DataFrame:
    """The WMT13 DA items with their texts (Graham et al., COLING 2016 release).

    Parameters
    ----------
    lp : str
        One of the nine WMT13 language pairs.
    tokenized : bool
        False (default): the texts as written (the release's ``.pre-tok`` files, i.e. *before*
        tokenisation).  True: the release's Moses-tokenised files (spaces around punctuation,
        HTML entities such as ``&apos;``).
    root : path, optional
        The ``wmt13`` folder.

    Returns
    -------
    DataFrame
        Columns lp, system, sid, z, src, ref, mt, post_edit; line-aligned as published.

    Notes
    -----
    Every text file must have one line per scored item.  In the release, ``src.<lp>`` etc. are
    tokenised and ``src.pre-tok.<lp>`` etc. are the untokenised originals ("pre-tok" = before
    tokenisation); sacrebleu expects untokenised text, hence the default.

    References
    ----------
    Graham, Y. et al. (2016). Is all that glitters in machine translation quality estimation
    really gold? COLING. Data: ygraham/direct-assessment.

    Examples
    --------
    >>> load_wmt13_texts("es-en").shape
    (500, 8)
    """
    if lp not in WMT13_LPS:
        raise ValueError(f"`lp` must be one of {', '.join(WMT13_LPS)}; got {lp!r}")
    archive = resolve_root(root, "wmt13") / "direct-assessment" / "dataset.tar.gz"
    scores_name = f"dataset/human-scores.{lp}.csv"
    frame = _parse_lp_sys_sid_human(tar_member(archive, scores_name), f"{archive}!{scores_name}", None, lp)
    frame = frame.rename(columns={"human": "z"})
    tok = "" if flag_iv(tokenized, "tokenized") else ".pre-tok"
    for column, stem in (("src", "src"), ("ref", "ref"), ("mt", "sys"), ("post_edit", "human-post-edit")):
        name = f"dataset/{stem}{tok}.{lp}"
        lines = split_lines(tar_member(archive, name), f"{archive}!{name}")
        if len(lines) != len(frame):
            raise ValueError(f"{archive}!{name}: {len(lines)} lines, {scores_name} has {len(frame)} items")
        frame[column] = lines
    return frame


# --- WMT17-22 DA ----------------------------------------------------------------------------

def load_wmt17_da(level: str = "seg", *, root: Path | str | None = None) -> pd.DataFrame:
    """WMT17 DA from the metrics-task package.

    Parameters
    ----------
    level : {"seg", "sys"}
        ``"seg"``: ``DA-seglevel.csv`` (560 translations x 9 language pairs, mean of at least 15
        z-scored judgements); ``"sys"``: ``DA-syslevel.csv``.
    root : path, optional
        The ``wmt-da`` folder.

    Returns
    -------
    DataFrame
        Columns lp, testset, system, sid (1-based), human; or lp, system, human.

    Notes
    -----
    (lp, system, sid), at system level (lp, system), must be unique and sid an integer; an
    error names the file and line.

    References
    ----------
    Bojar, O. et al. (2017). Results of the WMT17 metrics shared task. WMT.

    Examples
    --------
    >>> load_wmt17_da("seg").shape, load_wmt17_da("sys").shape
    ((5040, 5), (152, 3))
    """
    level = choice_iv(level, "level", ("seg", "sys"))
    folder = resolve_root(root, "wmt-da") / "2017"
    if level == "seg":
        path = resolve(folder / "DA-seglevel.csv")
        frame, numbers = space_table(path, ["LP", "DATA", "SYSTEM", "SID", "HUMAN"], sep=None)
        frame.columns = ["lp", "testset", "system", "sid", "human"]
        frame["sid"] = to_int(frame["sid"], path, numbers, "SID")
        no_duplicates(frame, ["lp", "system", "sid"], path, numbers)
    else:
        path = resolve(folder / "DA-syslevel.csv")
        frame, numbers = space_table(path, ["LP", "HUMAN", "SYSTEM"], sep=None)
        frame = frame[["LP", "SYSTEM", "HUMAN"]]
        frame.columns = ["lp", "system", "human"]
        no_duplicates(frame, ["lp", "system"], path, numbers)
    frame["human"] = to_float(list(frame["human"]), path, numbers, allow_none=False)
    return frame


def load_wmt17_testset(lp: str, *, root: Path | str | None = None) -> pd.DataFrame:
    """The WMT17 DA-scored segments of one to-English pair with their texts.

    Parameters
    ----------
    lp : str
        E.g. ``"de-en"``.
    root : path, optional
        The ``wmt-da`` folder.

    Returns
    -------
    DataFrame
        Columns lp, source, translation, reference, human, sentbleu.

    Notes
    -----
    Texts are lower-cased and tokenised by the XMoverScore authors who released them; lv-en has
    435 of the 560 items.

    References
    ----------
    Bojar, O. et al. (2017). Results of the WMT17 metrics shared task. WMT. Data:
    AIPHES/ACL20-Reference-Free-MT-Evaluation.

    Examples
    --------
    >>> load_wmt17_testset("de-en").shape
    (560, 6)
    """
    path = resolve_root(root, "wmt-da") / "2017" / "testset" / f"testset_{lp}.tsv"
    frame, numbers = space_table(path, ["LP", "source", "translation", "reference", "HUMAN_score", "sentBLEU"],
                                  sep="\t")
    out = pd.DataFrame({"lp": frame["LP"], "source": frame["source"], "translation": frame["translation"],
                        "reference": frame["reference"]})
    out["human"] = to_float(list(frame["HUMAN_score"]), path, numbers, allow_none=False)
    out["sentbleu"] = to_float(list(frame["sentBLEU"]), path, numbers, allow_none=False)
    return out


def load_wmt20_da(lp: str, level: str = "seg", *, root: Path | str | None = None) -> pd.DataFrame:
    """WMT20 DA from the metrics-task repository.

    Parameters
    ----------
    lp : str
        E.g. ``"de-en"``.
    level : {"seg", "sys"}
        ``"seg"``: ``metrics-ad-seg-scores-<lp>.csv``; ``"sys"``: ``ad-sys-scores-<lp>.csv``.
    root : path, optional
        The ``wmt-da`` folder.

    Returns
    -------
    DataFrame
        ``"seg"``: system, segid, raw, z, n, sid (one row per judged translation: mostly one or two
        judgements, not 15-judgement means); ``"sys"``: system, raw, z, n, n_all.

    Notes
    -----
    Counts must be written as integers and (system, SID), at system level the system, must be
    unique.

    References
    ----------
    Mathur, N. et al. (2020). Results of the WMT20 metrics shared task. WMT.

    Examples
    --------
    >>> load_wmt20_da("de-en").shape
    (9389, 6)
    """
    if not isinstance(lp, str):
        raise TypeError(f"`lp` must be a str such as 'de-en'; got {lp!r}")
    level = choice_iv(level, "level", ("seg", "sys"))
    folder = resolve_root(root, "wmt-da") / "2020" / "manual-evaluation" / "DA"
    if level == "seg":
        path = folder / f"metrics-ad-seg-scores-{lp}.csv"
        frame, numbers = space_table(path, ["SYS", "SEGID", "RAW.SCR", "Z.SCR", "N", "SID"], sep=None)
        no_duplicates(frame, ["SYS", "SID"], path, numbers)
        return pd.DataFrame({
            "system": frame["SYS"], "segid": frame["SEGID"],
            "raw": to_float(list(frame["RAW.SCR"]), path, numbers, allow_none=False),
            "z": to_float(list(frame["Z.SCR"]), path, numbers, allow_none=False),
            "n": to_int(frame["N"], path, numbers, "N"),
            "sid": to_int(frame["SID"], path, numbers, "SID"),
        })
    if level == "sys":
        path = folder / f"ad-sys-scores-{lp}.csv"
        frame, numbers = space_table(path, ["RAW.SCR", "Z.SCR", "N", "SYS", "N.ALL"], sep=None)
        no_duplicates(frame, ["SYS"], path, numbers)
        return pd.DataFrame({
            "system": frame["SYS"],
            "raw": to_float(list(frame["RAW.SCR"]), path, numbers, allow_none=False),
            "z": to_float(list(frame["Z.SCR"]), path, numbers, allow_none=False),
            "n": to_int(frame["N"], path, numbers, "N"),
            "n_all": to_int(frame["N.ALL"], path, numbers, "N.ALL"),
        })


WMT_TOEN_DA_LPS = {
    2021: ("cs-en", "de-en", "ha-en", "is-en", "ja-en", "ru-en"),
    2022: ("cs-en", "de-en", "ja-en", "lv-en", "ru-en", "uk-en", "zh-en"),
}
"""The WMT21/22 to-English pairs whose individual DA judgements are public (WMT21 zh-en's are not)."""

_TOEN_TESTSET = {2021: "newstest2021", 2022: "generaltest2022"}
_TEXT_LP = {"lv-en": "liv-en"}  # the WMT22 DA files spell Livonian `lv`, the texts `liv`


def _year_iv(year, name: str = "year") -> int:
    """2021 or 2022, as an int (not a str, a float or a bool)."""
    if isinstance(year, (bool, np.bool_)) or not isinstance(year, numbers.Integral) or year not in WMT_TOEN_DA_LPS:
        raise ValueError(f"`{name}` must be 2021 or 2022 (an int); got {year!r}")
    return int(year)


def _toen_folder(year: int, root) -> Path:
    year = _year_iv(year)
    return resolve_root(root, "wmt-da") / str(year) / f"newstest{year}-toen"


def _check_toen_lp(year: int, lp: str) -> None:
    year = _year_iv(year)
    if not isinstance(lp, str) or (lp not in WMT_TOEN_DA_LPS[year] and not (year == 2021 and lp == "zh-en")):
        raise ValueError(f"`lp` must be one of {', '.join(WMT_TOEN_DA_LPS[year])} for {year}; got {lp!r}")


def read_worker_mean_sd(path: Path | str) -> pd.DataFrame:
    """Per-worker mean and standard deviation of raw DA scores, as printed by R.

    Parameters
    ----------
    path : path
        An ``ad-<sl>en-trk-mean-sd.txt`` file: three lines per worker (``[1] "M0403"``, the mean,
        the sd; ``NA`` for a worker with one score).

    Returns
    -------
    DataFrame
        Columns worker, mean, sd (NaN for ``NA``).

    Notes
    -----
    Raw scores are recovered from the z-scores as ``z * sd + mean``.

    References
    ----------
    Kocmi, T. et al. (2022). Findings of WMT22. Data: wmt-conference/wmt22-news-systems.

    Examples
    --------
    >>> from spalib.data import dataset_path
    >>> read_worker_mean_sd(dataset_path("wmt-da") / "2022/newstest2022-toen/ad-lven-trk-mean-sd.txt").shape
    (101, 3)
    """
    path = resolve(Path(path))
    lines = read_lines(path)
    if not lines or len(lines) % 3:
        raise ValueError(f"{path}: expected three lines per worker, found {len(lines)} lines")
    workers, means, sds = [], [], []
    for k in range(0, len(lines), 3):
        name = lines[k].removeprefix('[1] "').removesuffix('"')
        if not lines[k].startswith('[1] "') or name == lines[k] or not name:
            raise ValueError(f"{path}:{k + 1}: expected a worker id like [1] \"M0403\", found {lines[k]!r}")
        for offset, out in ((1, means), (2, sds)):
            field = lines[k + offset].removeprefix("[1] ")
            if field == lines[k + offset]:
                raise ValueError(f"{path}:{k + offset + 1}: expected '[1] <number>', found {lines[k + offset]!r}")
            out.append(np.nan if field == "NA" else to_float([field], path, [k + offset + 1], allow_none=False)[0])
        workers.append(name)
    frame = pd.DataFrame({"worker": workers, "mean": means, "sd": sds})
    dup = frame["worker"].duplicated()
    if dup.any():
        line = 3 * int(np.argmax(dup.to_numpy())) + 1
        raise ValueError(f"{path}:{line}: worker {frame['worker'][dup].iloc[0]!r} repeated")
    return frame


def load_wmt_da_judgements(year: int, lp: str, *, root: Path | str | None = None) -> pd.DataFrame:
    """Individual WMT21/22 to-English crowd DA judgements, one row per judgement.

    Parameters
    ----------
    year : {2021, 2022}
    lp : str
        As the DA files spell it (``"lv-en"`` for Livonian).
    root : path, optional
        The ``wmt-da`` folder.

    Returns
    -------
    DataFrame
        The published columns (``score`` is the judgement z-scored by its worker; ``type`` is
        SYSTEM, REPEAT, REF or BAD_REF) plus ``raw``, the 0-100 score.

    Notes
    -----
    ``raw = score * sd + mean`` with the worker's entry of ``ad-<sl>en-trk-mean-sd.txt``.
    Averaged over SYSTEM and REPEAT rows, ``raw`` and ``score`` reproduce the published
    ``ad-seg-scores`` means exactly.  A judgement whose worker has no finite mean and sd is an
    error.

    References
    ----------
    Akhbardeh, F. et al. (2021), Kocmi, T. et al. (2022): Findings of WMT21/22. Data:
    wmt-conference/wmt21-news-systems and wmt22-news-systems.

    Examples
    --------
    >>> load_wmt_da_judgements(2022, "lv-en").shape
    (5782, 13)
    """
    _check_toen_lp(year, lp)
    src, tgt = lp.split("-")
    folder = _toen_folder(year, root)
    path = folder / f"ad-{src}{tgt}-good-stnd-redup.csv"
    columns = ["HITId", "WorkerId", "Input.src", "Input.trg", "Input.item", "hit", "sys_id", "rid",
               "type", "sid", "score", "time"]
    frame, numbers = space_table(path, columns, sep="\t")
    frame["score"] = to_float(list(frame["score"]), path, numbers, allow_none=False)
    frame["sid"] = to_int(frame["sid"], path, numbers, "sid")
    workers = read_worker_mean_sd(folder / f"ad-{src}{tgt}-trk-mean-sd.txt").set_index("worker")
    mean = frame["WorkerId"].map(workers["mean"]).to_numpy()
    sd = frame["WorkerId"].map(workers["sd"]).to_numpy()
    unknown = ~(np.isfinite(mean) & np.isfinite(sd))
    if unknown.any():
        k = int(np.argmax(unknown))
        raise ValueError(f"{path}:{numbers[k]}: worker {frame['WorkerId'].iloc[k]!r} has no finite mean and sd "
                         f"in ad-{src}{tgt}-trk-mean-sd.txt")
    frame["raw"] = frame["score"].to_numpy() * sd + mean
    return frame


def load_wmt_da_seg_scores(year: int, lp: str, *, root: Path | str | None = None) -> pd.DataFrame:
    """Per-(system, segment) WMT21/22 DA means.

    Parameters
    ----------
    year : {2021, 2022}
    lp : str
    root : path, optional
        The ``wmt-da`` folder.

    Returns
    -------
    DataFrame
        Columns system, sid, raw, z, n.

    Notes
    -----
    (system, sid) must be unique; sid and n must be written as integers.

    References
    ----------
    Akhbardeh, F. et al. (2021), Kocmi, T. et al. (2022): Findings of WMT21/22. Data:
    wmt-conference/wmt21-news-systems and wmt22-news-systems.

    Examples
    --------
    >>> load_wmt_da_seg_scores(2022, "lv-en").shape
    (2070, 5)
    """
    _check_toen_lp(year, lp)
    path = _toen_folder(year, root) / f"ad-seg-scores-{lp}.csv"
    frame, numbers = space_table(path, ["SYS", "SID", "RAW.SCR", "Z.SCR", "N"], sep=None)
    no_duplicates(frame, ["SYS", "SID"], path, numbers)
    return pd.DataFrame({
        "system": frame["SYS"],
        "sid": to_int(frame["SID"], path, numbers, "SID"),
        "raw": to_float(list(frame["RAW.SCR"]), path, numbers, allow_none=False),
        "z": to_float(list(frame["Z.SCR"]), path, numbers, allow_none=False),
        "n": to_int(frame["N"], path, numbers, "N"),
    })


@dataclass(frozen=True)
class ToEnglishTexts:
    """Sources, references and system outputs of one WMT21/22 to-English test set, line-aligned
    (line n is segment id n of the DA files).
    """

    year: int
    lp: str
    source: list[str]
    references: dict[str, list[str]]
    outputs: dict[str, list[str]]

    @property
    def std_ref(self) -> str:
        """The reference the book scores metrics against: the first published one (A; B for WMT22 cs-en)."""
        return min(self.references)


def load_wmt_toen_texts(year: int, lp: str, *, root: Path | str | None = None) -> ToEnglishTexts:
    """The texts of a WMT21/22 to-English test set: sources, every reference, every system output.

    Parameters
    ----------
    year : {2021, 2022}
    lp : str
        As the DA files spell it (``"lv-en"`` for Livonian).
    root : path, optional
        The ``wmt-da`` folder.

    Returns
    -------
    ToEnglishTexts

    Notes
    -----
    Every file must have as many lines as the source (a file that does not is an error naming it).

    References
    ----------
    Akhbardeh, F. et al. (2021), Kocmi, T. et al. (2022): Findings of WMT21/22. Data:
    wmt-conference/wmt21-news-systems and wmt22-news-systems.

    Examples
    --------
    >>> texts = load_wmt_toen_texts(2022, "lv-en")
    >>> texts.std_ref, len(texts.source), len(texts.outputs)
    ('A', 420, 5)
    """
    _check_toen_lp(year, lp)
    text_lp = _TEXT_LP.get(lp, lp)
    folder = resolve_root(root, "wmt-da") / str(year) / "txt"
    stem = f"{_TOEN_TESTSET[year]}.{text_lp}"
    source = read_lines(folder / "sources" / f"{stem}.src.{text_lp.split('-')[0]}")

    def named(sub: str, kind: str) -> dict[str, list[str]]:
        out = {}
        for path in sorted((folder / sub).glob(f"{stem}.{kind}.*.en*")):
            name = path.name.removesuffix(".gz").removeprefix(f"{stem}.{kind}.").removesuffix(".en")
            lines = read_lines(path)
            if len(lines) != len(source):
                raise ValueError(f"{path}: {len(lines)} lines, the source has {len(source)}")
            out[name] = lines
        if not out:
            raise FileNotFoundError(f"no {stem}.{kind}.*.en files in {folder / sub}")
        return out

    return ToEnglishTexts(year, lp, source, named("references", "ref"), named("system-outputs", "hyp"))


def da_output_names(da_systems, output_systems) -> dict[str, str | None]:
    """Join DA system names to output-file names, checking every join.

    Parameters
    ----------
    da_systems : iterable of str
        System names as in the DA files (with a submission id, ``XMU.17``).
    output_systems : iterable of str
        System names of the output files (``XMU``).

    Returns
    -------
    dict
        DA name -> output name, or None for a human translation.

    Notes
    -----
    The id is stripped; WMT21's ``Nemo`` is the output ``NVIDIA-NeMo``.  A DA system with no
    output, or two DA systems with the same output, is an error.

    References
    ----------
    The PROVENANCE.md of ``wmt-da/2021`` and ``wmt-da/2022``.

    Examples
    --------
    >>> da_output_names(["XMU.17", "HUMAN.0"], ["XMU"])
    {'XMU.17': 'XMU', 'HUMAN.0': None}
    """
    outputs = set(output_systems)
    joined: dict[str, str | None] = {}
    for name in da_systems:
        base = name.rsplit(".", 1)[0] if name.rsplit(".", 1)[-1].isdigit() else name
        if base.startswith("HUMAN"):
            joined[name] = None
        elif base in outputs:
            joined[name] = base
        elif base == "Nemo" and "NVIDIA-NeMo" in outputs:
            joined[name] = "NVIDIA-NeMo"
        else:
            raise ValueError(f"DA system {name!r} has no system output (outputs: {', '.join(sorted(outputs))})")
    taken = [o for o in joined.values() if o is not None]
    if len(taken) != len(set(taken)):
        raise ValueError(f"two DA systems join the same output: {sorted(joined.items(), key=str)}")
    return joined


@dataclass(frozen=True)
class ToEnglishDA:
    """WMT21/22 to-English crowd DA judgements joined to the outputs they judge.

    ``judgements``: one row per judgement kept: year, lp, system (output name), sid, worker,
    type, z, raw, output (row of ``outputs``).  ``outputs``: one row per judged system output:
    year, lp, system, sid, hypothesis, reference (the test set's :attr:`ToEnglishTexts.std_ref`).
    ``dropped``: what was left out and why (judgement types not asked for, human translations),
    with the number of judgements.
    """

    judgements: pd.DataFrame
    outputs: pd.DataFrame
    dropped: pd.DataFrame


def load_wmt_toen_da(years=(2021, 2022), *, lps=None, types=("SYSTEM", "REPEAT"),
                     root: Path | str | None = None) -> ToEnglishDA:
    """Every public WMT21/22 to-English DA judgement with the system output it judges.

    Parameters
    ----------
    years : {2021, 2022} or iterable of them
    lps : str or iterable of str, optional
        Language pairs (default: all of :data:`WMT_TOEN_DA_LPS` for each year); each must have
        public judgements in one of ``years``.
    types : iterable of str
        Judgement types to keep.  SYSTEM and REPEAT (the default) are the rows WMT averages into
        its segment and system scores; REF and BAD_REF are quality-control items.
    root : path, optional
        The ``wmt-da`` folder.

    Returns
    -------
    ToEnglishDA
        ``judgements``, ``outputs`` and ``dropped``.

    Notes
    -----
    Human translations judged as systems have no output to score and are dropped (reported);
    every output joins its DA system checked by :func:`da_output_names`, and every judged
    segment must lie inside the test set.

    References
    ----------
    Akhbardeh, F. et al. (2021), Kocmi, T. et al. (2022): Findings of WMT21/22. Data:
    wmt-conference/wmt21-news-systems and wmt22-news-systems.

    Examples
    --------
    >>> da = load_wmt_toen_da((2022,), lps=["lv-en"])
    >>> len(da.judgements), len(da.outputs)
    (4638, 2070)
    """
    years = (years,) if isinstance(years, numbers.Integral) and not isinstance(years, (bool, np.bool_)) else years
    if isinstance(years, str) or not hasattr(years, "__iter__"):
        raise TypeError(f"`years` must be 2021, 2022 or an iterable of them; got {years!r}")
    years = tuple(_year_iv(year, "years") for year in years)
    if not years or len(set(years)) != len(years):
        raise ValueError(f"`years` must hold 2021 and/or 2022, each once; got {years!r}")
    types = (types,) if isinstance(types, str) else tuple(types)
    known = {"SYSTEM", "REPEAT", "REF", "BAD_REF"}
    if not types or set(types) - known:
        raise ValueError(f"`types` must be a non-empty subset of {sorted(known)}; got {types!r}")
    if lps is not None:
        lps = (lps,) if isinstance(lps, str) else lps
        if not hasattr(lps, "__iter__"):
            raise TypeError(f"`lps` must be a language pair or an iterable of them; got {lps!r}")
        lps = tuple(lps)
        available = {lp for year in years for lp in WMT_TOEN_DA_LPS[year]}
        unknown = [lp for lp in lps if not isinstance(lp, str) or lp not in available]
        if not lps or unknown or len(set(lps)) != len(lps):
            problem = (f"{unknown[0]!r} has no public judgements" if unknown
                       else "no language pair" if not lps else "a language pair is repeated")
            raise ValueError(f"`lps`: {problem} for {', '.join(map(str, years))} (they have: "
                             f"{', '.join(sorted(available))}); got {lps!r}")
    frames, outputs, dropped = [], [], []
    for year in years:
        year_lps = WMT_TOEN_DA_LPS[year] if lps is None else [lp for lp in lps if lp in WMT_TOEN_DA_LPS[year]]
        for lp in year_lps:
            raw = load_wmt_da_judgements(year, lp, root=root)
            texts = load_wmt_toen_texts(year, lp, root=root)
            for kind, count in raw.loc[~raw["type"].isin(types), "type"].value_counts().sort_index().items():
                dropped.append({"year": year, "lp": lp, "what": f"{kind} judgements", "judgements": int(count)})
            kept = raw[raw["type"].isin(types)]
            names = da_output_names(sorted(kept["sys_id"].unique()), texts.outputs)
            system = kept["sys_id"].map(names)
            for da_name in sorted(n for n, o in names.items() if o is None):
                dropped.append({"year": year, "lp": lp, "what": f"{da_name} (human translation)",
                                "judgements": int((kept["sys_id"] == da_name).sum())})
            kept = kept.assign(system=system)[system.notna().to_numpy()]
            out_of_range = (kept["sid"] < 1) | (kept["sid"] > len(texts.source))
            if out_of_range.any():
                sid = int(kept["sid"][out_of_range].iloc[0])
                raise ValueError(f"{_toen_folder(year, root)}: {lp} judges segment {sid}, "
                                 f"outside the test set's 1-{len(texts.source)}")
            judged = kept[["system", "sid"]].drop_duplicates().sort_values(["system", "sid"])
            judged = judged.assign(
                year=year, lp=lp,
                hypothesis=[texts.outputs[s][i - 1] for s, i in zip(judged["system"], judged["sid"])],
                reference=[texts.references[texts.std_ref][i - 1] for i in judged["sid"]])
            outputs.append(judged[["year", "lp", "system", "sid", "hypothesis", "reference"]])
            frames.append(pd.DataFrame({"year": year, "lp": lp, "system": kept["system"], "sid": kept["sid"],
                                        "worker": kept["WorkerId"], "type": kept["type"],
                                        "z": kept["score"], "raw": kept["raw"]}))
    outputs_frame = pd.concat(outputs, ignore_index=True)
    judgements = pd.concat(frames, ignore_index=True)
    index = pd.MultiIndex.from_frame(outputs_frame[["year", "lp", "system", "sid"]])
    judgements["output"] = index.get_indexer(pd.MultiIndex.from_frame(judgements[["year", "lp", "system", "sid"]]))
    return ToEnglishDA(judgements, outputs_frame,
                       pd.DataFrame(dropped, columns=["year", "lp", "what", "judgements"]))


def prepare_statistics(metric: str, lp: str | None = None, *, da: ToEnglishDA | None = None) -> np.ndarray:
    """The sacrebleu statistics of every judged output of :func:`load_wmt_toen_da`, cached.

    Parameters
    ----------
    metric : {"bleu", "chrf", "ter"}
    lp : str, optional
        One language pair (default: all); it must be one of ``da``'s.
    da : ToEnglishDA, optional
        Already loaded judgements (loaded if not given).

    Returns
    -------
    ndarray
        One row of statistics per row of ``da.outputs`` (of that language pair).

    Notes
    -----
    Computed by :func:`spalib.corpus_metrics.segment_statistics`, which caches them on disk
    (``python -m spalib.data prepare`` fills the cache for the book).

    References
    ----------
    Post, M. (2018). A call for clarity in reporting BLEU scores. WMT.

    Examples
    --------
    >>> prepare_statistics("ter", "lv-en").shape
    (2070, 2)
    """
    from spalib.corpus_metrics import CORPUS_METRICS, segment_statistics

    metric = choice_iv(metric, "metric", tuple(CORPUS_METRICS))
    if lp is not None and not isinstance(lp, str):
        raise TypeError(f"`lp` must be None or a language pair such as 'lv-en'; got {lp!r}")
    if da is not None and not isinstance(da, ToEnglishDA):
        raise TypeError(f"`da` must be None or a ToEnglishDA (from load_wmt_toen_da); got {type(da).__name__}")
    if lp is not None and da is None and lp not in {p for pairs in WMT_TOEN_DA_LPS.values() for p in pairs}:
        raise ValueError(f"`lp`: no public to-English DA judgements for {lp!r}")
    outputs = (da or load_wmt_toen_da()).outputs
    if lp is not None:
        if lp not in set(outputs["lp"]):
            raise ValueError(f"`lp`: {lp!r} is not among the judged outputs (they have: "
                             f"{', '.join(sorted(set(outputs['lp'])))})")
        outputs = outputs[outputs["lp"] == lp]
    return segment_statistics(metric, outputs["hypothesis"], outputs["reference"])

"""The WMT releases outside mt-metrics-eval: WMT12 system scores (Williams test), WMT13 segment DA,
WMT17-20 DA, and WMT21/22 to-English individual DA judgements with the texts they judge.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from spalib.data._tables import (no_duplicates, read_lines, resolve, space_table, split_lines, table, tar_member,
                                 to_float, to_int)
from spalib.data.paths import resolve_root

def load_wmt12(lp: str = "es-en", *, multi: bool = True, root: Path | str | None = None):
    """System-level human scores and metric scores of WMT12 (the Williams-test example data).

    ``multi=True`` reads ``example-data-multi`` (es-en: 12 metrics; en-fr: 2), else
    ``example-data`` (AMBER and BLEU).  Returns ``(human, metrics)``: a Series indexed by system
    and a DataFrame (systems × metrics), both sorted by system name.  Metric scores keep their
    published orientation (TER is an error rate: lower is better).  A metric that lacks a system
    the humans scored, or scores a system they did not, is an error.
    """
    folder = resolve_root(root, "wmt12") / "significance-williams"
    folder = folder / ("example-data-multi" if multi else "example-data")
    human = _read_wmt12_file(folder / "mt-systems-scored-by-humans", lp)
    if list(human) != ["HUMAN"]:
        raise ValueError(f"{folder / 'mt-systems-scored-by-humans'}: expected METRIC = HUMAN only")
    human = human["HUMAN"]
    metrics = _read_wmt12_file(folder / "mt-systems-scored-by-metrics", lp)
    if not human:
        raise ValueError(f"{folder}: no human scores for {lp}")
    for metric, scores in metrics.items():
        missing, extra = set(human) - set(scores), set(scores) - set(human)
        if missing or extra:
            raise ValueError(f"{folder / 'mt-systems-scored-by-metrics'}: {metric} ({lp}) "
                             f"misses {sorted(missing)} / has extra {sorted(extra)} systems")
    human_s = pd.Series(human, name="HUMAN", dtype=float).rename_axis("system").sort_index()
    frame = pd.DataFrame(metrics).reindex(human_s.index)
    frame.columns.name = "metric"
    return human_s, frame


def _read_wmt12_file(path: Path, lp: str) -> dict[str, dict[str, float]]:
    frame, numbers = space_table(path, ["METRIC", "LP", "TESTSET", "SYSTEM", "SCORE"], sep="\t")
    out: dict[str, dict[str, float]] = {}
    for k, metric, row_lp, system, score in zip(numbers, frame["METRIC"], frame["LP"], frame["SYSTEM"], frame["SCORE"]):
        if row_lp != lp:
            continue
        scores = out.setdefault(metric, {})
        if system in scores:
            raise ValueError(f"{path}:{k}: {metric} scores {system!r} twice")
        scores[system] = to_float([score], path, [k], allow_none=False)[0]
    return out


def read_williams_results(path: Path | str) -> pd.DataFrame:
    """Read a p-value matrix written by the significance-williams R tool (``#`` comment lines,
    then a tab-separated matrix; ``-`` = not tested).
    """
    path = Path(path)
    rows = [(k, line) for k, line in enumerate(read_lines(path), start=1) if line and not line.startswith("#")]
    if not rows:
        raise ValueError(f"{path}: no matrix found")
    header = rows[0][1].split("\t")[1:]
    values = {}
    for k, line in rows[1:]:
        fields = line.split("\t")
        if len(fields) != len(header) + 1:
            raise ValueError(f"{path}:{k}: expected {len(header) + 1} fields, found {len(fields)}")
        cells = [np.nan if f == "-" else f for f in fields[1:]]
        values[fields[0]] = [c if isinstance(c, float) else to_float([c], path, [k], allow_none=False)[0]
                             for c in cells]
    return pd.DataFrame.from_dict(values, orient="index", columns=header)


# --- WMT13 segment-level DA (Graham, Mathur & Baldwin 2015) ---------------------------------

WMT13_LPS = ("cs-en", "de-en", "es-en", "fr-en", "ru-en", "en-de", "en-es", "en-fr", "en-ru")


def _parse_lp_sys_sid_human(text: str, where: str, sep: str | None) -> pd.DataFrame:
    frame, numbers = table(split_lines(text, where), where, ["LP", "SYSTEM", "SID", "HUMAN"], sep=sep)
    frame.columns = ["lp", "system", "sid", "human"]
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
    """WMT13 segment-level DA of Graham et al. (2015): one row per judged translation with the
    mean raw (0-100) and mean standardised (z) score of its ≥ 15 crowd judgements.

    Columns: lp, system, sid (0-based line in newstest2013), raw, z.
    """
    if lp not in WMT13_LPS:
        raise ValueError(f"`lp` must be one of {', '.join(WMT13_LPS)}; got {lp!r}")
    archive = resolve_root(root, "wmt13") / "segment-mteval" / "seg-mteval-data.tar.gz"
    raw_name = f"seg-mteval-data/raw-seg-scrs/seg.ad.{lp}.csv"
    z_name = f"seg-mteval-data/z-seg-scrs/seg.ad.stnd.{lp}.csv"
    raw = _parse_lp_sys_sid_human(tar_member(archive, raw_name), f"{archive}!{raw_name}", "\t")
    z = _parse_lp_sys_sid_human(tar_member(archive, z_name), f"{archive}!{z_name}", None)
    merged = raw.rename(columns={"human": "raw"}).merge(
        z.rename(columns={"human": "z"}).drop(columns="lp"), on=["system", "sid"], how="outer", indicator=True)
    unmatched = merged["_merge"] != "both"
    if unmatched.any():
        raise ValueError(f"{archive}: {int(unmatched.sum())} items of {lp} are in only one of "
                         f"{raw_name} and {z_name}")
    return merged.drop(columns="_merge").sort_values(["system", "sid"]).reset_index(drop=True)


def load_wmt13_texts(lp: str, *, tokenized: bool = False, root: Path | str | None = None) -> pd.DataFrame:
    """The WMT13 DA items with their texts (Graham et al. COLING 2016 release): columns lp,
    system, sid, z, src, ref, mt, post_edit; line-aligned as published.
    """
    if lp not in WMT13_LPS:
        raise ValueError(f"`lp` must be one of {', '.join(WMT13_LPS)}; got {lp!r}")
    archive = resolve_root(root, "wmt13") / "direct-assessment" / "dataset.tar.gz"
    scores_name = f"dataset/human-scores.{lp}.csv"
    frame = _parse_lp_sys_sid_human(tar_member(archive, scores_name), f"{archive}!{scores_name}", None)
    frame = frame.rename(columns={"human": "z"})
    tok = ".pre-tok" if tokenized else ""
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

    ``level="seg"``: ``DA-seglevel.csv`` (560 translations × 9 lps, mean of ≥ 15 z-scored
    judgements; columns lp, testset, system, sid (1-based), human).
    ``level="sys"``: ``DA-syslevel.csv`` (columns lp, system, human).
    """
    folder = resolve_root(root, "wmt-da") / "2017"
    if level == "seg":
        frame, numbers = space_table(folder / "DA-seglevel.csv", ["LP", "DATA", "SYSTEM", "SID", "HUMAN"], sep=None)
        frame.columns = ["lp", "testset", "system", "sid", "human"]
        frame["sid"] = to_int(frame["sid"], folder / "DA-seglevel.csv", numbers, "SID")
        no_duplicates(frame, ["lp", "system", "sid"], folder / "DA-seglevel.csv", numbers)
    elif level == "sys":
        frame, numbers = space_table(folder / "DA-syslevel.csv", ["LP", "HUMAN", "SYSTEM"], sep=None)
        frame = frame[["LP", "SYSTEM", "HUMAN"]]
        frame.columns = ["lp", "system", "human"]
    else:
        raise ValueError(f"`level` must be 'seg' or 'sys'; got {level!r}")
    frame["human"] = to_float(list(frame["human"]), folder, numbers, allow_none=False)
    return frame


def load_wmt17_testset(lp: str, *, root: Path | str | None = None) -> pd.DataFrame:
    """The WMT17 DA-scored segments of one to-English pair with their texts (lower-cased and
    tokenised by the XMoverScore authors who released them), DA z score and sentBLEU.

    Columns: lp, source, translation, reference, human, sentbleu.  lv-en has 435 of the 560 items.
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

    ``level="seg"``: ``metrics-ad-seg-scores-<lp>.csv``, one row per (system, segment) with
    the mean raw and z score of its judgements (mostly one or two: not 15-judgement means);
    columns system, segid, raw, z, n, sid.  ``level="sys"``: ``ad-sys-scores-<lp>.csv``,
    columns system, raw, z, n, n_all.
    """
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
        return pd.DataFrame({
            "system": frame["SYS"],
            "raw": to_float(list(frame["RAW.SCR"]), path, numbers, allow_none=False),
            "z": to_float(list(frame["Z.SCR"]), path, numbers, allow_none=False),
            "n": to_int(frame["N"], path, numbers, "N"),
            "n_all": to_int(frame["N.ALL"], path, numbers, "N.ALL"),
        })
    raise ValueError(f"`level` must be 'seg' or 'sys'; got {level!r}")


WMT_TOEN_DA_LPS = {
    2021: ("cs-en", "de-en", "ha-en", "is-en", "ja-en", "ru-en"),
    2022: ("cs-en", "de-en", "ja-en", "lv-en", "ru-en", "uk-en", "zh-en"),
}
"""The WMT21/22 to-English pairs whose individual DA judgements are public (WMT21 zh-en's are not)."""

_TOEN_TESTSET = {2021: "newstest2021", 2022: "generaltest2022"}
_TEXT_LP = {"lv-en": "liv-en"}  # the WMT22 DA files spell Livonian `lv`, the texts `liv`


def _toen_folder(year: int, root) -> Path:
    if year not in WMT_TOEN_DA_LPS:
        raise ValueError(f"`year` must be 2021 or 2022; got {year!r}")
    return resolve_root(root, "wmt-da") / str(year) / f"newstest{year}-toen"


def _check_toen_lp(year: int, lp: str) -> None:
    if lp not in WMT_TOEN_DA_LPS[year] and not (year == 2021 and lp == "zh-en"):
        raise ValueError(f"`lp` must be one of {', '.join(WMT_TOEN_DA_LPS[year])} for {year}; got {lp!r}")


def read_worker_mean_sd(path: Path | str) -> pd.DataFrame:
    """Per-worker mean and standard deviation of raw DA scores, as printed by R.

    The ``ad-<sl>en-trk-mean-sd.txt`` files hold three lines per worker: ``[1] "M0403"``, the mean
    and the sd of that worker's raw 0-100 scores (``NA`` for a worker with one score).
    Columns: worker, mean, sd (NaN for ``NA``).
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

    Columns as published, lower-cased where the file has them (``score`` is the judgement
    z-scored by its worker; ``type`` is SYSTEM, REPEAT, REF or BAD_REF), plus ``raw``: the 0-100
    score recovered as ``score * sd + mean`` from the worker's ``ad-<sl>en-trk-mean-sd.txt``
    entry.  Averaged over SYSTEM and REPEAT rows, ``raw`` and ``score`` reproduce the published
    ``ad-seg-scores`` means exactly.  A judgement whose worker has no finite mean and sd is an error.
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
    """Per-(system, segment) WMT21/22 DA means: columns system, sid, raw, z, n."""
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

    Every file must have as many lines as the source (a file that does not is an error naming it).
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

    DA names carry a submission id (``XMU.17``), output files do not (``XMU``): the id is stripped.
    WMT21's ``Nemo`` is the output ``NVIDIA-NeMo``.  ``HUMAN`` systems (human translations) map to
    ``None``.  A DA system with no output, or two DA systems with the same output, is an error.
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
    years : iterable of {2021, 2022}
    lps : iterable of str, optional
        Language pairs (default: all of :data:`WMT_TOEN_DA_LPS` for each year).
    types : iterable of str
        Judgement types to keep.  SYSTEM and REPEAT (the default) are the rows WMT averages into
        its segment and system scores; REF and BAD_REF are quality-control items.
    """
    years = tuple(years)
    types = (types,) if isinstance(types, str) else tuple(types)
    known = {"SYSTEM", "REPEAT", "REF", "BAD_REF"}
    if not types or set(types) - known:
        raise ValueError(f"`types` must be a non-empty subset of {sorted(known)}; got {types!r}")
    frames, outputs, dropped = [], [], []
    for year in years:
        if year not in WMT_TOEN_DA_LPS:
            raise ValueError(f"`years` must hold 2021 and/or 2022; got {year!r}")
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
    """Sacrebleu statistics of every judged output of :func:`load_wmt_toen_da` (``da``, loaded if
    not given), of one language pair or all, computed once and cached by
    :func:`spalib.corpus_metrics.segment_statistics`.
    """
    from spalib.corpus_metrics import segment_statistics

    outputs = (da or load_wmt_toen_da()).outputs
    if lp is not None:
        outputs = outputs[outputs["lp"] == lp]
    return segment_statistics(metric, outputs["hypothesis"], outputs["reference"])

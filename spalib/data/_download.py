"""Fetching the official data releases into a local folder.

The book normally reads ``../shared/data``; this module is the fallback for a machine without
it.  Every dataset is a list of files (or tarballs to unpack) at fixed, commit-pinned public
addresses (with mirrors where a release moved).  Files are downloaded into a temporary folder
beside the destination and checked: size against ``Content-Length``, the SHA-256 where the
registry records one, and, after unpacking, the content of every file the book reads against
the SHA-256 manifest ``manifest.tsv`` (which also catches a response cut off without a
``Content-Length``).  Only then is the folder given ordinary permissions and moved into place
with one atomic ``os.replace``: a failed download never leaves a half-filled dataset behind.
"""

from __future__ import annotations

import gzip
import hashlib
import http.client
import os
import shutil
import tarfile
import tempfile
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

_CHUNK = 1 << 20

MIRROR_ENV = "SPALIB_MIRROR"
"""An environment variable naming a mirror tried before the official addresses: a URL under
which every file sits at ``HOST/PATH`` of its official URL (the layout ``wget -x URL`` makes),
e.g. a local server or folder a teacher fills once for a class."""


def mirror_urls(url: str, mirror: str | None) -> tuple[str, ...]:
    """Where a mirror keeps ``url``: ``MIRROR/HOST/PATH`` (none without a mirror)."""
    if not mirror:
        return ()
    host_and_path = url.split("://", 1)[-1]
    return (f"{mirror.rstrip('/')}/{host_and_path}",)


@dataclass(frozen=True)
class RemoteFile:
    """One file of a dataset: where it comes from and where it goes inside the dataset folder.

    ``unpack=True`` extracts a tarball into ``dest`` (a folder) instead of saving it.
    ``strip`` drops that many leading path components of the tarball's members.
    """

    url: str
    dest: str
    sha256: str | None = None
    unpack: bool = False
    strip: int = 0
    mirrors: tuple[str, ...] = ()


@dataclass(frozen=True)
class DatasetSource:
    """A dataset as published: its folder name under the data root and its files."""

    name: str
    files: tuple[RemoteFile, ...]
    description: str = ""
    citation: str = field(default="", compare=False)


def _github(repo: str, commit: str, path: str, dest: str | None = None, **kw) -> RemoteFile:
    return RemoteFile(f"https://raw.githubusercontent.com/{repo}/{commit}/{path}", dest or path, **kw)


MANIFEST = Path(__file__).with_name("manifest.tsv")


def read_manifest(path: Path = MANIFEST) -> dict[str, dict[str, str]]:
    """The SHA-256 of every file the book reads: ``{dataset: {path inside it: sha256}}``.

    Paths name the original files; a ``.gz`` copy is checked by its decompressed content.
    """
    manifest: dict[str, dict[str, str]] = {}
    for k, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        fields = line.split("\t")
        if k == 1:
            if fields != ["dataset", "path", "sha256"]:
                raise ValueError(f"{path}:1: expected the header dataset, path, sha256")
            continue
        if len(fields) != 3 or len(fields[2]) != 64:
            raise ValueError(f"{path}:{k}: expected dataset<TAB>path<TAB>sha256, found {line!r}")
        manifest.setdefault(fields[0], {})[fields[1]] = fields[2]
    return manifest


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's content; a ``.gz`` file is hashed decompressed."""
    digest = hashlib.sha256()
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as f:
            while chunk := f.read(_CHUNK):
                digest.update(chunk)
    except (OSError, EOFError) as err:  # BadGzipFile is an OSError
        raise ValueError(f"{path} cannot be read: {err}") from err
    return digest.hexdigest()


def verify(folder: Path, expected: dict[str, str]) -> int:
    """Check every manifest entry of one dataset against ``folder``; return how many were checked.

    Raises ``ValueError`` naming the first file that is missing or whose content differs.
    """
    for relative, sha in sorted(expected.items()):
        path = folder / relative
        if not path.exists():
            path = path.with_name(path.name + ".gz")
        if not path.exists():
            raise ValueError(f"{folder / relative} is missing (the manifest lists it)")
        actual = file_sha256(path)
        if actual != sha:
            raise ValueError(f"{path}: SHA-256 {actual} does not match the manifest's {sha}")
    return len(expected)


def fetch(source: DatasetSource, root: Path, *, progress: bool = True, timeout: float = 60,
          manifest: dict[str, str] | None = None, mirror: str | None = None,
          keep: tuple[str, ...] | None = None) -> Path:
    """Download ``source`` into ``root / source.name`` and return that folder.

    ``manifest`` maps paths inside the dataset to the SHA-256 their content must have (default:
    the entries of ``manifest.tsv`` for this dataset).  ``mirror`` (default: the
    ``SPALIB_MIRROR`` environment variable) is tried before the official addresses.  ``keep``
    names the top-level folders of the dataset to install (e.g. ``("wmt23",)``): the rest is
    deleted after the download is verified, and only the manifest entries under them are
    checked; with ``keep``, an existing dataset folder gets the kept folders added beside its own.
    Raises ``FileExistsError`` if the folder (or, with ``keep``, a kept folder) is already there,
    ``OSError`` naming
    every URL tried when no address gives a complete, correct file, and ``ValueError`` on a
    manifest mismatch, naming the file.
    """
    if manifest is None:
        manifest = read_manifest().get(source.name, {})
    if mirror is None:
        mirror = os.environ.get(MIRROR_ENV)
    if keep is not None:
        manifest = manifest_under(manifest, keep)
    root = Path(root)
    target = root / source.name
    if target.exists() and keep is None:
        raise FileExistsError(f"{target} already exists; delete it to download {source.name!r} again")
    if target.exists():   # kept folders are added beside those already there, never over them
        present = [name for name in keep if (target / name).exists()]
        if present:
            raise FileExistsError(f"{target} already holds {', '.join(present)}; delete "
                                  f"{'it' if len(present) == 1 else 'them'} to download again")
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{source.name}-", dir=root))
    try:
        for remote in source.files:
            _fetch_one(remote, staging, progress=progress, timeout=timeout, mirror=mirror)
        if keep is not None:
            _keep_only(staging, keep, source.name)
        verify(staging, manifest)
        _ordinary_permissions(staging)
        if target.exists():
            for name in keep:
                os.replace(staging / name, target / name)
            shutil.rmtree(staging)
        else:
            os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def _ordinary_permissions(folder: Path) -> None:
    """The staging folder is private (0700); the installed dataset is readable by all."""
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def manifest_under(manifest: dict[str, str], folders) -> dict[str, str]:
    """The manifest entries inside the given top-level folders of a dataset."""
    return {path: sha for path, sha in manifest.items() if path.split("/", 1)[0] in set(folders)}


def _keep_only(staging: Path, keep: tuple[str, ...], name: str) -> None:
    present = {p.name for p in staging.iterdir() if not p.name.startswith(".")}
    missing = sorted(set(keep) - present)
    if missing:
        raise ValueError(f"{name} has no {', '.join(missing)}; it has {', '.join(sorted(present))}")
    for path in staging.iterdir():
        if path.name not in keep and not path.name.startswith("."):
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def _fetch_one(remote: RemoteFile, staging: Path, *, progress: bool, timeout: float, mirror: str | None) -> None:
    errors = []
    for url in (*mirror_urls(remote.url, mirror), remote.url, *remote.mirrors):
        try:
            _fetch_from(url, remote, staging, progress=progress, timeout=timeout)
            return
        except (OSError, ValueError) as err:  # unreachable, cut, or not the recorded file: next address
            errors.append(str(err))
            (staging / ".partial").unlink(missing_ok=True)
    raise OSError("; ".join(errors))


def _fetch_from(url: str, remote: RemoteFile, staging: Path, *, progress: bool, timeout: float) -> None:
    download = staging / ".partial"
    digest = hashlib.sha256()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            expected = response.headers.get("Content-Length")
            expected = int(expected) if expected is not None else None
            received = 0
            with open(download, "wb") as out, tqdm(
                total=expected, unit="B", unit_scale=True, desc=Path(remote.dest).name or remote.url,
                disable=not progress, leave=False,
            ) as bar:
                while chunk := response.read(_CHUNK):
                    out.write(chunk)
                    digest.update(chunk)
                    received += len(chunk)
                    bar.update(len(chunk))
    except (OSError, http.client.HTTPException) as err:  # URLError is an OSError; a cut chunk IncompleteRead
        raise OSError(f"could not download {url}: {err!r}") from err
    if expected is not None and received != expected:
        raise ValueError(f"{url}: received {received} bytes, the server announced {expected}")
    if remote.sha256 is not None and digest.hexdigest() != remote.sha256:
        raise ValueError(f"{url}: SHA-256 {digest.hexdigest()} does not match the recorded {remote.sha256}")
    dest = staging / remote.dest
    if remote.unpack:
        _unpack(download, dest, strip=remote.strip, url=url)
        download.unlink()
    else:
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(download, dest)


# tarfile's "data" filter exists from Python 3.12 and in 3.10.12+ and 3.11.4+; older releases
# extract unfiltered, after the same check of where each member lands (see _unpack)
_DATA_FILTER = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}


def _unpack(archive: Path, dest: Path, *, strip: int, url: str) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    root = dest.resolve()
    try:
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                parts = Path(member.name).parts[strip:]
                if not parts:
                    continue
                member.name = str(Path(*parts))
                _check_member(member, root, url)
                tar.extract(member, dest, **_DATA_FILTER)
    except (tarfile.TarError, OSError, EOFError) as err:  # a cut gzip stream is an EOFError
        raise ValueError(f"{url} is not a readable tar archive: {err}") from err


def _check_member(member: tarfile.TarInfo, root: Path, url: str) -> None:
    """Refuse a member that is not a file, folder or link, or that lands or points outside ``root``."""
    target = (root / member.name).resolve()
    places = [target]
    if member.issym():
        places.append((target.parent / member.linkname).resolve())
    elif member.islnk():
        places.append((root / member.linkname).resolve())
    elif not (member.isfile() or member.isdir()):
        raise ValueError(f"{url}: archive member {member.name!r} is not a file, folder or link")
    if not all(place.is_relative_to(root) for place in places):
        raise ValueError(f"{url}: archive member {member.name!r} would land outside {root}")


# --- the official releases -------------------------------------------------------------------

# mt-metrics-eval's data.py (TGZ, commit 68a481a) moved the release; the old address is a mirror.
MTME_TGZ = "https://data.statmt.org/wmt26/mt-metrics-eval-v2.tgz"
MTME_TGZ_OLD = "https://storage.googleapis.com/mt-metrics-eval/mt-metrics-eval-v2.tgz"

_WILLIAMS = ("ygraham/significance-williams", "441a6eaeddb305bba1438c35feda4dd4753f3079")
_SEGMENT_MTEVAL = ("ygraham/segment-mteval", "f6fa7b33f9a1b70564824f3bbe77c9f1df84f58f")
_DIRECT_ASSESSMENT = ("ygraham/direct-assessment", "c2ef771d41141a7ddef09b8573dc345c3676737a")
_GOOGLE_MQM = ("google/wmt-mqm-human-evaluation", "7fadea281aff8db61cc72fc3d469a4dca78b82a6")
_ESA = ("wmt-conference/ErrorSpanAnnotation", "e7f88b51a5d36dd5a9c9c1d80556f69637716cd4")
_ESA_FILES = ("ESA-1", "ESA-2", "ESA2", "ESAAI-1", "ESAAI-2", "ESAAI", "MQM-1", "ESA-IAA", "ESAAI-IAA",
              "MQM-IAA", "GEMBA2", "LLM")
_AIPHES = ("AIPHES/ACL20-Reference-Free-MT-Evaluation", "2026e18c8874e5659ea6c03f82ec3e600d0feac1")
_WMT22_NEWS = ("wmt-conference/wmt22-news-systems", "20240a2e96a50e823ea8cdf37fd8af52547146e3")
_WMT20_METRICS = ("WMT-Metrics-task/wmt20-metrics", "3e434fc32fd02999c885575df6167c31f60ee996")
_WMT20_LPS = ("cs-en", "de-en", "en-cs", "en-de", "en-iu", "en-ja", "en-pl", "en-ru", "en-ta", "en-zh", "iu-en",
              "ja-en", "km-en", "pl-en", "ps-en", "ru-en", "ta-en", "zh-en")
_WMT21_NEWS = ("wmt-conference/wmt21-news-systems", "f41750dadbf2ba6ab01ca5380347d253298a3427")
_WMT12_RANKINGS = ("Perilon/Meteor_POS", "04870c51d72d4eaa82d0bad2a6c653fa18c9c8f2")
_SUMMEVAL = ("CogComp/stat-analysis-experiments", "7b05bd874defac6c047deb2313c398318f2113e3")
_SUMMEVAL_FOLDER = "experiments/statistical-analysis/data/fabbri2020"
_SUMMEVAL_FILES = ("relevance", "rouge", "bertscore", "moverscore", "qaeval", "s3", "meteor", "bewte", "autosummeng")

_WMT2X_TOEN = {2021: ("cs", "de", "ha", "is", "ja", "ru"), 2022: ("cs", "de", "ja", "lv", "ru", "uk", "zh")}


def _wmt_da_files() -> tuple[RemoteFile, ...]:
    files = [_github(*_AIPHES, f"WMT{y}/DA-syslevel.csv", f"{2000 + y}/DA-syslevel.csv") for y in (17, 18, 19)]
    files.append(_github(*_AIPHES, "WMT17/DA-seglevel.csv", "2017/DA-seglevel.csv"))
    files += [_github(*_AIPHES, f"WMT17/testset/testset_{lp}-en.tsv", f"2017/testset/testset_{lp}-en.tsv")
              for lp in ("cs", "de", "fi", "lv", "ru", "tr", "zh")]
    for lp in _WMT20_LPS:
        for name in (f"metrics-ad-seg-scores-{lp}.csv", f"ad-sys-scores-{lp}.csv"):
            files.append(_github(*_WMT20_METRICS, f"manual-evaluation/DA/{name}", f"2020/manual-evaluation/DA/{name}"))
    for year, (repo, commit) in ((2021, _WMT21_NEWS), (2022, _WMT22_NEWS)):
        sub = "humaneval/newstest2021-toen" if year == 2021 else "humaneval/DA/newstest2022-toen"
        for src in _WMT2X_TOEN[year]:
            for name in (f"ad-{src}en-good-stnd-redup.csv", f"ad-{src}en-trk-mean-sd.txt",
                         f"ad-seg-scores-{src}-en.csv", f"ad-sys-scores-{src}-en.csv"):
                files.append(_github(repo, commit, f"{sub}/{name}", f"{year}/newstest{year}-toen/{name}"))
        testset = "newstest2021" if year == 2021 else "generaltest2022"
        for lp, (refs, systems) in _WMT2X_TOEN_TEXTS[year].items():
            names = [f"sources/{testset}.{lp}.src.{lp.split('-')[0]}"]
            names += [f"references/{testset}.{lp}.ref.{ref}.en" for ref in refs.split()]
            names += [f"system-outputs/{testset}.{lp}.hyp.{system}.en" for system in systems.split()]
            files += [_github(repo, commit, f"txt/{name}", f"{year}/txt/{name}") for name in names]
    return tuple(files)


# The texts of the to-English test sets (for sacrebleu metrics on the DA-judged outputs):
# language pair -> (references, system outputs), as published in the news-systems repositories.
_WMT2X_TOEN_TEXTS = {
    2021: {
        "cs-en": ("A B", "CUNI-DocTransformer CUNI-Transformer2018 Facebook-AI Online-A Online-B Online-G Online-W "
                         "Online-Y"),
        "de-en": ("A B", "Borderline Facebook-AI HuaweiTSC ICL Manifold NVIDIA-NeMo Online-A Online-B Online-G "
                         "Online-W Online-Y P3AI SMU UEdin UF VolcTrans-AT VolcTrans-GLAT Watermelon happypoet"),
        "ha-en": ("A", "AMU Facebook-AI GTCOM HuaweiTSC MS-EgDC Manifold NiuTrans Online-B Online-Y P3AI TRANSSION "
                       "TWB UEdin ZMT"),
        "is-en": ("A", "Allegro.eu Facebook-AI HuaweiTSC Manifold Mideind NiuTrans Online-A Online-B Online-G "
                       "Online-Y"),
        "ja-en": ("A", "Facebook-AI HuaweiTSC IIE-MT Illini KwaiNLP MiSS NiuTrans Online-A Online-B Online-G Online-W "
                       "Online-Y WeChat-AI XMU capitalmarvel movelikeajaguar"),
        "ru-en": ("A B", "AFRL Facebook-AI Manifold NVIDIA-NeMo NiuTrans Online-A Online-B Online-G Online-W Online-Y"),
        "zh-en": ("A", "Borderline DIDI-NLP Facebook-AI HappyNewYear HuaweiTSC ICL IIE-MT KwaiNLP Machine_Translation "
                       "MiSS NJUSC_TSC NiuTrans Online-A Online-B Online-G Online-W Online-Y P3AI SMU UF XMU "
                       "ZengHuiMT yyds"),
    },
    2022: {
        "cs-en": ("B C", "ALMAnaCH-Inria CUNI-DocTransformer CUNI-Transformer JDExploreAcademy Lan-Bridge Online-A "
                         "Online-B Online-G Online-W Online-Y SHOPLINE-PL"),
        "de-en": ("A B", "JDExploreAcademy LT22 Lan-Bridge Online-A Online-B Online-G Online-W Online-Y PROMT"),
        "ja-en": ("A", "AISP-SJTU AIST DLUT JDExploreAcademy KYB Lan-Bridge LanguageX NAIST-NICT-TIT NT5 Online-A "
                       "Online-B Online-G Online-W Online-Y"),
        "liv-en": ("A", "HuaweiTSC Liv4ever NiuTrans TAL-SJTU TartuNLP"),
        "ru-en": ("A", "ALMAnaCH-Inria HuaweiTSC JDExploreAcademy Lan-Bridge Online-A Online-B Online-G Online-W "
                       "Online-Y SRPOL"),
        "uk-en": ("A", "ALMAnaCH-Inria ARC-NKUA GTCOM HuaweiTSC Lan-Bridge Online-A Online-B Online-G Online-Y PROMT"),
        "zh-en": ("A B", "AISP-SJTU DLUT HuaweiTSC JDExploreAcademy Lan-Bridge LanguageX NiuTrans Online-A Online-B "
                         "Online-G Online-W Online-Y"),
    },
}


DATASETS: dict[str, DatasetSource] = {
    "mt-metrics-eval-v2": DatasetSource(
        "mt-metrics-eval-v2",
        (RemoteFile(MTME_TGZ, ".", unpack=True, strip=1, mirrors=(MTME_TGZ_OLD,)),),
        "Google's mt-metrics-eval v2 release: WMT19-25 human and metric scores (several GB unpacked).",
    ),
    "wmt12": DatasetSource(
        "wmt12",
        tuple(
            _github(*_WILLIAMS, f"{folder}/{name}", f"significance-williams/{folder}/{name}")
            for folder in ("example-data", "example-data-multi")
            for name in ("mt-systems-scored-by-humans", "mt-systems-scored-by-metrics")
        ) + tuple(
            _github(*_WILLIAMS, f"example-output/{name}", f"significance-williams/example-output/{name}")
            for name in ("orig.pearson-corr.es-en", "orig.williams-results.es-en")
        ) + (  # WMT12's official ranking judgements, as a Meteor class project vendored them
            _github(*_WMT12_RANKINGS, "wmt_data/wmt12-manual-evaluation/wmt12.RNK_results.csv",
                    "wmt12-manual-evaluation/wmt12.RNK_results.csv"),
        ),
        "WMT12 system-level human and metric scores (Graham & Baldwin 2014 example data) and WMT12's "
        "ranking judgements.",
    ),
    "wmt13": DatasetSource(
        "wmt13",
        (
            _github(*_SEGMENT_MTEVAL, "seg-mteval-data.tar.gz", "segment-mteval/seg-mteval-data.tar.gz"),
            _github(*_DIRECT_ASSESSMENT, "dataset.tar.gz", "direct-assessment/dataset.tar.gz"),
        ),
        "WMT13 segment-level DA (Graham, Mathur & Baldwin 2015) and the texts of the judged items.",
    ),
    "wmt-mqm-human-evaluation": DatasetSource(
        "wmt-mqm-human-evaluation",
        tuple(
            _github(*_GOOGLE_MQM, f"ted/{lp}/{name}")
            for lp in ("ende", "zhen")
            for name in (f"mqm_ted_{lp}.tsv", f"mqm_ted_{lp}.avg_seg_scores.tsv")
        ),
        "Google's expert MQM annotations of the WMT21 TED talks (raw error rows and averages).",
    ),
    "esa-campaign-wmt23-ende": DatasetSource(
        "esa-campaign-wmt23-ende",
        tuple(_github(*_ESA, f"data/campaign-ruction-rc5/en-de.{name}.seg.score", f"en-de.{name}.seg.score")
              for name in _ESA_FILES),
        "Second and third human annotations (ESA, ESA-AI, MQM) of WMT23 en-de (Kocmi et al. 2024).",
    ),
    "wmt-da": DatasetSource(
        "wmt-da", _wmt_da_files(),
        "WMT17-19 DA files of the metrics-task packages, WMT20 DA, WMT21/22 to-English individual DA judgements "
        "with the sources, references and system outputs they judge.",
    ),
    "summeval": DatasetSource(
        "summeval",
        tuple(_github(*_SUMMEVAL, f"{_SUMMEVAL_FOLDER}/{name}.jsonl", f"{name}.jsonl") for name in _SUMMEVAL_FILES),
        "SummEval: expert and crowd ratings of 1,600 news summaries (100 documents x 16 systems) with the "
        "scores of eight metric families (Deutsch, Dror & Roth's copy).",
    ),
}

"""Where the data lives: the data folder, dataset folders, downloads and the content manifest."""

from __future__ import annotations

import os
from pathlib import Path

from spalib._core.validation import names_iv
from spalib.data._download import DATASETS, MANIFEST, fetch, file_sha256
from spalib.data._tables import resolve

__all__ = ["DATA_ENV", "data_root", "dataset_path", "resolve_root", "download", "write_manifest", "book_table"]

DATA_ENV = "SPALIB_DATA"
_PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent


_BOOK_TABLES = Path(__file__).resolve().parent


def book_table(name: str) -> Path:
    """A table the book ships inside spalib, so that a chapter runs outside a clone of the book.

    Parameters
    ----------
    name : str
        ``"published/NAME.csv"``: a paper's numbers, typed once as printed, one file per chapter;
        or ``"results/NAME.csv"``: runs too slow for a chapter (seed sweeps, the toolkit's runs),
        written by the scripts in ``benchmarks/``; or ``"results/NAME.json"``: such a run's
        :class:`~spalib.MetricComparison` or :class:`~spalib.MetricRanking` (their ``save``).

    Returns
    -------
    pathlib.Path
        The file, inside the installed package.

    Notes
    -----
    A chapter reads these with ``pandas.read_csv(book_table(...))`` (a stored comparison or
    ranking with its class's ``load``); a notebook downloaded from the book then needs only the
    installed library and the data folder.

    References
    ----------
    Each row of ``published/*.csv`` names its source in the paper (``source``).

    Examples
    --------
    >>> import pandas as pd
    >>> pd.read_csv(book_table("published/williams.csv")).columns[0]
    'quantity'
    """
    folder, _, file = str(name).partition("/")
    shipped = sorted(f"{d}/{p.name}" for d in ("published", "results") for p in (_BOOK_TABLES / d).iterdir()
                     if p.suffix in (".csv", ".json"))
    if folder not in ("published", "results") or "/" in file or f"{folder}/{file}" not in shipped:
        raise ValueError(f"`name` must be one of the book's tables {shipped}; got {name!r}")
    return _BOOK_TABLES / folder / file


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "spalib" / "data"


def data_root() -> Path:
    """The folder the book reads its data from.

    Returns
    -------
    pathlib.Path
        ``$SPALIB_DATA`` if set (it must exist), else ``../shared/data`` next to the project if it
        exists, else the user cache folder (``$XDG_CACHE_HOME/spalib/data``).

    Notes
    -----
    ``python -m spalib.data download NAME`` (or ``ensure``) fills the cache folder from the
    public releases (fixed addresses, GitHub copies pinned to a commit); ``verify`` checks a
    folder against the SHA-256 manifest.

    References
    ----------
    The PROVENANCE.md of each dataset folder names its source and commit.

    Examples
    --------
    >>> data_root().is_dir()
    True
    """
    env = os.environ.get(DATA_ENV)
    if env:
        root = Path(env).expanduser()
        if not root.is_dir():
            raise FileNotFoundError(f"{DATA_ENV}={env} is not a folder")
        return root
    shared = _PROJECT_ROOT.parent / "shared" / "data"
    if shared.is_dir():
        return shared
    return _cache_root()


def dataset_path(name: str, root: Path | str | None = None) -> Path:
    """The folder of dataset ``name``, which must be present.

    Parameters
    ----------
    name : str
        A key of :data:`spalib.data.DATASETS`.
    root : path, optional
        The data folder (default: :func:`data_root`).

    Returns
    -------
    pathlib.Path

    Notes
    -----
    A missing folder is a ``FileNotFoundError`` that says how to download it.

    References
    ----------
    See :data:`spalib.data.DATASETS` for the releases.

    Examples
    --------
    >>> dataset_path("wmt12").name
    'wmt12'
    """
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    path = Path(root) if root is not None else data_root()
    path = path / name
    if not path.is_dir():
        raise FileNotFoundError(
            f"dataset {name!r} is not in {path.parent}; run `python -m spalib.data download {name}` "
            f"or point {DATA_ENV} at a folder that has it"
        )
    return path


def download(name: str, root: Path | str | None = None, *, progress: bool = True, mirror: str | None = None,
             test_sets=None) -> Path:
    """Fetch the official release of dataset ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`spalib.data.DATASETS`.
    root : path, optional
        The data folder to download into (default: :func:`data_root`).
    progress : bool
        Show a progress bar.
    mirror : str, optional
        A URL tried before the official addresses, holding each file at ``HOST/PATH`` of its
        official URL (default: the ``SPALIB_MIRROR`` environment variable).
    test_sets : str or sequence of str, optional
        For ``mt-metrics-eval-v2``: keep only these test sets (e.g. ``"wmt23"``) once the
        release is verified, so that a class can share a small prepared folder; they are added
        beside the test sets an existing folder holds (one it holds already is refused).

    Returns
    -------
    pathlib.Path
        The installed dataset folder.

    Notes
    -----
    Files are staged in a temporary folder, checked (size, SHA-256, and the content manifest of
    every file the book reads) and moved into place in one step; a failure leaves nothing behind.

    References
    ----------
    The releases and their commits are listed in :data:`spalib.data.DATASETS`.

    Examples
    --------
    >>> try:
    ...     download("nope")
    ... except ValueError as error:
    ...     print(error)  # doctest: +ELLIPSIS
    unknown dataset 'nope'; known: mt-metrics-eval-v2, wmt12, ...
    """
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    if mirror is not None and not isinstance(mirror, str):
        raise TypeError(f"`mirror` must be None or a URL prefix (str); got {mirror!r}")
    keep = None
    if test_sets is not None:
        if name != "mt-metrics-eval-v2":
            raise ValueError(f"test_sets applies to mt-metrics-eval-v2, not to {name!r}")
        from spalib.data.mtme import MTME_META   # here: mtme imports this module

        keep = tuple(names_iv(test_sets, "test_sets"))
        known = sorted({test_set for test_set, _ in MTME_META})
        unknown = [t for t in keep if t not in known]
        if not keep or unknown:   # checked before a download of several GB, not after it
            raise ValueError(f"`test_sets` must name at least one of {', '.join(known)}; got {list(keep)}")
    return fetch(DATASETS[name], Path(root) if root is not None else data_root(), progress=progress,
                 mirror=mirror, keep=keep)


def resolve_root(root: Path | str | None, name: str) -> Path:
    """The folder a reader reads dataset ``name`` from.

    Parameters
    ----------
    root : path or None
        A folder holding that dataset's files, as a reader's ``root`` argument.
    name : str
        The dataset, used when ``root`` is None.

    Returns
    -------
    pathlib.Path
        ``root``, or :func:`dataset_path` of ``name``.

    Notes
    -----
    Every reader resolves its ``root`` argument here, so that all of them behave alike.

    References
    ----------
    See :func:`data_root`.

    Examples
    --------
    >>> resolve_root(None, "wmt12").name
    'wmt12'
    """
    return Path(root) if root is not None else dataset_path(name)


# Files kept beside a release that the release itself does not contain (see the PROVENANCE files).
_NOT_IN_RELEASE = {"mt-metrics-eval-v2": ("wmt22/metric-scores/zh-en/GEMBA-GPT4-",)}


def write_manifest(root: Path, path: Path = MANIFEST) -> int:
    """Record the SHA-256 of every file the book reads.

    Parameters
    ----------
    root : path
        A data folder holding every dataset.
    path : path
        Where to write the manifest (default: ``spalib/data/manifest.tsv``).

    Returns
    -------
    int
        The number of files recorded.

    Notes
    -----
    For a release tarball, every file of it under ``root`` (except files the release does not
    contain); otherwise every file the registry downloads.  ``.gz`` copies are hashed decompressed,
    under the original name.  This is a maintainer's command (``python -m spalib.data manifest``).

    References
    ----------
    The PROVENANCE.md files say which files are copies of which release.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> write_manifest(data_root(), pathlib.Path(tempfile.mkdtemp()) / "m.tsv") > 1000
    True
    """
    rows = ["dataset\tpath\tsha256"]
    for name, source in DATASETS.items():
        folder = Path(root) / name
        if any(remote.unpack for remote in source.files):  # a release tarball: the files kept here
            relatives = sorted(p.relative_to(folder).as_posix().removesuffix(".gz") for p in folder.rglob("*")
                               if p.is_file() and p.name != "PROVENANCE.md")
            relatives = [r for r in relatives if not r.startswith(_NOT_IN_RELEASE.get(name, ()))]
        else:  # single files: exactly those the registry downloads
            relatives = sorted(remote.dest for remote in source.files)
        for relative in relatives:
            rows.append(f"{name}\t{relative}\t{file_sha256(resolve(folder / relative))}")
    Path(path).write_text("\n".join(rows) + "\n", encoding="utf-8")
    return len(rows) - 1

"""Where the data lives: the data folder, dataset folders, downloads and the content manifest."""

from __future__ import annotations

import os
from pathlib import Path

from spalib._download import DATASETS, MANIFEST, fetch, file_sha256
from spalib.data._tables import resolve

__all__ = ["DATA_ENV", "data_root", "dataset_path", "resolve_root", "download", "write_manifest"]

DATA_ENV = "SPALIB_DATA"
_PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "spalib" / "data"


def data_root() -> Path:
    """The folder the book reads its data from.

    ``$SPALIB_DATA`` if set (it must exist), else ``../shared/data`` next to the project if it
    exists, else the user cache folder (``$XDG_CACHE_HOME/spalib/data``), which
    ``python -m spalib.data download`` fills.
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
    """The folder of dataset ``name`` (a key of :data:`DATASETS`), which must be present."""
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


def download(name: str, root: Path | str | None = None, *, progress: bool = True) -> Path:
    """Fetch the official release of dataset ``name`` into ``root`` (default: :func:`data_root`)."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    return fetch(DATASETS[name], Path(root) if root is not None else data_root(), progress=progress)


def resolve_root(root: Path | str | None, name: str) -> Path:
    """The folder of dataset ``name``: ``root`` if given (a folder holding that dataset's files),
    else :func:`dataset_path`.
    """
    return Path(root) if root is not None else dataset_path(name)



# Files kept beside a release that the release itself does not contain (see the PROVENANCE files).
_NOT_IN_RELEASE = {"mt-metrics-eval-v2": ("wmt22/metric-scores/zh-en/GEMBA-GPT4-",)}


def write_manifest(root: Path, path: Path = MANIFEST) -> int:
    """Record the SHA-256 of every file the book reads (decompressed content for ``.gz`` copies,
    under the original name): for a release tarball, every file of it under ``root``; otherwise
    every file the registry downloads.  Returns the number of files.
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

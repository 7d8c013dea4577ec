"""The downloader, against a throwaway HTTP server on 127.0.0.1 serving files the test builds."""

from __future__ import annotations

import functools
import hashlib
import http.server
import io
import tarfile
import threading
from pathlib import Path

import pytest

from spalib import data
from spalib.data.__main__ import main as cli_main
import spalib.data._download
import spalib.data.__main__
from spalib.data._download import DatasetSource, RemoteFile, fetch, read_manifest, verify


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/lying-length":  # announces more bytes than it sends
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b"short")
            return
        if self.path == "/cut-chunk":  # a chunked response that stops inside a chunk
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"20\r\n" + b"x" * 16)
            self.wfile.flush()
            self.close_connection = True
            return
        if self.path == "/cut-no-length":  # no Content-Length, connection closed early
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"hel")
            self.close_connection = True
            return
        super().do_GET()


@pytest.fixture
def server(tmp_path):
    served = tmp_path / "served"
    served.mkdir()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(served)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield served, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


def make_release(folder: Path) -> bytes:
    """A tarball shaped like the mt-metrics-eval release: one top folder, then wmt23/..."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, text in {
            "mt-metrics-eval-v2/wmt23/sources/en-de.txt": "one\n",
            "mt-metrics-eval-v2/wmt23/human-scores/en-de.mqm.seg.score": "sysA\t-1\n",
            "mt-metrics-eval-v2/wmt22/sources/zh-en.txt": "two\n",
        }.items():
            blob = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(blob)
            tar.addfile(info, io.BytesIO(blob))
    payload = buffer.getvalue()
    (folder / "release.tgz").write_bytes(payload)
    (folder / "notes.txt").write_text("hello\n")
    return payload


def test_fetch_unpacks_checks_and_moves_into_place(server, tmp_path):
    served, base = server
    payload = make_release(served)
    source = DatasetSource("toy", (
        RemoteFile(f"{base}/release.tgz", ".", sha256=hashlib.sha256(payload).hexdigest(), unpack=True, strip=1),
        RemoteFile(f"{base}/notes.txt", "docs/notes.txt"),
    ))
    target = fetch(source, tmp_path / "cache", progress=False)
    assert target == tmp_path / "cache" / "toy"
    assert (target / "wmt23/human-scores/en-de.mqm.seg.score").read_text() == "sysA\t-1\n"
    assert (target / "docs/notes.txt").read_text() == "hello\n"
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["toy"]  # no staging folder left
    with pytest.raises(FileExistsError, match="already exists"):
        fetch(source, tmp_path / "cache", progress=False)


@pytest.mark.parametrize("remote, message", [
    (lambda base: RemoteFile(f"{base}/release.tgz", ".", sha256="0" * 64, unpack=True), "SHA-256 .* does not match"),
    (lambda base: RemoteFile(f"{base}/lying-length", "x"), "received 5 bytes, the server announced 100"),
    (lambda base: RemoteFile(f"{base}/missing.tgz", "x"), r"could not download http://127\.0\.0\.1:\d+/missing\.tgz"),
    (lambda base: RemoteFile(f"{base}/notes.txt", ".", unpack=True), "is not a readable tar archive"),
])
def test_failed_downloads_leave_nothing_behind(server, tmp_path, remote, message):
    served, base = server
    make_release(served)
    with pytest.raises((ValueError, OSError), match=message):
        fetch(DatasetSource("toy", (remote(base),)), tmp_path / "cache", progress=False)
    assert list((tmp_path / "cache").iterdir()) == []


def test_command_line_download_into_the_data_folder(server, tmp_path, monkeypatch, capsys):
    served, base = server
    make_release(served)
    toy = DatasetSource("mt-metrics-eval-v2", (RemoteFile(f"{base}/release.tgz", ".", unpack=True, strip=1),))
    monkeypatch.setitem(data.DATASETS, "mt-metrics-eval-v2", toy)
    monkeypatch.setattr(spalib.data._download, "read_manifest", lambda: {"mt-metrics-eval-v2": {
        "wmt23/sources/en-de.txt": hashlib.sha256(b"one\n").hexdigest()}})
    monkeypatch.setenv("SPALIB_DATA", str(tmp_path))
    assert cli_main(["ensure", "mt-metrics-eval-v2"]) == 0
    assert (tmp_path / "mt-metrics-eval-v2/wmt23/sources/en-de.txt").exists()
    assert cli_main(["where"]) == 0
    assert "present  mt-metrics-eval-v2" in capsys.readouterr().out


NOTES_SHA = hashlib.sha256(b"hello\n").hexdigest()


@pytest.mark.parametrize("path, manifest, message", [
    ("notes.txt", {"docs/notes.txt": "0" * 64}, r"docs/notes\.txt: SHA-256 .* does not match the manifest"),
    ("notes.txt", {"docs/absent.txt": NOTES_SHA}, r"docs/absent\.txt is missing"),
    ("cut-no-length", {"docs/notes.txt": NOTES_SHA}, r"docs/notes\.txt: SHA-256 .* does not match the manifest"),
])
def test_content_is_verified_against_the_manifest(server, tmp_path, path, manifest, message):
    served, base = server
    make_release(served)
    source = DatasetSource("toy", (RemoteFile(f"{base}/{path}", "docs/notes.txt"),))
    with pytest.raises(ValueError, match=message):
        fetch(source, tmp_path / "cache", progress=False, manifest=manifest)
    assert list((tmp_path / "cache").iterdir()) == []


def test_mirror_permissions_and_a_cut_archive(server, tmp_path):
    served, base = server
    payload = make_release(served)
    (served / "cut.tgz").write_bytes(payload[: len(payload) // 2])
    source = DatasetSource("toy", (RemoteFile(f"{base}/moved/notes.txt", "docs/notes.txt",
                                              mirrors=(f"{base}/notes.txt",)),))
    target = fetch(source, tmp_path / "cache", progress=False, manifest={"docs/notes.txt": NOTES_SHA})
    assert (target / "docs/notes.txt").read_text() == "hello\n"
    assert target.stat().st_mode & 0o777 == 0o755 and (target / "docs/notes.txt").stat().st_mode & 0o777 == 0o644
    with pytest.raises(OSError, match="cut.tgz is not a readable tar archive"):
        fetch(DatasetSource("cut", (RemoteFile(f"{base}/cut.tgz", ".", unpack=True),)), tmp_path / "c2",
              progress=False, manifest={})


def test_the_data_folder_matches_the_manifest():
    manifest = read_manifest()
    root = data.data_root()
    assert set(manifest) == set(data.DATASETS)
    for name, expected in manifest.items():
        assert verify(root / name, expected) == len(expected) > 0


def test_a_cut_chunk_names_its_url_and_the_next_address_is_tried(server, tmp_path):
    served, base = server
    make_release(served)
    with pytest.raises(OSError, match=r"could not download http://127\.0\.0\.1:\d+/cut-chunk: IncompleteRead"):
        fetch(DatasetSource("toy", (RemoteFile(f"{base}/cut-chunk", "docs/notes.txt"),)), tmp_path / "a",
              progress=False, manifest={})
    source = DatasetSource("toy", (RemoteFile(f"{base}/cut-chunk", "docs/notes.txt", mirrors=(f"{base}/notes.txt",)),))
    target = fetch(source, tmp_path / "b", progress=False, manifest={"docs/notes.txt": NOTES_SHA})
    assert (target / "docs/notes.txt").read_text() == "hello\n"


def test_a_mirror_is_tried_first_and_holds_files_at_host_and_path(server, tmp_path, monkeypatch):
    served, base = server
    make_release(served)
    official = f"{base}/official/notes.txt"                  # not served: only the mirror has it
    copy = served / "mirror" / official.split("://", 1)[1]
    copy.parent.mkdir(parents=True)
    copy.write_text("hello\n")
    monkeypatch.setenv("SPALIB_MIRROR", f"{base}/mirror")
    target = fetch(DatasetSource("toy", (RemoteFile(official, "docs/notes.txt"),)), tmp_path / "cache",
                   progress=False, manifest={"docs/notes.txt": NOTES_SHA})
    assert (target / "docs/notes.txt").read_text() == "hello\n"


def test_a_subset_of_the_release_is_kept_after_verifying(server, tmp_path):
    served, base = server
    make_release(served)
    source = DatasetSource("mt-metrics-eval-v2", (RemoteFile(f"{base}/release.tgz", ".", unpack=True, strip=1),))
    sha = hashlib.sha256(b"one\n").hexdigest()
    target = fetch(source, tmp_path / "cache", progress=False, keep=("wmt23",),
                   manifest={"wmt23/sources/en-de.txt": sha, "wmt22/sources/zh-en.txt": "0" * 64})
    assert [p.name for p in target.iterdir()] == ["wmt23"]
    with pytest.raises(ValueError, match="has no wmt99; it has wmt22, wmt23"):
        fetch(source, tmp_path / "other", progress=False, keep=("wmt99",), manifest={})


def test_a_test_set_is_added_beside_those_already_there(server, tmp_path):
    served, base = server
    make_release(served)
    source = DatasetSource("mt-metrics-eval-v2", (RemoteFile(f"{base}/release.tgz", ".", unpack=True, strip=1),))
    root = tmp_path / "data"
    fetch(source, root, progress=False, keep=("wmt23",), manifest={})
    (root / "mt-metrics-eval-v2/wmt23/mine.txt").write_text("kept\n")
    with pytest.raises(ValueError, match="SHA-256"):     # a bad file adds nothing
        fetch(source, root, progress=False, keep=("wmt22",), manifest={"wmt22/sources/zh-en.txt": "0" * 64})
    assert [p.name for p in (root / "mt-metrics-eval-v2").iterdir()] == ["wmt23"]
    sha = hashlib.sha256(b"two\n").hexdigest()
    target = fetch(source, root, progress=False, keep=("wmt22",), manifest={"wmt22/sources/zh-en.txt": sha})
    assert sorted(p.name for p in target.iterdir()) == ["wmt22", "wmt23"]
    assert (target / "wmt23/mine.txt").read_text() == "kept\n"        # the folder already there is untouched
    assert [p.name for p in root.iterdir()] == ["mt-metrics-eval-v2"]  # no staging folder left
    with pytest.raises(FileExistsError, match="already holds wmt22; delete it to download again"):
        fetch(source, root, progress=False, keep=("wmt22",), manifest={})


def test_data_command_failures_are_one_line(server, tmp_path, monkeypatch, capsys):
    served, base = server
    make_release(served)
    toy = DatasetSource("mt-metrics-eval-v2", (RemoteFile(f"{base}/release.tgz", ".", unpack=True, strip=1),))
    monkeypatch.setitem(data.DATASETS, "mt-metrics-eval-v2", toy)
    sha = hashlib.sha256(b"one\n").hexdigest()
    manifest = {"mt-metrics-eval-v2": {"wmt23/sources/en-de.txt": sha, "wmt22/sources/zh-en.txt": sha}}
    monkeypatch.setattr(spalib.data._download, "read_manifest", lambda: manifest)
    monkeypatch.setattr(spalib.data.__main__, "read_manifest", lambda: manifest)
    monkeypatch.setenv("SPALIB_DATA", str(tmp_path))
    assert cli_main(["download", "mt-metrics-eval-v2", "--test-set", "wmt23"]) == 0
    assert cli_main(["verify", "mt-metrics-eval-v2"]) == 0              # the class subset verifies
    assert "1 files match the manifest (test sets present: wmt23)" in capsys.readouterr().out
    capsys.readouterr()
    assert cli_main(["download", "mt-metrics-eval-v2"]) == 2            # already there
    err = capsys.readouterr().err
    assert "already exists" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "mt-metrics-eval-v2/wmt23/sources/en-de.txt").write_text("two\n")
    assert cli_main(["verify", "mt-metrics-eval-v2"]) == 2              # one byte changed
    err = capsys.readouterr().err
    assert "does not match the manifest" in err and len(err.strip().splitlines()) == 1
    assert cli_main(["download", "wmt12", "--test-set", "wmt23"]) == 2
    assert "test_sets applies to mt-metrics-eval-v2" in capsys.readouterr().err


def make_archive(folder: Path, name: str, members) -> None:
    """A tarball of ``members``: (TarInfo name, kind, link target) with kind "file" or "symlink"."""
    with tarfile.open(folder / name, mode="w:gz") as tar:
        for member, kind, link in members:
            info = tarfile.TarInfo(member)
            if kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, link
                tar.addfile(info)
            else:
                info.size = 3
                tar.addfile(info, io.BytesIO(b"hi\n"))


@pytest.mark.parametrize("members, message", [
    ([("top/../../evil.txt", "file", "")], "would land outside"),
    ([("top/link", "symlink", "../../../etc/passwd")], "would land outside"),
])
@pytest.mark.parametrize("data_filter", [True, False], ids=["filtered", "older-python"])
def test_archive_members_that_escape_the_folder_are_refused(server, tmp_path, monkeypatch, members, message,
                                                             data_filter):
    served, base = server
    make_archive(served, "bad.tgz", members)
    if not data_filter:  # Pythons without tarfile's data filter take the same check
        monkeypatch.setattr(spalib.data._download, "_DATA_FILTER", {})
    with pytest.raises(OSError, match=message):  # every address failed: an OSError naming why
        fetch(DatasetSource("bad", (RemoteFile(f"{base}/bad.tgz", ".", unpack=True, strip=1),)),
              tmp_path / "cache", progress=False, manifest={})
    assert list((tmp_path / "cache").iterdir()) == []
    assert not (tmp_path / "evil.txt").exists()


def test_an_older_python_unpacks_the_release_the_same(server, tmp_path, monkeypatch):
    served, base = server
    make_release(served)
    make_archive(served, "linked.tgz", [("top/a.txt", "file", ""), ("top/b.txt", "symlink", "a.txt")])
    monkeypatch.setattr(spalib.data._download, "_DATA_FILTER", {})
    source = DatasetSource("toy", (RemoteFile(f"{base}/release.tgz", ".", unpack=True, strip=1),
                                   RemoteFile(f"{base}/linked.tgz", "linked", unpack=True, strip=1)))
    target = fetch(source, tmp_path / "cache", progress=False, manifest={})
    assert (target / "wmt23/sources/en-de.txt").read_text() == "one\n"
    assert (target / "linked/b.txt").read_text() == "hi\n"

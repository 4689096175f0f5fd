"""Uploads at the door, no server needed: names kept bare and bounded, the spool path the
server chooses, unsupported types and what the bytes show refused by name, compression bombs
refused without inflating them whole."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os

import pytest

from crag.errors import CragError
from crag.server.uploads import (
    TooLarge,
    UnsupportedUpload,
    check_supported,
    check_upload,
    source_name,
    spool_path,
)


# -- upload names --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("../../etc/passwd", "passwd"),
        ("..\\..\\windows\\evil.md", "evil.md"),
        ("/abs/path/notes.md", "notes.md"),
        ("..", "upload.txt"),
        ("", "upload.txt"),
        (None, "upload.txt"),
        ("  .hidden.md ", "hidden.md"),
        ("na\x00me\n.md", "name.md"),
        ("rapor-ğüşiöç.pdf", "rapor-ğüşiöç.pdf"),
    ],
)
def test_source_name_keeps_only_a_bare_printable_name(given, expected) -> None:
    assert source_name(given) == expected


def test_source_name_is_bounded_and_keeps_the_suffix() -> None:
    name = source_name("a" * 1000 + ".jsonl")
    assert len(name) == 200 and name.endswith(".jsonl")


def test_unsupported_types_are_refused_by_name() -> None:
    check_supported("report.pdf")
    check_supported("squad.json.gz")
    check_supported("README.Debian")  # plain text by its conventional name
    check_supported("NEWS.gz")
    with pytest.raises(UnsupportedUpload, match="passwd"):
        check_supported("passwd")
    with pytest.raises(UnsupportedUpload):
        check_supported("tool.exe")


def test_spool_path_is_server_chosen_inside_the_folder(tmp_path) -> None:
    a = spool_path(tmp_path / "up", "../../x/evil.md")
    b = spool_path(tmp_path / "up", "../../x/evil.md")
    assert a != b
    for p in (a, b):
        assert p.parent == tmp_path / "up" and p.exists() and p.suffix == ".md"
        assert "evil" not in p.name and ".." not in p.name
        if os.name == "posix":
            assert p.stat().st_mode & 0o777 == 0o600
    assert spool_path(tmp_path, "data.JSON.GZ").name.endswith(".json.gz")
    assert spool_path(tmp_path, "weird.m$d").suffix == ".md"


def test_gzip_bomb_is_refused_without_inflating_it_whole(tmp_path) -> None:
    bomb = tmp_path / "x.gz"
    bomb.write_bytes(gzip.compress(b"a " * 10_000_000))  # 20 MB of text: ~20 KB compressed
    assert bomb.stat().st_size < 100_000
    with pytest.raises(TooLarge, match="decompresses to more than"):
        check_upload(bomb, "squad.json.gz", limit_bytes=5_000_000)
    check_upload(bomb, "squad.json.gz", limit_bytes=25_000_000)  # within the limit: fine
    with pytest.raises(CragError, match="binary data"):  # not compressed by name: not inflated
        check_upload(bomb, "plain.json", limit_bytes=1)
    broken = tmp_path / "broken.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00garbage-not-deflate")
    with pytest.raises(CragError, match="corrupt gzip"):
        check_upload(broken, "a.jsonl.gz", limit_bytes=10**9)


def test_a_bomb_in_a_second_member_is_refused(tmp_path) -> None:
    """F1: the first member is tiny and honest, the second inflates to 20 MB."""
    bomb = tmp_path / "two.gz"
    bomb.write_bytes(gzip.compress(b"hello\n") + gzip.compress(b"a" * 20_000_000))
    assert bomb.stat().st_size < 50_000
    with pytest.raises(TooLarge, match="decompresses to more than 5 MB"):
        check_upload(bomb, "notes.txt.gz", limit_bytes=5_000_000)
    for fmt, pack in (("bz2", bz2.compress), ("xz", lzma.compress)):
        other = tmp_path / f"two.{fmt}"
        other.write_bytes(pack(b"hello\n") + pack(b"a" * 20_000_000))
        with pytest.raises(TooLarge):
            check_upload(other, f"notes.txt.{fmt}", limit_bytes=5_000_000)


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("empty.txt", b"", "empty file"),
        ("blank.md", b"  \n\t\n", "empty file"),
        ("empty.txt.gz", gzip.compress(b""), "empty file"),
        ("nul.txt", b"text\0with a NUL", "binary data"),
        ("ctrl.md", bytes(range(1, 32)) * 50, "binary data"),
        ("cut.txt.gz", gzip.compress(b"some words " * 1000)[:-20], "truncated gzip"),
        ("cut.json.xz", lzma.compress(b"some words " * 1000)[:-30], "truncated xz"),
        ("junk.txt.bz2", b"BZh9 not really", "corrupt bzip2"),
        ("fake.pdf", b"hello, I am text", "not a PDF"),
        ("zero.jsonl.gz", b"", "empty file"),
    ],
)
def test_what_the_bytes_show_is_refused_at_the_door(tmp_path, name, data, reason) -> None:
    path = tmp_path / "spooled"
    path.write_bytes(data)
    with pytest.raises(CragError, match=reason) as caught:
        check_upload(path, name, limit_bytes=10**7)
    assert not isinstance(caught.value, TooLarge)
    assert repr(name) in str(caught.value)


def test_good_uploads_pass_the_door(tmp_path) -> None:
    path = tmp_path / "spooled"
    cases = [
        ("notes.txt", "caf\u00e9 na\u00efve".encode("latin-1")),  # legacy text: detected later
        ("utf16.txt", "\ufeffhello".encode("utf-16-le")),
        ("a.pdf", b"%PDF-1.7\n..."),
        ("a.docx", b"PK\x03\x04\x00\x00binary zip"),  # a binary format: its loader judges
        ("two.txt.gz", gzip.compress(b"one\n") + gzip.compress(b"two\n") + b"\0" * 512),
        ("ci.log.txt", b"\x1b[32mPASS\x1b[0m a.py\n" * 200),  # a log in colour: text
        ("page.txt", b"B\bBo\bol\bld\bd\n" * 200),  # overstrikes: text
    ]
    for name, data in cases:
        path.write_bytes(data)
        check_upload(path, name, limit_bytes=10**7)
    path.write_bytes("caf\u00e9".encode("latin-1"))
    with pytest.raises(CragError, match="not valid UTF-8"):
        check_upload(path, "x.txt", limit_bytes=10**7, detect_encoding=False)
    check_upload(path, "x.txt", limit_bytes=10**7, detect_encoding=False, encoding="latin-1")

"""Bounded decompression: every member of .gz/.bz2/.xz, refused past the limit while inflating,
truncated and corrupt data named; the loader and the ingestor enforce ingest.max_file_mb."""

from __future__ import annotations

import bz2
import gzip
import lzma
import tracemalloc
from pathlib import Path

import pytest

from crag.errors import LoaderError
from crag.ingest.compressed import InflatedTooLarge, compression_of, decompress, inflate_file
from crag.ingest.loaders import load_bytes, load_file

PACK = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}


@pytest.mark.parametrize("fmt", sorted(PACK))
def test_every_member_is_read(fmt: str) -> None:
    pack = PACK[fmt]
    data = pack(b"first member\n") + pack(b"second member\n") + pack(b"third\n")
    assert decompress(data, "x", fmt, None) == b"first member\nsecond member\nthird\n"


@pytest.mark.parametrize("fmt", sorted(PACK))
def test_a_bomb_in_a_later_member_stops_at_the_limit(fmt: str) -> None:
    pack = PACK[fmt]
    data = pack(b"honest\n") + pack(b"a" * 30_000_000)
    assert len(data) < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(InflatedTooLarge, match="more than 2 MB"):
            decompress(data, "bomb", fmt, 2_000_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 12_000_000  # stopped near the limit, not after inflating 30 MB


@pytest.mark.parametrize("fmt", sorted(PACK))
def test_truncated_and_corrupt_data_are_named(fmt: str) -> None:
    whole = PACK[fmt](b"some words here " * 2000)
    with pytest.raises(LoaderError, match=f"truncated {fmt}"):
        decompress(whole[: len(whole) // 2], "cut", fmt, None)
    with pytest.raises(LoaderError, match=f"corrupt {fmt}"):
        decompress(whole + b"trailing garbage that is no member", "junk", fmt, None)
    with pytest.raises(LoaderError, match="empty file"):
        decompress(b"", "nothing", fmt, None)


def test_zero_padding_after_the_last_gzip_member_is_allowed() -> None:
    assert decompress(gzip.compress(b"x") + b"\0" * 1024, "pad", "gzip", None) == b"x"


def test_inflate_file_streams(tmp_path: Path) -> None:
    path = tmp_path / "a.txt.gz"
    path.write_bytes(gzip.compress(b"line\n" * 500_000))
    blocks = list(inflate_file(path, "a", "gzip", None))
    assert sum(map(len, blocks)) == 2_500_000 and max(map(len, blocks)) <= 1 << 20


def test_compression_of() -> None:
    assert compression_of("a.json.gz") == "gzip"
    assert compression_of("a.txt.BZ2") == "bzip2"
    assert compression_of("a.md.xz") == "xz"
    assert compression_of("a.txt") is None


def test_loader_reads_all_members_and_enforces_max_bytes(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt.gz"
    path.write_bytes(gzip.compress(b"Alpha is first.\n") + gzip.compress(b"Beta is second.\n"))
    docs = load_file(path).documents
    assert "Alpha is first." in docs[0].text and "Beta is second." in docs[0].text
    bomb = gzip.compress(b"ok\n") + gzip.compress(b"word " * 1_000_000)
    with pytest.raises(LoaderError, match="decompresses to more than"):
        load_bytes(Path("bomb.txt.gz"), bomb, max_bytes=1_000_000)
    xz = tmp_path / "notes.md.xz"
    xz.write_bytes(lzma.compress(b"# Title\n\nBody text.\n"))
    assert load_file(xz).documents[0].title == "Title"


def test_ingest_encoding_forces_the_codec() -> None:
    data = "Le na\u00efve caf\u00e9 \u00e0 Paris, d\u00e9j\u00e0 vu.".encode("latin-1")
    forced = load_bytes(Path("f.txt"), data, encoding="latin-1").documents[0].text
    assert "na\u00efve" in forced
    with pytest.raises(LoaderError, match="not valid utf-8 at byte"):
        load_bytes(Path("f.txt"), data, encoding="utf-8")
    with pytest.raises(LoaderError, match="unknown encoding"):
        load_bytes(Path("f.txt"), data, encoding="no-such-codec")

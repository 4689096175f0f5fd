"""Property-based tests (Hypothesis, bounded example counts) for loaders, bounded decompression
and chunking: any bytes give documents or a `LoaderError`, never another exception; any text
gives chunks within the size whose offsets point at their text."""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crag.errors import LoaderError
from crag.ingest.chunking import Chunker, pieces
from crag.ingest.compressed import InflatedTooLarge, decompress
from crag.ingest.decode import without_terminal_codes
from crag.ingest.loaders import load_bytes
from crag.ingest.soft_breaks import join_soft_breaks
from crag.types import Document

FAST = settings(
    max_examples=30, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
SUFFIXES = [".txt", ".md", ".json", ".jsonl", ".pdf", ".txt.gz", ".jsonl.bz2", ".md.xz"]
TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",))
    | st.sampled_from(list(" \n\n.!?。\t[]<>|#:")),
    max_size=3000,
)


@FAST
@given(data=st.binary(max_size=2000), suffix=st.sampled_from(SUFFIXES))
def test_any_bytes_load_or_fail_with_a_reason(data: bytes, suffix: str) -> None:
    try:
        result = load_bytes(Path("doc" + suffix), data, max_bytes=100_000)
    except LoaderError as exc:
        assert exc.reason
    else:
        assert result.documents and all(d.text.strip() for d in result.documents)


@FAST
@given(text=TEXT, suffix=st.sampled_from([".txt", ".md"]))
def test_any_utf8_text_loads_as_itself(text: str, suffix: str) -> None:
    try:
        docs = load_bytes(Path("doc" + suffix), text.encode("utf-8")).documents
    except LoaderError as exc:
        assert "empty" in exc.reason or "binary" in exc.reason or "no text" in exc.reason
    else:
        # a terminal's escapes and overstrikes are formatting (crag.ingest.decode)
        expected = without_terminal_codes(text.removeprefix("\ufeff"))
        if suffix == ".md":  # a paragraph's soft line breaks are spaces (crag.ingest.soft_breaks)
            expected = join_soft_breaks(expected)
        assert docs[0].text == expected


@FAST
@given(
    members=st.lists(st.binary(max_size=3000), min_size=1, max_size=4),
    fmt=st.sampled_from(["gzip", "bzip2", "xz"]),
    limit=st.integers(min_value=0, max_value=8000),
)
def test_every_member_is_inflated_and_the_limit_holds(
    members: list[bytes], fmt: str, limit: int
) -> None:
    pack = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[fmt]
    data = b"".join(pack(m) for m in members)
    whole = b"".join(members)
    try:
        assert decompress(data, "x", fmt, limit) == whole
        assert len(whole) <= limit
    except InflatedTooLarge:
        assert len(whole) > limit


@FAST
@given(text=TEXT, size=st.integers(min_value=50, max_value=400))
def test_chunks_stay_within_the_size_and_point_at_their_text(text: str, size: int) -> None:
    chunker = Chunker(size, size // 10, piece_chars=max(size * 2, 120))
    chunks = chunker.split(Document(source="s", doc_id="d", text=text))
    for chunk in chunks:
        assert 0 < len(chunk.text) <= size
        assert text[chunk.start : chunk.end] == chunk.text
    assert len({c.id for c in chunks}) == len(chunks)
    if text.strip():
        assert chunks


@FAST
@given(text=TEXT, size=st.integers(min_value=4, max_value=500))
def test_pieces_partition_the_text(text: str, size: int) -> None:
    parts = list(pieces(text, size))
    assert "".join(p for _, p in parts) == text
    assert all(0 < len(p) <= size for _, p in parts)
    assert all(text[o : o + len(p)] == p for o, p in parts)

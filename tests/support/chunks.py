"""A chunk over a plain text (what the unit tests of strips, citations and checks hand in), a
document to chunk, and the chunker's offset invariant."""

from __future__ import annotations

from crag.types import Chunk, Document

__all__ = ["check_offsets", "chunk", "document"]


def chunk(text: str, i: int = 0) -> Chunk:
    return Chunk(
        id=f"c{i}", text=text, source=f"/docs/f{i}.txt", doc_id="text", position=0, start=0,
        end=len(text),
    )  # fmt: skip


def document(
    text: str, source: str = "/data/a.txt", fmt: str = "text", doc_id: str = "text"
) -> Document:
    return Document(source=source, doc_id=doc_id, text=text, title="T", format=fmt)


def check_offsets(doc: Document, chunks: list[Chunk]) -> None:
    for c in chunks:
        assert doc.text[c.start : c.end] == c.text
        assert c.end - c.start == len(c.text)

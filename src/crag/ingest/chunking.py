"""Split documents into chunks with stable content ids.

Splitting uses semantic-text-splitter (Rust, unicode segmentation): it fills each chunk up to
`chunk_size` characters with the largest semantic units that fit — paragraphs, then sentences,
then words — so chunks end at sentence boundaries where possible, unlike a plain recursive
character splitter. Markdown documents use its Markdown-aware splitter (headings, lists).
"""

from __future__ import annotations

import hashlib

from semantic_text_splitter import MarkdownSplitter, TextSplitter

from crag.types import Chunk, Document

__all__ = ["Chunker", "chunk_id"]


def chunk_id(source: str, doc_id: str, text: str) -> str:
    """SHA-256 of source, unit and text: identical text in the same unit keeps its id.

    The unit (`doc_id`: JSONL record id, SQuAD paragraph, PDF page) is part of the id because
    records of one file often share passages (13,834 NQ passages: 20 records share every chunk
    with another record); hashing only source + text merged them and cited the wrong record.
    """
    return hashlib.sha256(f"{source}\x00{doc_id}\x00{text}".encode()).hexdigest()


class Chunker:
    """Turns `Document`s into `Chunk`s of at most `chunk_size` characters."""

    def __init__(self, chunk_size: int = 500, chunk_overlap: int = 50) -> None:
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self._text = TextSplitter(chunk_size, overlap=chunk_overlap, trim=True)
        self._markdown = MarkdownSplitter(chunk_size, overlap=chunk_overlap, trim=True)

    def split(self, doc: Document) -> list[Chunk]:
        splitter = self._markdown if doc.format == "markdown" else self._text
        chunks: list[Chunk] = []
        seen: set[str] = set()
        for start, text in splitter.chunk_indices(doc.text):
            cid = chunk_id(doc.source, doc.doc_id, text)
            if cid in seen:  # the same text twice in one unit adds nothing to retrieval
                continue
            seen.add(cid)
            chunks.append(
                Chunk(
                    id=cid,
                    text=text,
                    source=doc.source,
                    doc_id=doc.doc_id,
                    position=len(chunks),
                    start=start,
                    end=start + len(text),
                    title=doc.title,
                    url=doc.url,
                    metadata=dict(doc.metadata),
                )
            )
        return chunks

    def split_all(self, docs: list[Document]) -> list[Chunk]:
        """Chunks of all documents of one source; ids unique across the source (a repeated
        unit id with the same text, e.g. a duplicated JSONL record, is kept once)."""
        out: list[Chunk] = []
        seen: set[str] = set()
        for doc in docs:
            for chunk in self.split(doc):
                if chunk.id not in seen:
                    seen.add(chunk.id)
                    out.append(chunk)
        return out

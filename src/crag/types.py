"""Plain data objects that flow through crag.

They are deliberately small, immutable where possible, and free of behaviour so that every
component (loaders, index, retriever, evaluator, generator) can exchange them without
importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Chunk", "Document", "ScoredChunk", "SearchMode"]

SearchMode = str  # "bm25" | "dense" | "hybrid"


@dataclass(frozen=True, slots=True)
class Document:
    """One citable unit read from a file: a SQuAD paragraph, a JSONL record, a PDF page, a page.

    `source` is the file it came from (its resolved path); `doc_id` names the unit inside the
    file (paragraph id, record id, page number) so a citation can point at it.
    """

    source: str
    doc_id: str
    text: str
    title: str = ""
    url: str = ""
    format: str = "text"  # "text" | "markdown": picks the splitter
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of a Document small enough to embed, with everything a citation needs.

    `id` is the SHA-256 of source + unit (`doc_id`) + text, so identical text in the same unit
    always maps to the same id: unchanged chunks of a changed file are not embedded again.
    """

    id: str
    text: str
    source: str
    doc_id: str
    position: int  # index of the chunk inside its document
    start: int  # character offsets of the chunk inside the document text
    end: int
    title: str = ""
    url: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    def cite(self) -> str:
        """Human-readable pointer: `file › title › unit, chars a-b` (or the URL)."""
        where = self.url or self.source
        parts = [where]
        if self.title:
            parts.append(self.title)
        parts.append(f"{self.doc_id} chars {self.start}-{self.end}")
        return " › ".join(parts)


@dataclass(frozen=True, slots=True)
class ScoredChunk:
    """A chunk with the score one stage gave it, plus the per-stage scores so far."""

    chunk: Chunk
    score: float
    scores: dict[str, float] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.chunk.id

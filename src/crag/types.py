"""Plain data objects that flow through crag.

They are deliberately small, immutable where possible, and free of behaviour so that every
component (loaders, index, retriever, evaluator, generator) can exchange them without
importing each other.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crag.trace import Trace

__all__ = [
    "Answer",
    "Chunk",
    "Citation",
    "Document",
    "Heading",
    "ModelCall",
    "ScoredChunk",
    "SearchMode",
    "Strip",
    "Verdict",
]

SearchMode = str  # "bm25" | "dense" | "hybrid"


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading a loader knows by its place rather than by markup in the text (a PDF's
    outline entry or large type, a reStructuredText title, an EPUB heading): where it
    stands in the Document's text (-1: a section opened on an earlier page and still open),
    its level (1 = top), and its text."""

    offset: int
    level: int
    text: str


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
    # headings not marked up in `text` (a PDF's outline), in order: the chunker gives each
    # chunk the section it starts in from these, as it does from a Markdown text's headings
    headings: tuple[Heading, ...] = ()


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

    @property
    def origin(self) -> str:
        """ "web" for a page or snippet found by web search, "local" for an indexed chunk."""
        return "web" if self.metadata.get("origin") == "web" else "local"

    def cite(self) -> str:
        """Human-readable pointer: `file › title › unit, chars a-b`; a web page: `URL › title`."""
        if self.origin == "web":
            return " › ".join(p for p in (self.url or self.source, self.title) if p)
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


class Verdict(StrEnum):
    """The retrieval evaluator's judgement of what was retrieved for one question (CRAG §4.3)."""

    CORRECT = "correct"
    AMBIGUOUS = "ambiguous"
    INCORRECT = "incorrect"


@dataclass(frozen=True, slots=True)
class Strip:
    """A knowledge strip: a piece of a retrieved chunk (or a whole one), scored on its own.

    `chunk` is where it came from, so a strip cited in the answer points at a real source.
    `order` is its position in the original reading order, used to recompose stably.
    `lead` is the heading a later strip of a section stands under (the first strip opens with
    it): in API docs the heading is often the only place that names what its sentences are
    about ("New in version 3.8." under "math.isqrt(n)"), so a strip read or scored without the
    strip before it is read after its lead (`crag.refine.strips.in_section`).
    """

    text: str
    chunk: Chunk
    order: int
    score: float = 0.0
    # the heading of its section, for a strip that is not the section's first ("math.isqrt(n).")
    lead: str = ""


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One LLM call, as recorded in a trace."""

    role: str
    model: str
    purpose: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    provider: str = ""  # local, ollama, openai, ...
    attempts: int = 1  # HTTP requests it took (more than one: retried after an error)
    # prompt tokens the server did not compute again: its cache, or a state restored from disk
    cached_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Citation:
    """What `[n]` in an answer points at."""

    n: int
    chunk_id: str
    label: str  # file › title › unit, chars a-b — or the URL
    source: str
    url: str = ""
    origin: str = "local"  # "local": an indexed document; "web": a page found by web search


@dataclass(slots=True)
class Answer:
    """The answer to one question, its citations, the verdict that shaped it and the trace
    (`crag.trace.Trace`: typed records, a pydantic model)."""

    question: str
    text: str
    citations: list[Citation]
    verdict: Verdict | None
    refused: bool
    trace: Trace
    reason: str = ""
    # "step_limit": Self-RAG stopped at its step limit and returned the best answer so far
    flags: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = {
            "question": self.question,
            "answer": self.text,
            "citations": [asdict(c) for c in self.citations],
            "verdict": self.verdict.value if self.verdict else None,
            "refused": self.refused,
            "reason": self.reason,
            "flags": list(self.flags),
            "trace": self.trace.to_dict(),
        }
        return data

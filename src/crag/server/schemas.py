"""Request and response bodies of the HTTP API (pydantic): what the OpenAPI docs show.

Requests forbid unknown fields (a typo is a 422 naming it), except the OpenAI chat request,
which ignores parameters crag does not use (temperature, top_p, ...) so SDKs and chat UIs
that always send them keep working.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from crag.modes import Mode, describe_modes
from crag.trace import Trace
from crag.types import Chunk, Verdict

__all__ = [
    "SCHEMA_VERSION",
    "AskOptions",
    "AskRequest",
    "AskResponse",
    "ChatMessage",
    "ChatRequest",
    "ChunkOut",
    "CitationOut",
    "CollectionIn",
    "CollectionOut",
    "CollectionsOut",
    "ConditionIn",
    "HitOut",
    "JobOut",
    "SearchRequest",
    "SearchResponse",
    "SourceOut",
    "SourcesOut",
    "TurnIn",
    "UrlsIn",
]


class AskOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    top_k: int | None = Field(None, ge=1, le=100, description="Chunks retrieved (retrieval.top_k).")
    rerank_k: int | None = Field(
        None, ge=1, le=20, description="Chunks kept after reranking and judged (rerank.top_k)."
    )
    trace: bool = Field(True, description="Include the trace (scores, strips, model calls).")


class ConditionIn(BaseModel):
    """One metadata condition (all of a request's must hold; docs/filters.md)."""

    model_config = ConfigDict(extra="forbid")

    field: str = Field(
        pattern=r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$",
        description="source (or path), title, url, or a metadata key: type, modified, a "
        "JSONL field, a tag given at ingest.",
        examples=["type", "year"],
    )
    op: Literal["=", "!=", "<", "<=", ">", ">=", "in"] = "="
    value: str | int | float | bool | list[str] | list[int | float] = Field(
        description="Typed: a number compares as a number; a date string (YYYY-MM-DD) with "
        "a comparison as seconds since the epoch; a list for `in`.",
        examples=["pdf", 2024],
    )


Where = list[ConditionIn | str]
WHERE_DOC = (
    "Only chunks whose metadata matches every condition, applied inside both keyword and "
    "vector search: objects `{field, op, value}` or expressions like 'type=pdf', "
    "'year>=2024', 'lang in en,tr'."
)


class TurnIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(max_length=4000)
    answer: str = Field("", max_length=8000)


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, description="The question, in any language.")
    mode: Mode = Field(Mode.CRAG, description=describe_modes() + ".")
    stream: bool = Field(
        False, description="Server-sent events: node events, then tokens, then the answer."
    )
    options: AskOptions = Field(default_factory=AskOptions)
    where: Where = Field(default_factory=list, max_length=20, description=WHERE_DOC)
    collection: str | None = Field(
        None,
        description="The collection to answer from (default: ?collection=, the "
        "X-Crag-Collection header, else the server's default).",
    )
    history: list[TurnIn] = Field(
        default_factory=list,
        max_length=20,
        description="Earlier turns of the conversation, oldest first: a follow-up question "
        "is rewritten into a standalone one from them before retrieval.",
    )


class CitationOut(BaseModel):
    n: int
    chunk_id: str
    label: str
    source: str
    url: str = ""
    origin: Literal["local", "web"] = Field(
        "local", description="local: an indexed chunk (GET /v1/chunks/{chunk_id}); web: a page."
    )


# The version of the answer's JSON (`AskResponse`, the `answer` event, `crag ask --json`'s
# fields). 1: the trace was a free-form dict; 2: the typed `Trace` (same field names, but a
# stage that did not run — thresholds, web, reflection — is null instead of {}).
SCHEMA_VERSION = 2


class AskResponse(BaseModel):
    question: str
    mode: Mode
    answer: str
    citations: list[CitationOut]
    verdict: Verdict | None
    refused: bool
    reason: str = ""
    flags: list[str] = Field(
        default_factory=list,
        description="'step_limit': self-crag stopped at its step limit (best answer so far).",
    )
    trace: Trace | None = Field(
        None, description="What the pipeline decided: scores, strips, web search, model calls."
    )
    schema_version: int = Field(
        SCHEMA_VERSION, description="Version of this answer's JSON; 2 since the trace is typed."
    )


class ChunkOut(BaseModel):
    id: str
    text: str
    source: str
    doc_id: str
    start: int
    end: int
    title: str = ""
    url: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    cite: str = Field(description="file › title › unit, chars a-b (as citations label it)")

    @classmethod
    def of(cls, c: Chunk) -> ChunkOut:
        """An indexed chunk as the API shows it (`/v1/chunks` and `/v1/search` alike)."""
        return cls(
            id=c.id,
            text=c.text,
            source=c.source,
            doc_id=c.doc_id,
            start=c.start,
            end=c.end,
            title=c.title,
            url=c.url,
            metadata=c.metadata,
            cite=c.cite(),
        )


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=4000)
    k: int | None = Field(None, ge=1, le=100, description="Results (retrieval.top_k).")
    mode: Literal["bm25", "dense", "hybrid"] | None = None
    fusion: Literal["rrf", "weighted"] | None = None
    rerank: bool = Field(True, description="Rerank with the server's reranker, if it has one.")
    where: Where = Field(default_factory=list, max_length=20, description=WHERE_DOC)
    collection: str | None = Field(None, description="Default: the server's collection.")


class HitOut(BaseModel):
    rank: int
    score: float
    scores: dict[str, float]
    chunk: ChunkOut


class SearchResponse(BaseModel):
    query: str
    collection: str
    where: str = Field(description="The filter as applied ('' for none).")
    hits: list[HitOut]


class UrlsIn(BaseModel):
    """Web pages to ingest (`POST /v1/documents/urls`), as `crag ingest URL…` does."""

    model_config = ConfigDict(extra="forbid")

    urls: list[str] = Field(min_length=1, max_length=100, description="http(s) URLs.")
    refresh: bool = Field(False, description="Fetch URLs already indexed again.")
    crawl_depth: int = Field(0, ge=0, le=5, description="Follow links this many levels.")
    same_site: bool = Field(True, description="Crawl only each start page's site.")
    max_pages: int = Field(50, ge=1, le=500, description="Pages fetched at most.")
    max_bytes: int | None = Field(
        None, ge=1024, le=50_000_000, description="Largest page (default web.max_page_bytes)."
    )
    tags: dict[str, str | int | float | bool] = Field(
        default_factory=dict, max_length=32, description="Metadata for every chunk (--tag)."
    )


class CollectionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,60}$")


class CollectionOut(BaseModel):
    name: str
    chunks: int
    sources: int
    default: bool


class CollectionsOut(BaseModel):
    default: str
    collections: list[CollectionOut]


class SourceOut(BaseModel):
    source: str
    chunks: int
    state: str


class SourcesOut(BaseModel):
    collection: str
    chunks: int
    embedding_model: str | None
    total: int
    sources: list[SourceOut]


class JobOut(BaseModel):
    """An ingestion or removal job; poll `GET /v1/documents/jobs/{id}` until `state` is done
    or failed."""

    id: str
    kind: Literal["ingest", "remove"]
    state: Literal["queued", "running", "done", "failed"]
    created: float
    started: float | None = None
    finished: float | None = None
    progress: dict[str, int]
    files: list[dict[str, str]] | None = None
    source: str | None = None
    removed_chunks: int | None = None
    result: dict[str, Any] | None = None
    error: str | None = None


# -- the OpenAI chat protocol ----------------------------------------------------------------
class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        """The message's text, whether sent as a string or as a list of content parts."""
        if isinstance(self.content, str):
            return self.content
        parts = self.content or []
        return "".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="ignore")

    include_usage: bool = False


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    model: str = Field(
        description=f"'{Mode.CRAG}' (corrective), '{Mode.RAG}' (plain baseline) or "
        f"'{Mode.SELF_CRAG}' (with reflection), or MODE:COLLECTION; see /v1/models."
    )
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    n: int = Field(1, ge=1, le=1, description="Only one choice is generated.")

"""What the retriever, the ingestor, the server and the CLI need from an index backend.

Two backends implement it: the embedded `Index` (SQLite catalog + FTS5, Chroma vectors) and
`PgIndex` (one PostgreSQL database: tsvector keyword index and pgvector vectors in the same
rows). Callers reach the catalog and the vectors through the two attributes below, so code
written against the embedded index (`index.catalog.get_chunks`, `index.vectors.query`) runs
unchanged on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol

import numpy as np

from crag.index.catalog import SourceInfo
from crag.types import Chunk

if TYPE_CHECKING:
    from crag.index.analyzer import Analyzer
    from crag.index.store import PreparedSource
    from crag.models.embedder import Embedder

__all__ = ["CatalogReader", "IndexBackend", "SourceInfo", "VectorReader"]


class CatalogReader(Protocol):
    """The catalog: the source of truth for which chunks are indexed, and keyword search."""

    analyzer: Analyzer

    def source(self, source: str) -> SourceInfo | None: ...
    def sources(self, state: str | None = None) -> list[SourceInfo]: ...
    def chunk_ids(self, source: str) -> set[str]: ...
    def get_chunks(self, ids: list[str]) -> dict[str, Chunk]: ...
    def chunks_of(self, source: str) -> list[Chunk]: ...
    def count(self) -> int: ...
    def keyword_search(self, query: str, limit: int) -> list[tuple[str, float]]:
        """(chunk id, keyword score) best first; higher is better."""
        ...


class VectorReader(Protocol):
    def count(self) -> int: ...
    def query(self, embedding: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity) best first."""
        ...

    def drop(self) -> None: ...


class IndexBackend(Protocol):
    """One collection of one backend."""

    catalog: CatalogReader
    vectors: VectorReader
    embedder: Embedder
    collection: str

    @property
    def embedding_model(self) -> str | None: ...
    def write_lock(
        self,
        wait: float = 0.0,
        *,
        cancelled: Callable[[], bool] | None = None,
        on_wait: Callable[[], None] | None = None,
    ) -> AbstractContextManager[None]: ...
    def needs_update(self, source: str, sha256: str) -> bool: ...
    def write(
        self, items: Sequence[PreparedSource], progress: Callable[[int], None] | None = None
    ) -> int: ...
    def remove(self, source: str) -> int: ...
    def reconcile(self) -> list[str]: ...
    def repair(self) -> list[str]: ...
    def stores_agree(self) -> bool: ...
    def sources(self) -> list[SourceInfo]: ...
    def count(self) -> int: ...
    def close(self) -> None: ...

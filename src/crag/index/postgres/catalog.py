"""The catalog half of a PostgreSQL collection: sources, chunks and keyword search.

Keyword search is PostgreSQL full text ranked by BM25: each chunk's tsvector is built with the
collection's text-search configuration (`english`, `turkish`, ...) from the text crag's own
`Analyzer` has normalised first. Why both: the analyzer applies the Turkish casing rules
(İ/I/ı) and folds diacritics, so "ISTANBUL", "İstanbul" and "istanbul" meet as they do in the
embedded index, while the configuration drops the language's stop words (which BM25 would
score low anyway) and keeps term positions and counts. Queries go through the same two steps,
so a document term and a query term always meet.
"""

from __future__ import annotations

from typing import Any

from psycopg import sql

from crag.index.analyzer import Analyzer
from crag.index.filters import Filter
from crag.index.postgres.database import Database
from crag.index.postgres.keyword import bm25_search
from crag.index.protocol import SourceInfo
from crag.index.rows import CHUNK_COLUMNS, row_to_chunk
from crag.titles import searchable
from crag.types import Chunk

__all__ = ["PgCatalog"]


class PgCatalog:
    """Reads of one collection; writes live in `PgIndex` (one transaction per source)."""

    def __init__(self, db: Database, collection: str, analyzer: Analyzer, ts_config: str) -> None:
        self.db = db
        self.collection = collection
        self.analyzer = analyzer
        self.ts_config = ts_config
        self.s = sql.Identifier(db.schema)

    def _q(self, text: str) -> sql.Composed:
        return sql.SQL(text).format(s=self.s)

    def _rows(self, text: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self.db.connection() as conn:
            return conn.execute(self._q(text), params).fetchall()

    # -- meta ---------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        """`embedding_model`, `embedding_dim` or `keyword_language` (as the embedded catalog)."""
        column = {
            "embedding_model": "embedding_model",
            "embedding_dim": "embedding_dim",
            "keyword_language": "language",
        }.get(key)
        if column is None:
            return None
        rows = self._rows(
            f"SELECT {column} FROM {{s}}.collections WHERE name=%s", (self.collection,)
        )
        return None if not rows or rows[0][0] is None else str(rows[0][0])

    # -- sources ------------------------------------------------------------------------
    def source(self, source: str) -> SourceInfo | None:
        rows = self._rows(
            "SELECT source, sha256, 'done', chunks FROM {s}.sources "
            "WHERE collection=%s AND source=%s",
            (self.collection, source),
        )
        return SourceInfo(*rows[0]) if rows else None

    def sources(self, state: str | None = None) -> list[SourceInfo]:
        if state not in (None, "done"):
            return []  # a source is written in one transaction: it is done or absent
        rows = self._rows(
            "SELECT source, sha256, 'done', chunks FROM {s}.sources WHERE collection=%s "
            "ORDER BY source",
            (self.collection,),
        )
        return [SourceInfo(*r) for r in rows]

    def unfinished(self) -> list[SourceInfo]:
        return []

    # -- chunks -------------------------------------------------------------------------
    def chunk_ids(self, source: str) -> set[str]:
        rows = self._rows(
            "SELECT id FROM {s}.chunks WHERE collection=%s AND source=%s",
            (self.collection, source),
        )
        return {r[0] for r in rows}

    def all_chunk_ids(self) -> set[str]:
        rows = self._rows("SELECT id FROM {s}.chunks WHERE collection=%s", (self.collection,))
        return {r[0] for r in rows}

    def count(self) -> int:
        """The collection's running total (kept by every write in its transaction), so the
        retriever's per-query emptiness check costs one row, not a scan."""
        rows = self._rows(
            "SELECT chunks_total FROM {s}.collections WHERE name=%s", (self.collection,)
        )
        return int(rows[0][0]) if rows else 0

    def keyword_count(self) -> int:
        """Chunks with a keyword entry: every chunk (the tsvector is in the same row)."""
        return self.count()

    def get_chunks(self, ids: list[str]) -> dict[str, Chunk]:
        if not ids:
            return {}
        rows = self._rows(
            f"SELECT {CHUNK_COLUMNS} FROM {{s}}.chunks WHERE collection=%s AND id = ANY(%s)",
            (self.collection, list(ids)),
        )
        return {r[0]: row_to_chunk(r) for r in rows}

    def chunks_of(self, source: str) -> list[Chunk]:
        rows = self._rows(
            f"SELECT {CHUNK_COLUMNS} FROM {{s}}.chunks WHERE collection=%s AND source=%s "
            "ORDER BY position, id",
            (self.collection, source),
        )
        return [row_to_chunk(r) for r in rows]

    # -- keyword search -----------------------------------------------------------------
    def index_text(self, chunk: Chunk) -> str:
        """What `to_tsvector(ts_config, ·)` reads for a chunk (title, heading path and text,
        analysed: `crag.titles.searchable`)."""
        return self.analyzer.index_text(searchable(chunk))

    def tsquery(self, query: str) -> str | None:
        """Any of the query's terms, quoted so user input cannot inject tsquery syntax."""
        unique = list(dict.fromkeys(self.analyzer.terms(query)))
        if not unique:
            return None
        return " | ".join("'" + t.replace("'", "''").replace("\\", "\\\\") + "'" for t in unique)

    def keyword_search(
        self, query: str, limit: int, where: Filter | None = None
    ) -> list[tuple[str, float]]:
        """(chunk id, BM25 score) best first, among the chunks `where` matches (see
        `crag.index.postgres.keyword` for how it is ranked and kept fast)."""
        text = self.analyzer.index_text(query)
        if not text:
            return []
        return bm25_search(self.db, self.collection, self.ts_config, text, limit, where)

    def close(self) -> None:
        """The pool belongs to the `PgIndex`; nothing to close here."""

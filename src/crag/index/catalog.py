"""The catalog: SQLite file that is the source of truth for what is indexed.

It holds, in one database so one transaction keeps them in step:
- `meta`: the embedding model (and dimension) the collection was built with;
- `sources`: one row per ingested file, its SHA-256 and state (`done`, `pending`, `removing`);
- `chunks`: every chunk with its text and citation fields;
- `fts`: an FTS5 table over analysed chunk text (rowid = chunks.rowid) ranked by BM25.

The vector store (Chroma) is kept in step by chunk id. A source in a state other than `done`
marks a write that may have stopped half-way; `Index.repair()` finishes or undoes it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from crag.errors import IndexCorruptError
from crag.index.analyzer import Analyzer
from crag.index.filters import Filter, sqlite_where
from crag.index.rows import CHUNK_COLUMNS, chunk_row, row_to_chunk
from crag.titles import searchable
from crag.types import Chunk

__all__ = ["Catalog", "SourceInfo"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources (
    source TEXT PRIMARY KEY, sha256 TEXT NOT NULL, state TEXT NOT NULL,
    chunks INTEGER NOT NULL DEFAULT 0, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
    rowid INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL, source TEXT NOT NULL,
    doc_id TEXT NOT NULL, position INTEGER NOT NULL, start INTEGER NOT NULL,
    "end" INTEGER NOT NULL, title TEXT NOT NULL, url TEXT NOT NULL, text TEXT NOT NULL,
    metadata TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_source ON chunks(source);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(terms, tokenize = 'unicode61');
"""


class SourceInfo(NamedTuple):
    source: str
    sha256: str
    state: str
    chunks: int


class Catalog:
    """SQLite catalog + FTS5 keyword index for one collection."""

    def __init__(self, path: Path, analyzer: Analyzer) -> None:
        self.path = path
        self.analyzer = analyzer
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise IndexCorruptError(f"{path}: cannot open the catalog: {exc}") from exc
        stored = self.get_meta("keyword_language")
        if stored is None:
            self.set_meta("keyword_language", analyzer.language)
        elif stored != analyzer.language:
            raise IndexCorruptError(
                f"{path}: keyword index was built with keyword.language={stored!r}, "
                f"configured {analyzer.language!r}; set CRAG_KEYWORD__LANGUAGE={stored}"
            )

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    # -- meta ---------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # -- sources ------------------------------------------------------------------------
    def source(self, source: str) -> SourceInfo | None:
        row = self._db.execute(
            "SELECT source, sha256, state, chunks FROM sources WHERE source=?", (source,)
        ).fetchone()
        return SourceInfo(*row) if row else None

    def sources(self, state: str | None = None) -> list[SourceInfo]:
        sql = "SELECT source, sha256, state, chunks FROM sources"
        rows = self._db.execute(sql + " WHERE state=?" if state else sql, (state,) if state else ())
        return [SourceInfo(*r) for r in rows.fetchall()]

    def unfinished(self) -> list[SourceInfo]:
        rows = self._db.execute(
            "SELECT source, sha256, state, chunks FROM sources WHERE state != 'done'"
        ).fetchall()
        return [SourceInfo(*r) for r in rows]

    def mark(self, sources: Iterable[str], state: str) -> None:
        """Set the state of existing sources; create unknown ones with an empty hash."""
        now = time.time()
        with self.transaction() as db:
            for src in sources:
                db.execute(
                    "INSERT INTO sources(source, sha256, state, chunks, updated) "
                    "VALUES (?, '', ?, 0, ?) ON CONFLICT(source) DO UPDATE SET "
                    "state=excluded.state, updated=excluded.updated",
                    (src, state, now),
                )

    def forget_source(self, source: str) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM sources WHERE source=?", (source,))

    # -- chunks -------------------------------------------------------------------------
    def chunk_ids(self, source: str) -> set[str]:
        rows = self._db.execute("SELECT id FROM chunks WHERE source=?", (source,)).fetchall()
        return {r[0] for r in rows}

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def all_chunk_ids(self) -> set[str]:
        return {r[0] for r in self._db.execute("SELECT id FROM chunks").fetchall()}

    def keyword_count(self) -> int:
        """Rows in the keyword index (one per chunk, written in the same transaction)."""
        return int(self._db.execute("SELECT count(*) FROM fts").fetchone()[0])

    def get_chunks(self, ids: list[str]) -> dict[str, Chunk]:
        out: dict[str, Chunk] = {}
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            marks = ",".join("?" * len(part))
            for row in self._db.execute(
                f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE id IN ({marks})", part
            ):
                out[row[0]] = row_to_chunk(row)
        return out

    def chunks_of(self, source: str) -> list[Chunk]:
        rows = self._db.execute(
            f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE source=? ORDER BY rowid", (source,)
        ).fetchall()
        return [row_to_chunk(r) for r in rows]

    def replace_source(self, source: str, sha256: str, chunks: list[Chunk]) -> None:
        """Make the catalog hold exactly `chunks` for `source`, in one transaction.

        The state stays `pending`: the vector store still has to drop the old chunks.
        """
        new_ids = {c.id for c in chunks}
        with self.transaction() as db:
            old = db.execute("SELECT rowid, id FROM chunks WHERE source=?", (source,)).fetchall()
            stale = [rowid for rowid, cid in old if cid not in new_ids]
            kept = {cid for _, cid in old if cid in new_ids}
            db.executemany("DELETE FROM fts WHERE rowid=?", ((r,) for r in stale))
            db.executemany("DELETE FROM chunks WHERE rowid=?", ((r,) for r in stale))
            for c in chunks:
                if c.id in kept:
                    db.execute(
                        'UPDATE chunks SET doc_id=?, position=?, start=?, "end"=?, title=?, '
                        "url=?, metadata=? WHERE id=?",
                        (
                            c.doc_id,
                            c.position,
                            c.start,
                            c.end,
                            c.title,
                            c.url,
                            json.dumps(c.metadata, ensure_ascii=False),
                            c.id,
                        ),
                    )
                    # its title or heading path may have changed: keyword search reads them
                    db.execute(
                        "UPDATE fts SET terms=? WHERE rowid=(SELECT rowid FROM chunks WHERE id=?)",
                        (self.analyzer.index_text(searchable(c)), c.id),
                    )
                    continue
                cur = db.execute(
                    f"INSERT INTO chunks({CHUNK_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    chunk_row(c),
                )
                db.execute(
                    "INSERT INTO fts(rowid, terms) VALUES (?, ?)",
                    (cur.lastrowid, self.analyzer.index_text(searchable(c))),
                )
            db.execute(
                "INSERT INTO sources(source, sha256, state, chunks, updated) VALUES "
                "(?, ?, 'pending', ?, ?) ON CONFLICT(source) DO UPDATE SET sha256=excluded.sha256,"
                " state='pending', chunks=excluded.chunks, updated=excluded.updated",
                (source, sha256, len(chunks), time.time()),
            )

    def delete_source_chunks(self, source: str) -> None:
        with self.transaction() as db:
            rows = db.execute("SELECT rowid FROM chunks WHERE source=?", (source,)).fetchall()
            db.executemany("DELETE FROM fts WHERE rowid=?", rows)
            db.execute("DELETE FROM chunks WHERE source=?", (source,))
            db.execute("UPDATE sources SET chunks=0 WHERE source=?", (source,))

    # -- keyword search -----------------------------------------------------------------
    def keyword_search(
        self, query: str, limit: int, where: Filter | None = None
    ) -> list[tuple[str, float]]:
        """(chunk id, BM25 score) best first; FTS5's bm25() is negated so higher is better.

        `where` is applied in the same query (before LIMIT), so k matching chunks come back
        whenever k exist, however few of the collection match."""
        expr = self.analyzer.match_query(query)
        if expr is None:
            return []
        cond, args = sqlite_where(where)
        rows = self._db.execute(
            "SELECT chunks.id, -bm25(fts) AS score FROM fts "
            "JOIN chunks ON chunks.rowid = fts.rowid "
            f"WHERE fts MATCH ? AND {cond} ORDER BY bm25(fts) LIMIT ?",
            (expr, *args, limit),
        ).fetchall()
        return [(cid, float(score)) for cid, score in rows]

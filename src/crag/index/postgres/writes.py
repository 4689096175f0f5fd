"""The SQL of writing one source into a PostgreSQL collection: its chunk rows, and the running
BM25 totals the write keeps up to date.

Why running totals: BM25 needs the number of chunks, the sum of their term counts (for the
average length) and each lexeme's document frequency. Counted at query time they would cost a
scan of the collection; kept here, inside the transaction that writes or removes the source,
a query reads a few numbers and one row per query term, and they cannot disagree with the
rows (`PgIndex.stores_agree` checks the chunk counts).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
from psycopg import sql

from crag.index.postgres.catalog import PgCatalog
from crag.index.rows import chunk_row
from crag.types import Chunk

__all__ = ["INSERT", "UPDATE", "add_totals", "chunk_rows", "count_terms", "source_totals"]

INSERT = (
    'INSERT INTO {s}.chunks (collection, id, source, doc_id, position, start, "end", title, '
    "url, text, metadata, tsv, nterms, embedding) VALUES "
    "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, to_tsvector(%s::regconfig, %s), %s, %s)"
)
UPDATE = (
    'UPDATE {s}.chunks SET doc_id=%s, position=%s, start=%s, "end"=%s, title=%s, url=%s, '
    "metadata=%s, tsv=to_tsvector(%s::regconfig, %s), nterms=%s WHERE collection=%s AND id=%s"
)


def chunk_rows(
    catalog: PgCatalog,
    collection: str,
    chunks: Sequence[Chunk],
    embeddings: dict[str, np.ndarray],
    old_ids: set[str],
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """(INSERT rows, UPDATE rows) for `chunks`: a chunk already stored (its id in `old_ids`,
    so the same text) keeps its embedding and has only its position and metadata updated."""
    from pgvector import Vector

    cfg = catalog.ts_config
    inserts: list[tuple[Any, ...]] = []
    updates: list[tuple[Any, ...]] = []
    for c in chunks:
        terms = catalog.index_text(c)
        nterms = len(terms.split())
        if c.id in old_ids:
            metadata = json.dumps(c.metadata, ensure_ascii=False)
            updates.append((c.doc_id, c.position, c.start, c.end, c.title, c.url, metadata,
                            cfg, terms, nterms, collection, c.id))  # fmt: skip
            continue
        vector = Vector(np.asarray(embeddings[c.id], dtype=np.float32))
        inserts.append((collection, *chunk_row(c), cfg, terms, nterms, vector))
    return inserts, updates


def source_totals(conn: Any, s: sql.Identifier, collection: str, source: str) -> tuple[int, int]:
    """(chunks, terms) of one source, for the collection's BM25 statistics."""
    row = conn.execute(
        sql.SQL(
            "SELECT count(*), coalesce(sum(nterms), 0) FROM {}.chunks "
            "WHERE collection=%s AND source=%s"
        ).format(s),
        (collection, source),
    ).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def count_terms(conn: Any, s: sql.Identifier, collection: str, source: str, sign: int) -> None:
    """Add (+1) or take away (-1) the document frequencies of one source's lexemes."""
    conn.execute(
        sql.SQL(
            "INSERT INTO {s}.terms (collection, lexeme, df) "
            "SELECT %s, u.lexeme, %s * count(*) FROM {s}.chunks c, unnest(c.tsv) u "
            "WHERE c.collection = %s AND c.source = %s GROUP BY u.lexeme "
            "ON CONFLICT (collection, lexeme) DO UPDATE SET df = terms.df + excluded.df"
        ).format(s=s),
        (collection, sign, collection, source),
    )


def add_totals(conn: Any, s: sql.Identifier, collection: str, chunks: int, terms: int) -> None:
    """Move the collection's chunk and term totals by a write's difference."""
    if chunks or terms:
        conn.execute(
            sql.SQL(
                "UPDATE {}.collections SET chunks_total = chunks_total + %s, "
                "terms_total = terms_total + %s WHERE name=%s"
            ).format(s),
            (chunks, terms, collection),
        )

"""The vector half of a PostgreSQL collection: pgvector HNSW (cosine) over `chunks.embedding`.

Vectors live in the chunk rows, so they are written and deleted in the same transaction as the
text and the tsvector: there is no second store to keep in step. Each collection has a partial
HNSW index on `embedding::vector(dim)`; a query repeats that expression and the collection
predicate (as literals, so the planner can match the partial index) to use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from psycopg import sql

from crag.index.filters import Filter
from crag.index.postgres.database import Database
from crag.index.postgres.filters import pg_where
from crag.index.postgres.schema import hnsw_index_name

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg.rows import TupleRow

__all__ = ["PgVectors"]


class PgVectors:
    def __init__(self, db: Database, collection: str) -> None:
        self.db = db
        self.collection = collection
        self.s = sql.Identifier(db.schema)

    def _dim(self, conn: Connection[TupleRow]) -> int | None:
        row = conn.execute(
            sql.SQL("SELECT embedding_dim FROM {}.collections WHERE name=%s").format(self.s),
            (self.collection,),
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    @property
    def embedding_model(self) -> str | None:
        with self.db.connection() as conn:
            row = conn.execute(
                sql.SQL("SELECT embedding_model FROM {}.collections WHERE name=%s").format(self.s),
                (self.collection,),
            ).fetchone()
        return None if row is None else row[0]

    def ensure_index(self, conn: Connection[TupleRow], dim: int) -> None:
        """The collection's partial HNSW index (idempotent; called when the dimension is set)."""
        conn.execute(
            sql.SQL(
                "CREATE INDEX IF NOT EXISTS {name} ON {s}.chunks USING hnsw "
                "((embedding::vector({dim})) vector_cosine_ops) WHERE collection = {c}"
            ).format(
                name=sql.Identifier(hnsw_index_name(self.collection)),
                s=self.s,
                dim=sql.Literal(dim),
                c=sql.Literal(self.collection),
            )
        )

    def count(self) -> int:
        with self.db.connection() as conn:
            row = conn.execute(
                sql.SQL("SELECT count(*) FROM {}.chunks WHERE collection=%s").format(self.s),
                (self.collection,),
            ).fetchone()
        return int(row[0]) if row else 0

    def query(
        self, embedding: np.ndarray, limit: int, where: Filter | None = None
    ) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity) best first from the HNSW index, among the chunks
        `where` matches: with a filter, pgvector's iterative scan keeps walking the graph
        until `limit` matching rows are found (not a top-k filtered afterwards)."""
        from pgvector import Vector

        vector = Vector(np.asarray(embedding, dtype=np.float32))
        cond, args = pg_where(where)
        with self.db.connection() as conn, conn.transaction():
            dim = self._dim(conn)
            if dim is None:
                return []
            # HNSW returns at most ef_search rows: widen it for deep candidate lists
            ef = sql.Literal(min(max(40, limit), 1000))
            conn.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(ef))
            if where:
                conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            rows = conn.execute(
                sql.SQL(
                    "SELECT id, 1 - (embedding::vector({dim}) <=> %s) AS sim FROM {s}.chunks "
                    "WHERE collection = {c} AND {cond} "
                    "ORDER BY embedding::vector({dim}) <=> %s LIMIT %s"
                ).format(dim=sql.Literal(dim), s=self.s, c=sql.Literal(self.collection), cond=cond),
                (vector, *args, vector, limit),
            ).fetchall()
        hits = [(cid, float(sim)) for cid, sim in rows]
        hits.sort(key=lambda h: -h[1])  # relaxed_order may return neighbours slightly out of order
        return hits

    def drop(self) -> None:
        """Remove the collection: its rows (sources and chunks cascade) and its HNSW index."""
        with self.db.connection() as conn, conn.transaction():
            conn.execute(
                sql.SQL("DROP INDEX IF EXISTS {}.{}").format(
                    self.s, sql.Identifier(hnsw_index_name(self.collection))
                )
            )
            conn.execute(
                sql.SQL("DELETE FROM {}.collections WHERE name=%s").format(self.s),
                (self.collection,),
            )

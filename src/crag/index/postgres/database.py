"""Connecting to PostgreSQL: one migration on open, then a small connection pool.

Why a pool: the server searches from request threads while its job worker writes, and psycopg
connections are not shared between threads mid-query. Every pooled connection has the pgvector
type registered, so embeddings travel as binary vectors, not text.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from crag.errors import CragError
from crag.redact import redact

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg.rows import TupleRow

__all__ = ["Database"]

log = logging.getLogger(__name__)


class Database:
    """A migrated schema and a pool of connections to it."""

    def __init__(self, url: str, schema: str, pool_size: int = 4) -> None:
        import psycopg
        from psycopg_pool import ConnectionPool

        from crag.index.postgres.schema import migrate

        self.url = url
        self.schema = schema
        try:
            with psycopg.connect(url, connect_timeout=10, autocommit=True) as conn:
                migrate(conn, schema)
        except psycopg.OperationalError as exc:
            raise CragError(
                f"PostgreSQL at {redact(url)} is not reachable: {redact(str(exc)).strip()}"
            ) from exc
        except psycopg.errors.InsufficientPrivilege as exc:
            raise CragError(
                f"PostgreSQL at {redact(url)}: {exc}; run `CREATE EXTENSION vector;` once as a "
                f"superuser and grant crag's user CREATE on the database"
            ) from exc
        self.pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True},
            configure=_configure,
            open=True,
            name=f"crag-{schema}",
        )
        self.pool.wait(timeout=30)

    def connection(self) -> AbstractContextManager[Connection[TupleRow]]:
        """A pooled connection (autocommit; use `conn.transaction()` for atomic work)."""
        return self.pool.connection(timeout=60)

    def close(self) -> None:
        self.pool.close()


def _configure(conn: Connection[TupleRow]) -> None:
    from pgvector.psycopg import register_vector

    register_vector(conn)

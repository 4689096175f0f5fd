"""Connecting to PostgreSQL: one migration on open, then a small connection pool.

Why a pool: the server searches from request threads while its job worker writes, and psycopg
connections are not shared between threads mid-query. Every pooled connection has the pgvector
type registered, so embeddings travel as binary vectors, not text.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING

from crag.errors import CragError
from crag.redact import redact

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg.rows import TupleRow

__all__ = ["LOCK", "TRY_LOCK", "UNLOCK", "Database"]

# Session-level advisory locks on a name (its hashtext is the lock's key): PostgreSQL drops
# them when their connection dies, which is what the writer lock and a replica's lease rely on.
LOCK = "SELECT pg_advisory_lock(hashtext(%s))"
TRY_LOCK = "SELECT pg_try_advisory_lock(hashtext(%s))"
UNLOCK = "SELECT pg_advisory_unlock(hashtext(%s))"

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

    @contextmanager
    def advisory_lock(
        self,
        key: str,
        busy: str,
        wait: float = 0.0,
        *,
        cancelled: Callable[[], bool] | None = None,
        on_wait: Callable[[], None] | None = None,
    ) -> Iterator[None]:
        """Hold a session-level advisory lock named `key` on a dedicated connection, waiting
        up to `wait` seconds; PostgreSQL releases it by itself if this process dies. `busy`
        ("another crag process is writing …") is the error when the wait runs out."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True, connect_timeout=10) as conn:
            give_up = time.monotonic() + wait
            waiting = False
            while not (conn.execute(TRY_LOCK, (key,)).fetchone() or (False,))[0]:
                if cancelled is not None and cancelled():
                    raise CragError("cancelled while waiting for the writer lock")
                if time.monotonic() >= give_up:
                    waited = f" (waited {wait:g} s)" if wait else ""
                    raise CragError(f"{busy}{waited}; wait for it to finish")
                if not waiting and on_wait is not None:
                    on_wait()
                waiting = True
                time.sleep(0.2)
            try:
                yield
            finally:
                conn.execute(UNLOCK, (key,))

    def collection_names(self) -> list[str]:
        """Every collection in this schema."""
        from psycopg import sql

        with self.connection() as conn:
            rows = conn.execute(
                sql.SQL("SELECT name FROM {}.collections ORDER BY name").format(
                    sql.Identifier(self.schema)
                )
            ).fetchall()
        return [r[0] for r in rows]

    def collection_counts(self) -> dict[str, tuple[int, int]]:
        """(chunks, sources) of every collection in this schema, from the running totals and
        the sources table: what `/v1/collections` shows without opening each collection."""
        from psycopg import sql

        with self.connection() as conn:
            rows = conn.execute(
                sql.SQL(
                    "SELECT c.name, c.chunks_total, (SELECT count(*) FROM {s}.sources s "
                    "WHERE s.collection = c.name) FROM {s}.collections c"
                ).format(s=sql.Identifier(self.schema))
            ).fetchall()
        return {name: (int(chunks), int(sources)) for name, chunks, sources in rows}

    def close(self) -> None:
        self.pool.close()


def _configure(conn: Connection[TupleRow]) -> None:
    from pgvector.psycopg import register_vector

    register_vector(conn)

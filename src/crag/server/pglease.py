"""A replica's lease in PostgreSQL: the connection whose advisory locks say it is alive and
which job it runs.

Why session-level advisory locks on one dedicated connection: PostgreSQL drops them when the
connection dies (`kill -9`, a lost machine), so "is that replica alive?" and "is anyone
running that job?" are answered by trying the lock, with no heartbeat to tune. The
connection is opened on first use and holds `crag-replica:<schema>:<replica>` for as long
as it lives; each claimed job adds `crag-job:<id>` until it is released.
"""

from __future__ import annotations

import logging
import shutil
import threading
from pathlib import Path
from typing import Any

from crag.index.postgres.database import LOCK, TRY_LOCK, UNLOCK

__all__ = ["Lease"]

log = logging.getLogger("crag.server")


class Lease:
    """One replica's lease connection (thread-safe)."""

    def __init__(self, url: str, schema: str, replica: str) -> None:
        self.url = url
        self.schema = schema
        self.replica = replica
        self._conn: Any = None
        self._lock = threading.Lock()

    def alive_key(self, replica: str) -> str:
        return f"crag-replica:{self.schema}:{replica}"

    def conn(self) -> Any:
        """The lease connection, opened (and this replica marked alive) on first use."""
        import psycopg

        with self._lock:
            if self._conn is None or self._conn.closed:
                self._conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
                self._conn.execute(LOCK, (self.alive_key(self.replica),))
            return self._conn

    def claim(self, job_id: str) -> bool:
        """Take the job's lock; False when another replica holds it (it is running it)."""
        got = self.conn().execute(TRY_LOCK, (f"crag-job:{job_id}",)).fetchone()
        return bool(got and got[0])

    def release(self, job_id: str) -> None:
        with self._lock:
            if self._conn is not None and not self._conn.closed:
                self._conn.execute(UNLOCK, (f"crag-job:{job_id}",))

    def sweep(self, base: Path) -> None:
        """Delete the `running-<replica>` folders under `base` of replicas that are gone: a
        replica's alive lock that this one can take belongs to a dead replica. Folders of live
        replicas sharing the spool (several on one host) are left alone."""
        try:
            lease = self.conn()
            for path in base.glob("running-*"):
                replica = path.name.removeprefix("running-")
                if replica == self.replica or not path.is_dir():
                    continue
                key = self.alive_key(replica)
                if (lease.execute(TRY_LOCK, (key,)).fetchone() or (False,))[0]:
                    shutil.rmtree(path, ignore_errors=True)
                    lease.execute(UNLOCK, (key,))
                    log.info("removed %s, left by a replica that stopped", path)
        except Exception:  # tidying up must never keep the worker from starting
            log.warning("could not check the spool for stopped replicas", exc_info=True)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

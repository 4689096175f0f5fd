"""Ingestion jobs in PostgreSQL: any replica accepts an upload, any replica runs it, and a job
outlives the replica that accepted (or was running) it.

How, on top of `JobRunner` (same jobs, same API, same ingest code):

- `submit` writes the job row and the uploaded bytes (`job_files`) in one transaction before
  the client hears 202, then deletes the local spool file: the bytes live in the database.
- Each replica's worker claims the oldest claimable job with `SELECT … FOR UPDATE SKIP LOCKED`
  and holds a session-level advisory lock on it (its *lease*) while it runs. PostgreSQL drops
  the lease when the replica's connection dies (`kill -9`, lost machine), so a job left
  `running` whose lease is free is claimed again by another replica and resumed (ingesting is
  idempotent: sources already written are unchanged and skipped).
- The claimer writes the job's files from the database into its own spool folder, runs it,
  then deletes the files and their bytes. Progress is saved every few seconds, so a status
  request answered by another replica shows it; a cancel request answered by another replica
  is recorded on the row and seen by the running one at its next file or batch.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from psycopg import sql

from crag.index.postgres.store import PgIndex
from crag.server.gate import Busy
from crag.server.job_disk import delete_uploads
from crag.server.jobs import Job, JobRunner
from crag.server.pgjob_files import delete_files, materialise, store_files
from crag.server.pglease import Lease

__all__ = ["PgJobRunner"]

log = logging.getLogger("crag.server")

_COLUMNS = "id, record, state, cancel"


class PgJobRunner(JobRunner):
    """The job queue of one collection, shared through the writer `PgIndex`'s database."""

    def __init__(self, index: PgIndex, *args: Any, poll_s: float = 0.5, **kwargs: Any) -> None:
        kwargs["jobs_dir"] = None  # jobs persist in the database, not in a local folder
        # JobRunner is typed to the embedded Index; PgIndex has its interface, not its class
        super().__init__(index, *args, **kwargs)  # type: ignore[arg-type]
        self.db = index.db
        self.collection = index.collection
        self.poll_s = poll_s
        self.replica = f"{uuid.uuid4().hex[:12]}"
        self.s = sql.Identifier(self.db.schema)
        # the connection whose advisory locks say this replica is alive and what it runs
        self._lease = Lease(self.db.url, self.db.schema, self.replica)
        self._saved_at = 0.0

    def _q(self, text: str) -> sql.Composed:
        return sql.SQL(text).format(s=self.s)

    # -- persistence ---------------------------------------------------------------------
    def _save(self, job: Job) -> None:
        record = json.dumps(job.record(), ensure_ascii=False)
        with self.db.connection() as conn:
            conn.execute(
                self._q(
                    "INSERT INTO {s}.jobs (id, collection, state, record) VALUES (%s, %s, %s, %s)"
                    " ON CONFLICT (id) DO UPDATE SET state=excluded.state, "
                    "record=excluded.record, updated=now()"
                ),
                (job.id, self.collection, job.state, record),
            )
        self._saved_at = time.monotonic()

    def _forget(self, job_id: str) -> None:
        with self.db.connection() as conn:
            conn.execute(self._q("DELETE FROM {s}.jobs WHERE id=%s"), (job_id,))

    def recover(self) -> list[Job]:
        """Nothing to resume here: unfinished jobs wait in the database for any replica.
        What a killed replica left in the spool (its `running-<id>` folder) is removed."""
        self.running_dir.mkdir(parents=True, exist_ok=True)
        self._sweep()
        return []

    def _sweep(self) -> None:
        """Delete the `running-<id>` folders of replicas that are gone (`Lease.sweep`)."""
        self._lease.sweep(self.running_dir.parent)

    @property
    def running_dir(self) -> Path:
        """Where this replica writes the files of the job it runs (copies of stored bytes;
        apart from the upload spool, which may be shared by replicas on one host)."""
        base = self.spool_dir if self.spool_dir is not None else Path(tempfile.gettempdir())
        return base / f"running-{self.replica}"

    def _load(self, row: tuple[Any, ...]) -> Job:
        _, record, state, cancel = row
        job = Job.from_record({**record, "state": state})
        job.cancel_reason = cancel or ""
        return job

    # -- submitting and reading ----------------------------------------------------------
    def queued(self) -> int:
        with self.db.connection() as conn:
            row = conn.execute(
                self._q("SELECT count(*) FROM {s}.jobs WHERE collection=%s AND state='queued'"),
                (self.collection,),
            ).fetchone()
        return int(row[0]) if row else 0

    def submit(self, job: Job) -> Job:
        """Store the job and its files' bytes in one transaction (before the 202)."""
        if self.queued() >= self.max_queued:
            raise Busy(
                f"busy: {self.max_queued} ingestion jobs already waiting "
                "(server.max_jobs); retry later",
                retry_after=30,
            )
        record = json.dumps(job.record(), ensure_ascii=False)
        with self.db.connection() as conn, conn.transaction():
            conn.execute(
                self._q(
                    "INSERT INTO {s}.jobs (id, collection, state, record) VALUES (%s, %s, %s, %s)"
                ),
                (job.id, self.collection, job.state, record),
            )
            store_files(conn, self._q, job)
        delete_uploads(job)  # the database holds the bytes now
        with self._lock:
            self._jobs[job.id] = job
            while len(self._jobs) > self.keep:
                self._jobs.popitem(last=False)
        return job

    def get(self, job_id: str) -> Job | None:
        """This replica's running job as it is now, any other from the database."""
        current = self.current
        if current is not None and current.id == job_id:
            return current
        with self.db.connection() as conn:
            row = conn.execute(
                self._q(f"SELECT {_COLUMNS} FROM {{s}}.jobs WHERE id=%s AND collection=%s"),
                (job_id, self.collection),
            ).fetchone()
        return None if row is None else self._load(row)

    def cancel(self, job_id: str, reason: str = "cancelled") -> Job | None:
        current = self.current
        if current is not None and current.id == job_id:
            current.cancel_reason = reason
            return current
        with self.db.connection() as conn, conn.transaction():
            row = conn.execute(
                self._q(f"SELECT {_COLUMNS} FROM {{s}}.jobs WHERE id=%s FOR UPDATE"), (job_id,)
            ).fetchone()
            if row is None:
                return None
            job = self._load(row)
            if job.state == "running":  # on another replica: it reads this at its next check
                conn.execute(self._q("UPDATE {s}.jobs SET cancel=%s WHERE id=%s"), (reason, job_id))
                job.cancel_reason = reason
            elif job.state == "queued":  # under the row lock, so no replica claims it now
                job.cancel_reason = reason
                job.state, job.error, job.finished = (
                    "failed",
                    f"{reason} before it ran",
                    time.time(),
                )
                conn.execute(
                    self._q("UPDATE {s}.jobs SET state=%s, record=%s, updated=now() WHERE id=%s"),
                    (job.state, json.dumps(job.record(), ensure_ascii=False), job_id),
                )
                delete_files(conn, self._q, job_id)
                job.done_event.set()
        return job

    def pending_removal(self, source: str) -> Job | None:
        with self.db.connection() as conn:
            row = conn.execute(
                self._q(
                    f"SELECT {_COLUMNS} FROM {{s}}.jobs WHERE collection=%s "
                    "AND state IN ('queued', 'running') AND record->>'kind' = 'remove' "
                    "AND record->>'source' = %s LIMIT 1"
                ),
                (self.collection, source),
            ).fetchone()
        return None if row is None else self._load(row)

    def forget_all(self) -> None:
        """Remove every job of this collection from the database (it is being deleted)."""
        super().forget_all()
        with self.db.connection() as conn:
            conn.execute(self._q("DELETE FROM {s}.jobs WHERE collection=%s"), (self.collection,))

    # -- the worker ----------------------------------------------------------------------
    def stop(self, timeout: float = 30.0) -> None:
        """Stop the worker; a running job is interrupted and queued again in the database,
        where another replica (or this one, restarted) resumes it."""
        self._stopping.set()
        if self.current is not None:
            self.current.cancel_reason = "stopping"
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout)
        self._lease.close()
        shutil.rmtree(self.running_dir, ignore_errors=True)

    def _loop(self) -> None:
        self._repair()
        while not self._stopping.is_set():
            try:
                job = self._claim()
            except Exception:
                log.exception("claiming a job failed; retrying")
                job = None
            if job is None:
                self._stopping.wait(self.poll_s)
                continue
            try:
                self._execute(job)
            finally:
                self._release(job.id)

    def _claim(self) -> Job | None:
        """The oldest queued job, or a running one whose replica died (its lease is free)."""
        self._lease.conn()  # this replica is marked alive before it claims anything
        with self.db.connection() as conn, conn.transaction():
            rows = conn.execute(
                self._q(
                    f"SELECT {_COLUMNS} FROM {{s}}.jobs WHERE collection=%s "
                    "AND state IN ('queued', 'running') ORDER BY created "
                    "FOR UPDATE SKIP LOCKED LIMIT 16"
                ),
                (self.collection,),
            ).fetchall()
            for row in rows:
                if not self._lease.claim(row[0]):
                    continue  # another replica is running it
                job = self._load(row)
                if job.state == "running":
                    job.note = "resumed: the replica that was running it stopped"
                    log.warning("job %s: resumed after its replica stopped", job.id)
                    self._sweep()  # its spool folder, if it shared ours
                job.state = "queued"
                conn.execute(
                    self._q("UPDATE {s}.jobs SET claimed_by=%s, attempts=attempts+1 WHERE id=%s"),
                    (self.replica, job.id),
                )
                materialise(conn, self._q, job, self.running_dir)
                with self._lock:
                    self._jobs[job.id] = job
                return job
        return None

    def _release(self, job_id: str) -> None:
        self._lease.release(job_id)

    def _checker(self, job: Job) -> Callable[[], None]:
        """The base checks, plus: save progress and read a cancel sent to another replica,
        every few seconds."""
        check = super()._checker(job)

        def shared_check() -> None:
            if time.monotonic() - self._saved_at > 2.0:
                with self.db.connection() as conn:
                    row = conn.execute(
                        self._q("SELECT cancel FROM {s}.jobs WHERE id=%s"), (job.id,)
                    ).fetchone()
                if row and row[0] and not job.cancel_reason:
                    job.cancel_reason = row[0]
                self._save(job)
            check()

        return shared_check

    # the base's _cleanup is a staticmethod; this one needs self.db for the stored bytes
    def _cleanup(self, job: Job) -> None:  # type: ignore[override]
        """Delete the local copies and the stored bytes of a finished job."""
        delete_uploads(job)
        with self.db.connection() as conn:
            delete_files(conn, self._q, job.id)

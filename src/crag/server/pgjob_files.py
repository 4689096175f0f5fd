"""The bytes of a PostgreSQL job's uploaded files, kept in `job_files` until the job ends.

`submit` stores them in the transaction that writes the job row (before the client hears
202); the replica that claims the job writes them into its own spool folder
(`materialise`), and they are deleted when the job ends (`delete_files`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from psycopg import sql

from crag.server.job import Job, Upload

__all__ = ["delete_files", "materialise", "store_files"]

# The runner's statement builder (`PgJobRunner._q`): `{s}` in the text becomes its schema.
Query = Callable[[str], sql.Composed]


def store_files(conn: Any, q: Query, job: Job) -> None:
    """Insert the bytes of each of `job`'s uploads, by position (within the caller's
    transaction)."""
    files = [(job.id, i, u.path.name, u.path.read_bytes()) for i, u in enumerate(job.uploads)]
    with conn.cursor() as cur:
        cur.executemany(q("INSERT INTO {s}.job_files VALUES (%s, %s, %s, %s)"), files)


def materialise(conn: Any, q: Query, job: Job, folder: Path) -> None:
    """Write `job`'s stored bytes into `folder` and point its uploads at those files."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = conn.execute(
        q("SELECT position, name, data FROM {s}.job_files WHERE job_id=%s"), (job.id,)
    ).fetchall()
    data = {position: (name, bytes(blob)) for position, name, blob in rows}
    uploads = []
    for i, upload in enumerate(job.uploads):
        name, blob = data.get(i, (upload.path.name, None))
        path = folder / f"{job.id}-{i}-{name}"
        if blob is not None:
            path.write_bytes(blob)
        uploads.append(Upload(upload.source, path, upload.original))
    job.uploads = uploads


def delete_files(conn: Any, q: Query, job_id: str) -> None:
    """Delete the stored bytes of a job that ended (done, failed or cancelled)."""
    conn.execute(q("DELETE FROM {s}.job_files WHERE job_id=%s"), (job_id,))

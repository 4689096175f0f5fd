"""Jobs on disk: one JSON record per job under `jobs_dir`, and the spooled uploads they need.

Kept apart from the runner (`crag.server.jobs`) because it is the part that must survive a
crash: a record is written to a temporary file and renamed over the old one, so a reader sees
the previous state or the new one, never half of either; a `.tmp` left by a cut-short write is
discarded at start-up, and an unreadable record is removed with a warning rather than stopping
the server (the job it held is reported lost in the log).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterable
from pathlib import Path

from crag.server.job import Job

__all__ = [
    "delete_uploads",
    "read_jobs",
    "recover_jobs",
    "remove_job",
    "remove_orphans",
    "resume_on_start",
    "write_job",
]

log = logging.getLogger("crag.server")


def write_job(jobs_dir: Path, job: Job) -> None:
    """Persist `job`'s record atomically (write, then rename)."""
    path = jobs_dir / f"{job.id}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(job.record(), ensure_ascii=False))
    os.replace(tmp, path)


def remove_job(jobs_dir: Path, job_id: str) -> None:
    (jobs_dir / f"{job_id}.json").unlink(missing_ok=True)


def read_jobs(jobs_dir: Path) -> list[Job]:
    """Every readable job record, oldest first; cut-short writes and unreadable records are
    removed."""
    for path in jobs_dir.glob("*.tmp"):
        path.unlink(missing_ok=True)  # a write cut short; the .json before it stands
    jobs = []
    for path in jobs_dir.glob("*.json"):
        try:
            jobs.append(Job.from_record(json.loads(path.read_text())))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("unreadable job file %s (%s); removed", path.name, exc)
            path.unlink(missing_ok=True)
    return sorted(jobs, key=lambda j: j.created)


def remove_orphans(spool_dir: Path, needed: Iterable[Path]) -> int:
    """Delete the files of `spool_dir` that no job still needs; returns how many."""
    if not spool_dir.is_dir():
        return 0
    keep = {p.resolve() for p in needed}
    removed = 0
    for path in spool_dir.iterdir():
        if path.is_file() and path.resolve() not in keep:
            path.unlink(missing_ok=True)
            removed += 1
    if removed:
        log.info("removed %d orphaned upload files from %s", removed, spool_dir)
    return removed


def resume_on_start(job: Job) -> bool:
    """A job found queued or running at start-up: queued again (True) when its spooled files
    are all still there (ingesting is idempotent), else failed with the reason (False)."""
    lost = [u.source for u in job.uploads if not u.path.exists()]
    if lost:
        was = job.state
        job.state, job.finished = "failed", time.time()
        job.error = (
            f"the server stopped while this job was {was}, and its uploaded files are gone "
            f"({', '.join(lost)}); upload again"
        )
        job.done_event.set()
        return False
    job.state, job.started = "queued", None
    job.note = "resumed after a server restart"
    return True


def delete_uploads(job: Job) -> None:
    """Delete the spooled files of a job that ended (or cannot resume)."""
    for upload in job.uploads:
        upload.path.unlink(missing_ok=True)


def recover_jobs(jobs_dir: Path, keep: int) -> tuple[list[Job], list[Job]]:
    """The jobs persisted in `jobs_dir` (oldest first) and those of them queued again.

    A job found queued or running is queued again when its files are all there, else failed
    with the reason and its files deleted (`resume_on_start`); either way its record is
    written back. Of the finished jobs, the newest `keep` are kept: older records are deleted."""
    jobs = read_jobs(jobs_dir)
    resumed: list[Job] = []
    for job in jobs:
        if job.state in ("queued", "running"):
            if resume_on_start(job):
                resumed.append(job)
            else:
                delete_uploads(job)
            write_job(jobs_dir, job)
    finished = [j for j in jobs if j.state in ("done", "failed")]
    dropped = {j.id for j in finished[: max(0, len(finished) - keep)]}
    for job_id in dropped:
        remove_job(jobs_dir, job_id)
    return [j for j in jobs if j.id not in dropped], resumed

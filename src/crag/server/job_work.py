"""What one ingestion job does once the runner (`crag.server.jobs`) starts it: remove a
source, ingest uploaded files, or fetch and ingest URLs — under the writer lock, which it
waits for (showing why on the job) rather than failing while a `crag ingest` holds it.

Kept apart from the runner so the queue's bookkeeping (states, persistence, stopping) and the
index writes it orders stay readable on their own; both backends' runners call `do_job`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from crag.config import IngestSettings, WebSettings
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor
from crag.server.job import Job, JobCancelled

__all__ = ["do_job", "job_checker", "repair_after_stop", "repair_at_start"]

log = logging.getLogger("crag.server")


def job_checker(job: Job, timeout_s: float) -> Callable[[], None]:
    """The check a job's progress makes at each file and embedding batch: raise
    `JobCancelled` once it was cancelled or ran past `timeout_s`."""
    deadline = time.monotonic() + timeout_s

    def check() -> None:
        if job.cancel_reason:
            done = job.progress.n_files_done
            raise JobCancelled(
                f"{job.cancel_reason} after {done} of {len(job.uploads) or 1} files "
                "(files finished before stay indexed)"
            )
        if time.monotonic() > deadline:
            raise JobCancelled(
                f"stopped: over the time limit of {timeout_s:g} s "
                "(server.job_timeout_s); files finished before stay indexed"
            )

    return check


def repair_at_start(
    index: Index, lock_wait_s: float, stopping: Callable[[], bool], note: Callable[[str], None]
) -> bool:
    """Bring the stores back in step before any job (what a crash left), telling `note` what
    it is doing (the runner's `repair_note`, shown by `/readyz`). False when it failed."""
    note("waiting for the writer lock to check the index")
    try:
        with index.write_lock(lock_wait_s, cancelled=stopping):
            note("repairing the index")
            done = index.reconcile()
        for line in done:
            log.warning("start-up repair: %s", line)
        note("repaired: " + "; ".join(done) if done else "consistent")
    except Exception as exc:
        log.exception("start-up repair failed")
        note(f"repair failed: {exc}")
        return False
    return True


def repair_after_stop(index: Index, lock_wait_s: float) -> None:
    """After a job stopped part-way: repair what it left half-written (or let the next write
    do it, if the writer lock stays busy)."""
    try:
        with index.write_lock(lock_wait_s):
            index.repair()
    except Exception:
        log.exception("repair after a stopped job failed; the next write repairs it")


def do_job(
    job: Job, index: Index, settings: IngestSettings, web: WebSettings, lock_wait_s: float
) -> None:
    """Run `job` against the writer `index`, recording its report (or error) on it. Raises
    `JobCancelled` from `job.progress.check` when it is cancelled or over its time limit."""

    def waiting() -> None:
        job.note = "waiting for the writer lock (another crag process is writing)"

    cancelled = lambda: bool(job.cancel_reason)  # noqa: E731
    if job.kind == "remove":
        with index.write_lock(lock_wait_s, cancelled=cancelled, on_wait=waiting):
            job.note = ""
            index.repair()
            job.removed_chunks = index.remove(job.remove_source)
        return
    ingestor = Ingestor(
        index,
        settings,
        lock_wait=lock_wait_s,
        cancelled=cancelled,
        on_lock_wait=waiting,
        tags=job.tags,
    )
    if job.urls:
        from crag.ingest.urls import UrlOptions, ingest_urls

        options = UrlOptions(**job.url_options)
        report = ingest_urls(ingestor, job.urls, web, options, job.progress)
    else:
        report = ingestor.ingest_as(
            [(u.source, u.path) for u in job.uploads], progress=job.progress
        )
    job.report = report
    if report.failed and not (report.added or report.updated or report.unchanged):
        job.error = "no file could be ingested: " + "; ".join(
            f"{source}: {why}" for source, why in report.failed
        )

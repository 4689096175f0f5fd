"""What one ingestion job does once the runner (`crag.server.jobs`) starts it: remove a
source, ingest uploaded files, or fetch and ingest URLs — under the writer lock, which it
waits for (showing why on the job) rather than failing while a `crag ingest` holds it.

Kept apart from the runner so the queue's bookkeeping (states, persistence, stopping) and the
index writes it orders stay readable on their own; both backends' runners call `do_job`.
"""

from __future__ import annotations

from crag.config import IngestSettings, WebSettings
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor
from crag.server.job import Job

__all__ = ["do_job"]


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

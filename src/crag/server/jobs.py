"""Ingestion jobs: uploads and removals written by one background thread, in order.

Why one thread: the index has one writer at a time (`Index.write_lock`), so writes are queued
here rather than contending; questions keep being answered meanwhile. The writer uses its own
`Index` (its own SQLite connection) so readers never see a write half-way: SQLite's WAL gives
each query the last committed state, and Chroma results whose chunks the catalog does not have
yet are dropped by the retriever.

Jobs live in memory: a restarted server forgets them (the index itself is durable, and an
interrupted write is repaired by the next one). Each job's spooled upload files are deleted
when it ends.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from crag.config import IngestSettings
from crag.errors import CragError
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor, IngestReport
from crag.server.gate import Busy

__all__ = ["Job", "JobRunner", "Upload"]

log = logging.getLogger("crag.server")

State = Literal["queued", "running", "done", "failed"]


@dataclass(frozen=True, slots=True)
class Upload:
    """One file to ingest: `source` is the name it is indexed and cited under, `path` where the
    server spooled it (a name the server chose), `original` the client's file name as sent."""

    source: str
    path: Path
    original: str


class JobProgress:
    """Counts what the ingestor reports as it goes (an `IngestProgress`)."""

    def __init__(self) -> None:
        self.n_files = self.n_files_done = self.n_chunks = self.n_chunks_done = 0

    def files(self, total: int) -> None:
        self.n_files = total

    def file_done(self, path: str, status: str) -> None:
        self.n_files_done += 1

    def chunks_planned(self, n: int) -> None:
        self.n_chunks += n

    def chunks_done(self, n: int) -> None:
        self.n_chunks_done += n


@dataclass(slots=True)
class Job:
    """One unit of index writing, with progress the API reports while it runs."""

    id: str
    kind: Literal["ingest", "remove"]
    uploads: list[Upload] = field(default_factory=list)
    remove_source: str = ""
    state: State = "queued"
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    progress: JobProgress = field(default_factory=lambda: JobProgress())
    report: IngestReport | None = None
    removed_chunks: int = 0
    error: str = ""
    done_event: threading.Event = field(default_factory=threading.Event)

    def to_dict(self) -> dict[str, Any]:
        p = self.progress
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "state": self.state,
            "created": self.created,
            "started": self.started,
            "finished": self.finished,
            "progress": {
                "files_done": p.n_files_done,
                "files_total": p.n_files or len(self.uploads),
                "chunks_done": p.n_chunks_done,
                "chunks_total": p.n_chunks,
            },
        }
        if self.kind == "ingest":
            out["files"] = [{"source": u.source, "filename": u.original} for u in self.uploads]
        else:
            out["source"] = self.remove_source
            out["removed_chunks"] = self.removed_chunks
        if self.report is not None:
            r = self.report
            out["result"] = {
                "added": r.added,
                "updated": r.updated,
                "unchanged": r.unchanged,
                "failed": [{"source": s, "reason": why} for s, why in r.failed],
                "warnings": r.warnings,
                "chunks": r.chunks,
                "embedded": r.embedded,
                "seconds": round(r.seconds, 3),
            }
        if self.error:
            out["error"] = self.error
        return out


class JobRunner:
    """A queue of jobs and the one thread that runs them against the writer `Index`."""

    def __init__(
        self, index: Index, settings: IngestSettings, *, max_queued: int = 16, keep: int = 200
    ) -> None:
        self.index = index
        self.settings = settings
        self.max_queued = max_queued
        self.keep = keep
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.current: Job | None = None

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="crag-ingest", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Let the running job finish (bounded wait); jobs still queued are dropped, their
        spooled files deleted, and they report that the server stopped."""
        self._stopping.set()
        self._queue.put(None)  # wake the worker if it is idle
        if self._thread is not None:
            self._thread.join(timeout)
        else:
            self._drop_queued()

    # -- submitting and reading ----------------------------------------------------------
    def queued(self) -> int:
        return sum(1 for j in self._jobs.values() if j.state == "queued")

    def submit(self, job: Job) -> Job:
        with self._lock:
            if self.queued() >= self.max_queued:
                raise Busy(
                    f"busy: {self.max_queued} ingestion jobs already waiting "
                    "(server.max_jobs); retry later",
                    retry_after=30,
                )
            self._jobs[job.id] = job
            while len(self._jobs) > self.keep:
                oldest = next(iter(self._jobs.values()))
                if oldest.state in ("queued", "running"):
                    break
                self._jobs.popitem(last=False)
        self._queue.put(job)
        return job

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id)

    @staticmethod
    def new_id() -> str:
        return uuid.uuid4().hex

    def pending_removal(self, source: str) -> Job | None:
        for job in self._jobs.values():
            if job.kind == "remove" and job.remove_source == source and not job.finished:
                return job
        return None

    # -- the worker ----------------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                if self._stopping.is_set():
                    self._drop_queued()
                    return
                continue
            if self._stopping.is_set():
                self._drop(job)
                continue
            self.current = job
            job.state = "running"
            job.started = time.time()
            try:
                self._run(job)
            except CragError as exc:  # e.g. another process holds the write lock
                job.error = str(exc)
            except Exception:  # reported on the job; the worker keeps going
                log.exception("ingestion job %s failed", job.id)
                job.error = "internal error; see the server log"
            finally:
                job.state = "failed" if job.error else "done"
                job.finished = time.time()
                self.current = None
                self._cleanup(job)
                job.done_event.set()

    def _run(self, job: Job) -> None:
        if job.kind == "remove":
            with self.index.write_lock():
                self.index.repair()
                job.removed_chunks = self.index.remove(job.remove_source)
            return
        ingestor = Ingestor(self.index, self.settings)
        report = ingestor.ingest_as(
            [(u.source, u.path) for u in job.uploads], progress=job.progress
        )
        job.report = report
        if report.failed and not (report.added or report.updated or report.unchanged):
            job.error = "no file could be ingested: " + "; ".join(
                f"{source}: {why}" for source, why in report.failed
            )

    def _drop_queued(self) -> None:
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                return
            if job is not None:
                self._drop(job)

    def _drop(self, job: Job) -> None:
        job.error = "the server stopped before this job ran; upload again"
        job.state = "failed"
        job.finished = time.time()
        self._cleanup(job)
        job.done_event.set()

    @staticmethod
    def _cleanup(job: Job) -> None:
        for upload in job.uploads:
            upload.path.unlink(missing_ok=True)

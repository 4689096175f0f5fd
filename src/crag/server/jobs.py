"""Ingestion jobs: uploads and removals written by one background thread, in order.

Why one thread: the index has one writer at a time (`Index.write_lock`), so writes are queued
here rather than contending; questions keep being answered meanwhile. The writer uses its own
`Index` (its own SQLite connection) so readers never see a write half-way: SQLite's WAL gives
each query the last committed state, and Chroma results whose chunks the catalog does not have
yet are dropped by the retriever.

No accepted job is lost silently (issue 21, F5/F6):

- Each job is a JSON file under `jobs_dir`, written before the client gets its 202 and on
  every change of state. At start-up (`recover`) a job that was queued or running is queued
  again when its spooled files are still there (ingesting is idempotent: unchanged files are
  skipped, a half-written source is repaired), and ends failed with the reason otherwise.
  Finished jobs stay readable after a restart (the newest `keep`).
- Spooled files are deleted when their job ends (done, failed, cancelled) and, at start-up,
  every file in the spool folder that no resumed job needs.
- Before the first job, the worker brings the stores back in step (`Index.reconcile`: the
  catalog, its keyword index and the vectors hold the same chunks); `ready` is set only then,
  and `/readyz` waits for it.
- A job waits for the writer lock (a `crag ingest` holding it) up to `lock_wait_s` instead of
  failing at once; it runs at most `job_timeout_s`, and `cancel` stops it (queued: at once;
  running: at the next file or embedding batch), after which the stores are repaired.
"""

from __future__ import annotations

import logging
import queue
import shutil
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from crag.config import IngestSettings, WebSettings
from crag.errors import CragError
from crag.index.store import Index
from crag.server.gate import Busy
from crag.server.job import Job, JobCancelled, Upload
from crag.server.job_disk import delete_uploads, recover_jobs, remove_job, remove_orphans, write_job
from crag.server.job_work import do_job, job_checker, repair_after_stop, repair_at_start

__all__ = ["Job", "JobCancelled", "JobRunner", "Upload"]

log = logging.getLogger("crag.server")


class JobRunner:
    """A queue of jobs and the one thread that runs them against the writer `Index`."""

    def __init__(
        self,
        index: Index,
        settings: IngestSettings,
        *,
        max_queued: int = 16,
        keep: int = 200,
        jobs_dir: Path | None = None,
        spool_dir: Path | None = None,
        job_timeout_s: float = 3600.0,
        lock_wait_s: float = 900.0,
        web: WebSettings | None = None,
    ) -> None:
        self.index = index
        self.settings = settings
        self.web = web or WebSettings()  # how URL jobs fetch (SSRF rules, size, user agent)
        self.max_queued = max_queued
        self.keep = keep
        self.jobs_dir = jobs_dir
        self.spool_dir = spool_dir
        self.job_timeout_s = job_timeout_s
        self.lock_wait_s = lock_wait_s
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.current: Job | None = None
        self.ready = threading.Event()  # set once the stores were found (or made) consistent
        self.repair_note = "not started"
        if jobs_dir is not None:
            jobs_dir.mkdir(parents=True, exist_ok=True)

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        """Recover persisted jobs and spool files, then start the worker (which repairs the
        stores before the first job)."""
        self.recover()
        self._thread = threading.Thread(target=self._loop, name="crag-ingest", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the worker. With a `jobs_dir`, the running job is interrupted and, like every
        queued job, stays queued on disk (resumed at the next start, its files kept); without
        one, queued jobs are dropped, their spooled files deleted, and they report that the
        server stopped."""
        self._stopping.set()
        if self.jobs_dir is not None and self.current is not None:
            self.current.cancel_reason = "stopping"
        self._queue.put(None)  # wake the worker if it is idle
        if self._thread is not None:
            self._thread.join(timeout)
        else:
            self._drop_queued()

    def forget_all(self) -> None:
        """Remove every job record of this collection, which is being deleted (after `stop`):
        a collection made again under its name starts with no jobs of the old one."""
        with self._lock:
            self._jobs.clear()
        if self.jobs_dir is not None:
            shutil.rmtree(self.jobs_dir, ignore_errors=True)

    # -- persistence ---------------------------------------------------------------------
    def _save(self, job: Job) -> None:
        if self.jobs_dir is not None:
            write_job(self.jobs_dir, job)

    def _forget(self, job_id: str) -> None:
        if self.jobs_dir is not None:
            remove_job(self.jobs_dir, job_id)

    def recover(self) -> list[Job]:
        """Load persisted jobs: unfinished ones are queued again (or failed with the reason
        when their files are gone), finished ones kept for status; then delete spool files no
        queued job needs. Returns the jobs queued again."""
        resumed: list[Job] = []
        if self.jobs_dir is not None:
            jobs, resumed = recover_jobs(self.jobs_dir, self.keep)
            self._jobs.update((job.id, job) for job in jobs)
            for job in resumed:
                self._queue.put(job)
        if self.spool_dir is not None:
            remove_orphans(self.spool_dir, [u.path for j in resumed for u in j.uploads])
        if resumed:
            log.info("resumed %d ingestion jobs after a restart", len(resumed))
        return resumed

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
            self._save(job)  # before the client hears 202: a crash now resumes it
            self._jobs[job.id] = job
            while len(self._jobs) > self.keep:
                oldest = next(iter(self._jobs.values()))
                if oldest.state in ("queued", "running"):
                    break
                self._jobs.popitem(last=False)
                self._forget(oldest.id)
        self._queue.put(job)
        return job

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id)

    def cancel(self, job_id: str, reason: str = "cancelled") -> Job | None:
        """Stop a job: a queued one ends now, a running one at its next file or embedding
        batch (then the stores are repaired). None when there is no such job."""
        job = self._jobs.get(job_id)
        if job is None or job.state in ("done", "failed"):
            return job
        with self._lock:
            job.cancel_reason = reason
            if job.state == "queued":
                self._finish(job, f"{reason} before it ran")
        return job

    @staticmethod
    def new_id() -> str:
        return uuid.uuid4().hex

    def pending_removal(self, source: str) -> Job | None:
        for job in self._jobs.values():
            if job.kind == "remove" and job.remove_source == source and not job.finished:
                return job
        return None

    # -- the worker ----------------------------------------------------------------------
    def _repair(self) -> None:
        """Bring the stores back in step before any job; `ready` is set only then."""
        if repair_at_start(self.index, self.lock_wait_s, self._stopping.is_set, self._noted):
            self.ready.set()

    def _noted(self, note: str) -> None:
        self.repair_note = note

    def _loop(self) -> None:
        self._repair()
        while True:
            job = self._queue.get()
            if job is None:
                if self._stopping.is_set():
                    self._drop_queued()
                    return
                continue
            if job.state != "queued":  # cancelled while it waited
                continue
            if self._stopping.is_set():
                self._drop(job)
                continue
            self._execute(job)

    def _execute(self, job: Job) -> None:
        """Run one job to its end: done, failed, or (server stopping) queued again."""
        self.current = job
        job.state = "running"
        job.started = time.time()
        job.note = ""
        self._save(job)
        try:
            self._run(job)
        except JobCancelled as exc:
            if job.cancel_reason == "stopping":
                self._requeue_on_disk(job)
                self.current = None
                return
            job.error = str(exc)
            self._repair_after_stop()
        except CragError as exc:  # e.g. the writer lock stayed busy past lock_wait_s
            job.error = str(exc)
        except Exception:  # reported on the job; the worker keeps going
            log.exception("ingestion job %s failed", job.id)
            job.error = "internal error; see the server log"
        self.current = None
        self._finish(job, job.error)

    def _finish(self, job: Job, error: str) -> None:
        job.error = error
        job.note = ""
        job.state = "failed" if error else "done"
        job.finished = time.time()
        self._cleanup(job)
        self._save(job)
        job.done_event.set()

    def _requeue_on_disk(self, job: Job) -> None:
        """The server is stopping: leave the job queued on disk, resumed at the next start."""
        job.state, job.started = "queued", None
        job.note = "interrupted by a server stop; resumes when the server starts again"
        self._save(job)
        self._repair_after_stop()

    def _repair_after_stop(self) -> None:
        repair_after_stop(self.index, self.lock_wait_s)

    def _checker(self, job: Job) -> Callable[[], None]:
        return job_checker(job, self.job_timeout_s)

    def _run(self, job: Job) -> None:
        job.progress.check = self._checker(job)
        do_job(job, self.index, self.settings, self.web, self.lock_wait_s)

    def _drop_queued(self) -> None:
        while True:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                return
            if job is not None and job.state == "queued":
                self._drop(job)

    def _drop(self, job: Job) -> None:
        if self.jobs_dir is not None:  # persisted: it resumes at the next start
            job.note = "the server stopped before this job ran; it resumes when it starts again"
            return
        job.error = "the server stopped before this job ran; upload again"
        job.state = "failed"
        job.finished = time.time()
        self._cleanup(job)
        job.done_event.set()

    @staticmethod
    def _cleanup(job: Job) -> None:
        delete_uploads(job)

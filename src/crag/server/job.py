"""An ingestion job's record: what was asked (uploads, URLs, a removal), its state and
progress, and the JSON form it is persisted in (`crag.server.jobs` runs them)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from crag.errors import CragError
from crag.ingest.report import IngestReport

__all__ = ["Job", "JobCancelled", "JobProgress", "State", "Upload"]

State = Literal["queued", "running", "done", "failed"]


class JobCancelled(CragError):
    """Raised inside a running job when it was cancelled or ran out of time."""


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
        self.check: Callable[[], None] = lambda: None  # raises JobCancelled to stop the job

    def files(self, total: int) -> None:
        self.n_files = total
        self.check()

    def file_started(self, path: str, size: int) -> None:
        self.check()

    def file_done(self, path: str, status: str) -> None:
        self.n_files_done += 1
        self.check()

    def chunks_planned(self, n: int) -> None:
        self.n_chunks += n
        self.check()

    def chunks_done(self, n: int) -> None:
        self.n_chunks_done += n
        self.check()


@dataclass(slots=True)
class Job:
    """One unit of index writing, with progress the API reports while it runs."""

    id: str
    kind: Literal["ingest", "remove"]
    uploads: list[Upload] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)  # web pages to fetch (POST .../urls)
    url_options: dict[str, Any] = field(default_factory=dict)  # crag.ingest.urls.UrlOptions
    tags: dict[str, Any] = field(default_factory=dict)  # metadata for every chunk
    remove_source: str = ""
    state: State = "queued"
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    progress: JobProgress = field(default_factory=lambda: JobProgress())
    report: IngestReport | None = None
    removed_chunks: int = 0
    error: str = ""
    note: str = ""  # what a queued or running job is waiting for
    done_event: threading.Event = field(default_factory=threading.Event)
    cancel_reason: str = ""  # set to stop the job

    def record(self) -> dict[str, Any]:
        """What is persisted: enough to resume the job or to report how it ended. The API
        shows a running job's note in `error`; the record keeps them apart, or a job resumed
        twice would read its note back as an error and end failed with every file indexed
        (found by bench/crash.py: "resumed after a server restart")."""
        out = self.to_dict()
        out["error"], out["note"] = self.error, self.note
        out["uploads"] = [
            {"source": u.source, "path": str(u.path), "original": u.original} for u in self.uploads
        ]
        out.update(urls=self.urls, url_options=self.url_options, tags=self.tags)
        return out

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Job:
        error, note = data.get("error") or "", data.get("note")
        if note is None and data["state"] in ("queued", "running"):
            note, error = error, ""  # written before notes were kept apart: it was a note
        job = cls(
            id=str(data["id"]),
            kind=data["kind"],
            uploads=[
                Upload(u["source"], Path(u["path"]), u.get("original", ""))
                for u in data.get("uploads", [])
            ],
            urls=list(data.get("urls") or []),
            url_options=dict(data.get("url_options") or {}),
            tags=dict(data.get("tags") or {}),
            remove_source=data.get("source") or "",
            state=data["state"],
            created=data.get("created") or time.time(),
            started=data.get("started"),
            finished=data.get("finished"),
            removed_chunks=data.get("removed_chunks") or 0,
            error=error,
            note=note or "",
        )
        p = data.get("progress") or {}
        job.progress.n_files = p.get("files_total", 0)
        job.progress.n_files_done = p.get("files_done", 0)
        job.progress.n_chunks = p.get("chunks_total", 0)
        job.progress.n_chunks_done = p.get("chunks_done", 0)
        if r := data.get("result"):
            job.report = IngestReport(
                added=r.get("added", []),
                updated=r.get("updated", []),
                unchanged=r.get("unchanged", []),
                failed=[(f["source"], f["reason"]) for f in r.get("failed", [])],
                warnings=r.get("warnings", []),
                chunks=r.get("chunks", 0),
                embedded=r.get("embedded", 0),
                seconds=r.get("seconds", 0.0),
            )
        if job.state in ("done", "failed"):
            job.done_event.set()
        return job

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
                "files_total": p.n_files or len(self.uploads) or len(self.urls),
                "chunks_done": p.n_chunks_done,
                "chunks_total": p.n_chunks,
            },
        }
        if self.kind == "ingest":
            out["files"] = [{"source": u.source, "filename": u.original} for u in self.uploads]
            out["files"] += [{"source": url, "filename": url} for url in self.urls]
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
        elif self.note and self.state in ("queued", "running"):
            out["error"] = self.note  # JobOut has no other free-text field; `state` says it runs
        return out

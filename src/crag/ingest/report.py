"""What an ingestion tells its caller: progress as it goes (`IngestProgress`), and at the end
what happened to each file (`IngestReport`).

Why apart from `crag.ingest.ingestor`: the CLI, the server's jobs, URL ingestion and `crag
eval` read these records without needing the ingestor's loading and writing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["IngestProgress", "IngestReport", "NoProgress"]


class IngestProgress(Protocol):
    """What an ingestion reports as it goes; an optional `file_started(path, size)` is called
    before each file is read and chunked."""

    def files(self, total: int) -> None: ...
    def file_done(self, path: str, status: str) -> None: ...
    def chunks_planned(self, n: int) -> None: ...
    def chunks_done(self, n: int) -> None: ...


class NoProgress:
    """The progress of a caller that watches none."""

    def files(self, total: int) -> None: ...
    def file_done(self, path: str, status: str) -> None: ...
    def chunks_planned(self, n: int) -> None: ...
    def chunks_done(self, n: int) -> None: ...


@dataclass(slots=True)
class IngestReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # files of a folder crag does not read, with why: a type it has no loader for, or a file
    # that is not a document of its kind (a man page alias, JSON that is not SQuAD)
    ignored: list[tuple[str, str]] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    chunks: int = 0
    embedded: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failed

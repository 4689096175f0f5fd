"""`Ingestor`: paths in, an up-to-date index out, with a report of what happened to each file.

- Folders are walked recursively (hidden entries skipped); files of unsupported types inside a
  folder are ignored, an unsupported file named explicitly is an error.
- A file whose SHA-256 matches the indexed one is skipped without being parsed.
- A file that cannot be loaded is reported with its path and reason; the rest continue, and
  what was indexed before stays as it was.
- Files are written in batches of about `batch_chunks` chunks, so many small files share one
  embedding call and one commit.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from crag.config import IngestSettings
from crag.errors import LoaderError, UnsupportedFileError
from crag.index.filters import Scalar
from crag.index.store import Index, PreparedSource
from crag.ingest.chunking import Chunker
from crag.ingest.loaders import is_walked, load_bytes
from crag.ingest.metadata import (
    Tags,
    layout_digest,
    source_metadata,
    tagged_digest,
    with_metadata,
)
from crag.ingest.report import IngestProgress, IngestReport, NoProgress

__all__ = ["Ingestor", "source_key"]


def source_key(path: str | Path) -> str:
    """How a file is named in the index: its absolute, resolved path (a URL: itself)."""
    if isinstance(path, str) and path.lower().startswith(("http://", "https://")):
        return path
    return str(Path(path).expanduser().resolve())


def _once(files: list[tuple[Path, bool]]) -> list[tuple[Path, str, str, bool]]:
    """Each file once under its index name (`source_key`), read through its own path rather
    than a link's where both were walked. Why: a folder may hold a file and a link to it
    (/usr/share/doc/base-files: FAQ -> README), or be named twice by different paths; both
    resolve to one name, and writing its chunks twice in one batch failed the whole ingest
    with Chroma's DuplicateIDError. With each: its shown name and whether a walk found it."""
    chosen: dict[str, Path] = {}
    named: set[str] = set()  # named on their own (not only found by a walk)
    for path, walked in files:
        key = source_key(path)
        if not walked:
            named.add(key)
        if key not in chosen or (chosen[key].is_symlink() and not path.is_symlink()):
            chosen[key] = path
    return [(path, key, str(path), key not in named) for key, path in chosen.items()]


UNSUPPORTED_TYPE = "a type crag does not read"


class Ingestor:
    """Loads, chunks and writes files into an `Index`."""

    def __init__(
        self,
        index: Index,
        settings: IngestSettings | None = None,
        chunker: Chunker | None = None,
        *,
        lock_wait: float = 0.0,
        cancelled: Callable[[], bool] | None = None,
        on_lock_wait: Callable[[], None] | None = None,
        tags: Mapping[str, Scalar] | None = None,
    ) -> None:
        """`lock_wait`: seconds to wait for the writer lock when another process holds it
        (`on_lock_wait` is told once; `cancelled()` ends the wait), instead of failing.
        `tags`: metadata given to every chunk of what this ingestor writes (`--tag k=v`)."""
        self.index = index
        self.tags: Tags = dict(tags or {})
        self.lock_wait = lock_wait
        self._cancelled = cancelled
        self._on_lock_wait = on_lock_wait
        self.settings = settings or IngestSettings()
        self.chunker = chunker or Chunker(self.settings.chunk_size, self.settings.chunk_overlap)

    def _expand(self, paths: Iterable[str | Path], report: IngestReport) -> list[tuple[Path, bool]]:
        """The files `paths` name, folders walked, each with whether a walk found it (files of
        other types in the folders are recorded in `report.ignored`)."""
        files: list[tuple[Path, bool]] = []
        for raw in paths:
            path = Path(raw).expanduser()
            if path.is_dir():
                for child in sorted(path.rglob("*")):
                    rel = child.relative_to(path).parts
                    if any(p.startswith(".") for p in rel) or not child.is_file():
                        continue
                    if is_walked(child):
                        files.append((child, True))
                    else:
                        report.ignored.append((str(child), UNSUPPORTED_TYPE))
            elif path.exists():
                files.append((path, False))
            else:
                report.failed.append((str(path), "no such file or folder"))
        return list(dict.fromkeys(files))

    def ingest(
        self,
        paths: Iterable[str | Path],
        progress: IngestProgress | None = None,
        *,
        walked: bool = False,
    ) -> IngestReport:
        """Ingest files and folders; each file is indexed under its resolved path. `walked`:
        the files named were found in a folder (`crag watch`'s events), so one that is not a
        document of its kind is ignored, as a folder walk ignores it, rather than failed."""

        def plan(report: IngestReport) -> list[tuple[Path, str, str, bool]]:
            found = self._expand(paths, report)
            return _once([(path, walked or by_walk) for path, by_walk in found])

        return self._ingest(plan, progress)

    def ingest_as(
        self, named: Iterable[tuple[str, str | Path]], progress: IngestProgress | None = None
    ) -> IngestReport:
        """Ingest files under names of the caller's choosing: `(source name, path)` pairs.

        Why: an uploaded file is stored under a name the server picks (never the client's), but
        it should be cited, listed and replaced by the name it was uploaded with. The name also
        picks the loader (by its suffix); reports and errors show the name, never the path.
        """
        items = [(Path(path), name, name, False) for name, path in named]
        return self._ingest(lambda report: items, progress)

    def _ingest(
        self,
        plan: Callable[[IngestReport], list[tuple[Path, str, str, bool]]],
        progress: IngestProgress | None,
    ) -> IngestReport:
        progress = progress or NoProgress()
        report = IngestReport()
        started = time.perf_counter()
        with self.index.write_lock(
            self.lock_wait, cancelled=self._cancelled, on_wait=self._on_lock_wait
        ):
            report.repaired = self.index.repair()
            files = plan(report)
            progress.files(len(files))
            buffer: list[PreparedSource] = []
            pending_chunks = 0
            started_file = getattr(progress, "file_started", None)
            for path, key, shown, walked in files:
                if started_file is not None:
                    with contextlib.suppress(OSError):  # _prepare reports it
                        started_file(shown, path.stat().st_size)
                prepared = self._prepare(path, key, shown, report, walked=walked)
                progress.file_done(shown, "prepared" if prepared else "skipped")
                if prepared is None:
                    continue
                progress.chunks_planned(len(prepared.chunks))
                buffer.append(prepared)
                pending_chunks += len(prepared.chunks)
                if pending_chunks >= self.settings.batch_chunks:
                    self._flush(buffer, report, progress)
                    buffer, pending_chunks = [], 0
            self._flush(buffer, report, progress)
        report.seconds = time.perf_counter() - started
        return report

    def _prepare(
        self, path: Path, key: str, shown: str, report: IngestReport, *, walked: bool = False
    ) -> PreparedSource | None:
        try:
            stat = path.stat()
            size = stat.st_size
            if size > self.settings.max_file_mb * 1e6:
                raise LoaderError(
                    shown,
                    f"file is {size / 1e6:.1f} MB, above ingest.max_file_mb="
                    f"{self.settings.max_file_mb:g}",
                )
            data = path.read_bytes()
        except LoaderError as exc:
            report.failed.append((shown, exc.reason))
            return None
        except OSError as exc:
            report.failed.append((shown, f"cannot read: {exc.strerror or exc}"))
            return None
        return self.prepare_bytes(
            data, key, shown, report, source_metadata(key, modified=stat.st_mtime), walked=walked
        )

    def prepare_bytes(
        self,
        data: bytes,
        key: str,
        shown: str,
        report: IngestReport,
        base: Mapping[str, object],
        *,
        load_as: str | None = None,
        url: str = "",
        walked: bool = False,
    ) -> PreparedSource | None:
        """Load, tag and chunk bytes already read (a file, a fetched page) as source `key`;
        None when unchanged or failed (recorded in `report`). `load_as` picks the loader by
        its suffix when `key` (a URL) has none; `url` is what citations link to. A file a
        folder walk found (`walked`) that is not a document of its kind (`UnsupportedFileError`:
        a man page that only points to another, JSON that is not SQuAD) is ignored, as files
        of other types are; named on its own, it is a failure."""
        try:
            digest = layout_digest(
                tagged_digest(hashlib.sha256(data).hexdigest(), self.tags), load_as or key
            )
            if not self.index.needs_update(key, digest):
                report.unchanged.append(key)
                return None
            loaded = load_bytes(
                Path(load_as or key),
                data,
                detect_encoding=self.settings.detect_encoding,
                max_bytes=int(self.settings.max_file_mb * 1e6),
                encoding=self.settings.encoding,
            )
        except UnsupportedFileError as exc:
            (report.ignored if walked else report.failed).append((shown, exc.reason))
            return None
        except LoaderError as exc:
            report.failed.append((shown, exc.reason))
            return None
        except OSError as exc:
            report.failed.append((shown, f"cannot read: {exc.strerror or exc}"))
            return None
        report.warnings.extend(loaded.warnings)
        docs = loaded.documents
        if url or load_as:  # the loader named them after `load_as`; they belong to `key`
            docs = [dataclasses.replace(d, source=key, url=url or d.url) for d in docs]
        chunks = self.chunker.split_all(with_metadata(docs, base, self.tags))
        if not chunks:
            report.failed.append((shown, "no text to index after chunking"))
            return None
        (report.updated if self.index.catalog.source(key) else report.added).append(key)
        return PreparedSource(source=key, sha256=digest, chunks=chunks)

    def write(
        self,
        prepared: list[PreparedSource],
        report: IngestReport,
        progress: IngestProgress | None = None,
    ) -> None:
        """Write sources prepared by `prepare_bytes` (fetched pages): under the writer lock,
        after repairing what an earlier run left half-written."""
        progress = progress or NoProgress()
        with self.index.write_lock(
            self.lock_wait, cancelled=self._cancelled, on_wait=self._on_lock_wait
        ):
            report.repaired = self.index.repair()
            for i in range(0, len(prepared), 64):
                self._flush(prepared[i : i + 64], report, progress)

    def _flush(
        self, buffer: list[PreparedSource], report: IngestReport, progress: IngestProgress
    ) -> None:
        if not buffer:
            return
        report.embedded += self.index.write(buffer, progress=progress.chunks_done)
        report.chunks += sum(len(p.chunks) for p in buffer)

    def remove(self, paths: Iterable[str | Path]) -> IngestReport:
        """Drop sources: a file path removes that file, a folder every source under it."""
        report = IngestReport()
        started = time.perf_counter()
        with self.index.write_lock():
            report.repaired = self.index.repair()
            known = [s.source for s in self.index.sources()]
            for raw in paths:
                key = source_key(raw)
                matches = [s for s in known if s == key or s.startswith(key.rstrip("/") + "/")]
                if not matches:
                    report.failed.append((str(raw), "not in the index"))
                for source in matches:
                    report.chunks += self.index.remove(source)
                    report.removed.append(source)
        report.seconds = time.perf_counter() - started
        return report

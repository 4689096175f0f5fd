"""`crag watch PATH…`: keep a collection in step with folders as files are added, changed and
deleted.

Events come from watchfiles (Rust `notify`: inotify here, FSEvents/ReadDirectoryChangesW
elsewhere), which groups a burst of changes into one batch once `debounce` seconds pass with
no new change — an editor's save (write temp, rename, touch) or a copied folder becomes one
sync, not dozens.

Consistency does not depend on seeing every event: each batch is handled by looking at what
is on disk *now* (a path that exists is ingested — unchanged content is skipped by its hash —,
one that does not is removed), and `sync()` at start ingests every file under the folders
and removes the sources under them whose file is gone. So a watcher killed at any point and
started again leaves the index exactly as the folders are (a write cut short is repaired by
the ingestor first, as for `crag ingest`).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from crag.ingest.ingestor import Ingestor, source_key
from crag.ingest.loaders import is_walked
from crag.ingest.report import IngestReport

__all__ = ["FolderWatcher"]


def _visible(path: Path, roots: list[Path]) -> bool:
    """Not hidden (no part starting with '.') below the watched root it belongs to."""
    for root in roots:
        try:
            rel = path.relative_to(root)
        except ValueError:
            continue
        return not any(p.startswith(".") for p in rel.parts)
    return False


class FolderWatcher:
    """Mirrors `paths` (folders or files) into the ingestor's index."""

    def __init__(
        self,
        ingestor: Ingestor,
        paths: Iterable[str | Path],
        *,
        debounce: float = 1.0,
        on_sync: Callable[[str, IngestReport], None] | None = None,
    ) -> None:
        self.ingestor = ingestor
        self.roots = [Path(source_key(p)) for p in paths]
        missing = [str(r) for r in self.roots if not r.exists()]
        if missing:
            from crag.errors import CragError

            raise CragError(f"cannot watch {', '.join(missing)}: no such file or folder")
        self.debounce = debounce
        self.on_sync = on_sync or (lambda what, report: None)
        self.stop_event = threading.Event()

    def _known_under(self, root: Path) -> list[str]:
        prefix = str(root).rstrip("/") + "/"
        return [
            s.source
            for s in self.ingestor.index.sources()
            if s.source == str(root) or s.source.startswith(prefix)
        ]

    def sync(self) -> IngestReport:
        """Make the index match the folders now: ingest what changed (by hash), remove
        sources under the watched folders whose file is gone."""
        report = self.ingestor.ingest(self.roots)
        gone = [
            source
            for root in self.roots
            for source in self._known_under(root)
            if not Path(source).is_file() or not _visible(Path(source), self.roots)
        ]
        if gone:
            removed = self.ingestor.remove(gone)
            report.removed.extend(removed.removed)
            report.chunks += removed.chunks
        self.on_sync("start", report)
        return report

    def apply(self, changed: Iterable[str | Path]) -> IngestReport:
        """Bring the given paths in step with the disk (whatever the event said)."""
        present: list[Path] = []
        absent: list[str] = []
        known = {s.source for s in self.ingestor.index.sources()}
        for raw in sorted({str(p) for p in changed}):
            path = Path(raw)
            if not _visible(path, self.roots):
                continue
            if path.is_file():
                if is_walked(path):
                    present.append(path)
            elif path.is_dir():
                present.append(path)  # a folder moved in: the ingestor walks it
            else:
                prefix = raw.rstrip("/") + "/"
                if raw in known or any(s.startswith(prefix) for s in known):
                    absent.append(raw)
        report = self.ingestor.ingest(present, walked=True) if present else IngestReport()
        if absent:
            removed = self.ingestor.remove(absent)
            report.removed.extend(removed.removed)
            report.chunks += removed.chunks
            report.failed.extend(removed.failed)
        return report

    def changes(self) -> Iterator[set[str]]:
        """Batches of changed paths until `stop()`."""
        from watchfiles import watch

        for batch in watch(
            *self.roots,
            debounce=int(self.debounce * 1000),
            step=50,
            stop_event=self.stop_event,
            recursive=True,
            raise_interrupt=False,
        ):
            yield {path for _change, path in batch}

    def run(self) -> None:
        """Watch, `sync()`, then apply every batch of changes until `stop()` (or Ctrl-C).

        The watch starts before the sync (on its own thread, feeding a queue), so a change
        made while the sync reads the folders is applied after it, not lost."""
        batches: queue.Queue[set[str] | None] = queue.Queue()

        def pump() -> None:
            try:
                for batch in self.changes():
                    batches.put(batch)
            finally:
                batches.put(None)

        thread = threading.Thread(target=pump, name="crag-watch", daemon=True)
        thread.start()
        time.sleep(0.3)  # the watch is set up on the thread's first step
        try:
            self.sync()
            while True:
                try:
                    batch = batches.get(timeout=0.5)
                except queue.Empty:
                    if self.stop_event.is_set():
                        return
                    continue
                if batch is None:
                    return
                report = self.apply(batch)
                if (
                    report.added
                    or report.updated
                    or report.removed
                    or report.failed
                    or report.ignored
                ):
                    self.on_sync("change", report)
        finally:
            self.stop()
            thread.join(5)

    def stop(self) -> None:
        self.stop_event.set()

"""`crag watch PATH…`: keep a collection in step with folders while it runs (docs/watch.md)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated, Any

import typer

from crag.cli.common import CollectionOpt, collection_settings, console, err, friendly

__all__ = ["register", "watch"]


def _print(what: str, report: Any) -> None:
    for path, reason in report.failed:
        err.print(f"[red]skipped:[/] {path}: {reason}", highlight=False)
    for warning in report.warnings:
        err.print(f"[yellow]warning:[/] {warning}", highlight=False)
    if report.ignored:
        err.print(f"ignored: {len(report.ignored)} file(s) crag does not read", highlight=False)
    if report.repaired:
        console.print(f"repaired {len(report.repaired)} half-written source(s) from an earlier run")
    console.print(
        f"{what}: {len(report.added)} added, {len(report.updated)} updated, "
        f"{len(report.removed)} removed, {len(report.unchanged)} unchanged, "
        f"{len(report.failed)} failed",
        highlight=False,
    )


@friendly
def watch(
    paths: Annotated[list[Path], typer.Argument(help="Folders (or files) to keep indexed.")],
    debounce: Annotated[
        float, typer.Option(help="Seconds without a change before a batch is indexed.")
    ] = 1.0,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", help="KEY=VALUE metadata for every chunk.")
    ] = None,
    collection: CollectionOpt = None,
) -> None:
    """Index PATHs, then follow them: added and changed files are ingested, deleted ones
    removed, until Ctrl-C. Started again, it first re-checks every file's hash."""
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor
    from crag.ingest.metadata import parse_tags
    from crag.ingest.watch import FolderWatcher

    settings = collection_settings(collection)
    index = Index.open(settings)
    try:
        # another writer (an ingest, the server's jobs) holding the lock: wait, as jobs do
        ingestor = Ingestor(
            index, settings.ingest, tags=parse_tags(tag), lock_wait=settings.server.lock_wait_s
        )
        watcher = FolderWatcher(ingestor, paths, debounce=debounce, on_sync=_print)
        # SIGTERM (kill, a service manager) stops between batches like Ctrl-C does
        signal.signal(signal.SIGTERM, lambda *_: watcher.stop())
        roots = ", ".join(str(r) for r in watcher.roots)
        err.print(f"watching {roots} (collection {settings.collection!r}); Ctrl-C stops")
        try:
            watcher.run()
        except KeyboardInterrupt:
            watcher.stop()
        err.print("stopped; the index matches the folders as of the last batch")
    finally:
        index.close()


def register(app: typer.Typer) -> None:
    app.command()(watch)

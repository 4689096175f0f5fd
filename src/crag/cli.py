"""The `crag` command line. Errors crag raises on purpose become one red line and exit code 1."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from crag.config import Settings, load_settings
from crag.errors import CragError

__all__ = ["app", "main"]

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="crag: corrective retrieval-augmented generation over your own documents.",
)
console = Console()
err = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])

CollectionOpt = Annotated[
    str | None, typer.Option("--collection", "-c", help="Collection name (CRAG_COLLECTION).")
]


def friendly(fn: F) -> F:
    """Turn `CragError` into a one-line message instead of a traceback."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except CragError as exc:
            err.print(f"[bold red]error:[/] {exc}", highlight=False)
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            err.print("[yellow]interrupted; the next run repairs any half-written file[/]")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _settings(collection: str | None) -> Settings:
    return load_settings(**({"collection": collection} if collection else {}))


class _RichProgress:
    """Files and chunks as two rich progress bars."""

    def __init__(self, progress: Progress) -> None:
        self.p = progress
        self.files_task = progress.add_task("files", total=0)
        self.chunks_task = progress.add_task("chunks", total=0)

    def files(self, total: int) -> None:
        self.p.update(self.files_task, total=total)

    def file_done(self, path: str, status: str) -> None:
        self.p.update(self.files_task, advance=1, description=f"files [dim]{Path(path).name}[/]")

    def chunks_planned(self, n: int) -> None:
        task = self.p.tasks[self.chunks_task]
        self.p.update(self.chunks_task, total=(task.total or 0) + n)

    def chunks_done(self, n: int) -> None:
        self.p.update(self.chunks_task, advance=n)


def _print_report(report: Any, verb: str) -> None:
    for warning in report.warnings:
        err.print(f"[yellow]warning:[/] {warning}", highlight=False)
    for path, reason in report.failed:
        err.print(f"[red]skipped:[/] {path}: {reason}", highlight=False)
    if report.repaired:
        console.print(f"repaired {len(report.repaired)} half-written source(s) from an earlier run")
    console.print(
        f"{verb}: {len(report.added)} added, {len(report.updated)} updated, "
        f"{len(report.unchanged)} unchanged, {len(report.removed)} removed, "
        f"{len(report.failed)} failed; {report.chunks} chunks ({report.embedded} embedded) "
        f"in {report.seconds:.1f}s"
    )


@app.command()
@friendly
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (recursive).")],
    delete: Annotated[
        bool, typer.Option("--delete", help="Remove these sources instead of adding them.")
    ] = False,
    collection: CollectionOpt = None,
) -> None:
    """Index files and folders: SQuAD JSON, JSONL, PDF, HTML, Markdown, text (.gz too)."""
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor

    settings = _settings(collection)
    index = Index.open(settings)
    ingestor = Ingestor(index, settings.ingest)
    if delete:
        report = ingestor.remove(paths)
        _print_report(report, "removed")
    else:
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=err, transient=False) as progress:
            report = ingestor.ingest(paths, progress=_RichProgress(progress))
        _print_report(report, "ingested")
    index.close()
    if report.failed:
        raise typer.Exit(2)


@app.command()
@friendly
def remove(
    sources: Annotated[list[Path], typer.Argument(help="Files or folders to drop from the index.")],
    collection: CollectionOpt = None,
) -> None:
    """Drop sources from the index (same as `crag ingest --delete`)."""
    ingest(sources, delete=True, collection=collection)


@app.command()
@friendly
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int | None, typer.Option("-k", help="Number of results (default 20).")] = None,
    mode: Annotated[str | None, typer.Option(help="bm25 | dense | hybrid")] = None,
    fusion: Annotated[str | None, typer.Option(help="rrf | weighted")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    collection: CollectionOpt = None,
) -> None:
    """Search the index (hybrid BM25 + dense by default), reranked when a reranker is set."""
    from crag.index.retriever import HybridRetriever
    from crag.index.store import Index
    from crag.models.reranker import make_reranker, rerank

    settings = _settings(collection)
    if mode not in (None, "bm25", "dense", "hybrid"):
        raise CragError(f"--mode {mode!r}: use bm25, dense or hybrid")
    if fusion not in (None, "rrf", "weighted"):
        raise CragError(f"--fusion {fusion!r}: use rrf or weighted")
    index = Index.open(settings)
    retriever = HybridRetriever(index, settings.retrieval)
    k = k or settings.retrieval.top_k
    hits = retriever.search(query, k, mode=mode, fusion=fusion)  # type: ignore[arg-type]
    hits = rerank(make_reranker(settings.rerank.model), query, hits, k, settings.rerank.weight)
    if as_json:
        out = [
            {
                "rank": i,
                "id": h.id,
                "score": h.score,
                "scores": h.scores,
                "source": h.chunk.source,
                "doc_id": h.chunk.doc_id,
                "title": h.chunk.title,
                "url": h.chunk.url,
                "start": h.chunk.start,
                "end": h.chunk.end,
                "text": h.chunk.text,
            }
            for i, h in enumerate(hits, start=1)
        ]
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return
    if not hits:
        console.print("no results (is anything ingested? `crag sources` lists what is)")
        return
    table = Table(show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("source")
    table.add_column("text")
    for i, h in enumerate(hits, start=1):
        snippet = h.chunk.text if len(h.chunk.text) <= 240 else h.chunk.text[:237] + "..."
        table.add_row(str(i), f"{h.score:.4f}", h.chunk.cite(), snippet)
    console.print(table)


@app.command()
@friendly
def sources(collection: CollectionOpt = None) -> None:
    """List indexed sources with their chunk counts."""
    from crag.index.store import Index

    settings = _settings(collection)
    index = Index.open(settings)
    table = Table(title=f"collection {settings.collection!r} ({index.count()} chunks)")
    table.add_column("source")
    table.add_column("chunks", justify="right")
    table.add_column("state")
    for info in index.sources():
        table.add_row(info.source, str(info.chunks), info.state)
    console.print(table)
    console.print(f"embedding model: {index.embedding_model or '(none yet)'}")


@app.command()
@friendly
def config() -> None:
    """Print the effective settings (defaults < crag.toml < CRAG_* environment)."""
    sys.stdout.write(load_settings().model_dump_json(indent=2) + "\n")


def main() -> None:
    app()


# Command modules register themselves on `app` when imported.
from crag import cli_ask, cli_eval, cli_evaluator, cli_models, cli_serve  # noqa: E402,F401

if __name__ == "__main__":
    # `python -m crag.cli`: the commands registered themselves on `crag.cli.app`, which is
    # not this `__main__` module's `app`; run that one.
    from crag.cli import main as _main

    _main()

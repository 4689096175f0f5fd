"""`crag ingest`, `remove`, `search` and `sources`: what is in the index, and finding it."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from crag.cli.common import (
    CollectionOpt,
    RichProgress,
    WhereOpt,
    collection_settings,
    console,
    err,
    friendly,
)
from crag.errors import CragError

if TYPE_CHECKING:
    from crag.ingest.report import IngestReport

__all__ = ["ingest", "register", "remove", "search", "sources"]


def _print_report(report: IngestReport, verb: str) -> None:
    for warning in report.warnings:
        err.print(f"[yellow]warning:[/] {warning}", highlight=False)
    for path, reason in report.failed:
        err.print(f"[red]skipped:[/] {path}: {reason}", highlight=False)
    if report.ignored:
        err.print(f"ignored: {_ignored(report.ignored)}", highlight=False)
    if report.repaired:
        console.print(f"repaired {len(report.repaired)} half-written source(s) from an earlier run")
    console.print(
        f"{verb}: {len(report.added)} added, {len(report.updated)} updated, "
        f"{len(report.unchanged)} unchanged, {len(report.removed)} removed, "
        f"{len(report.failed)} failed; {report.chunks} chunks ({report.embedded} embedded) "
        f"in {report.seconds:.1f}s"
    )


def _ignored(ignored: list[tuple[str, str]], shown: int = 6) -> str:
    """What a folder walk passed over and why: "152 file(s) crag does not read: a type crag
    does not read (.png 8, .c 3, (none) 1); not SQuAD JSON (149)". Why: without it, a
    folder of unread files says "0 added"; with each file as a failure, `crag ingest` of a
    project or /usr/share/man would end in error on files that are not documents."""
    from crag.ingest.ingestor import UNSUPPORTED_TYPE as _TYPE  # loaded with the ingest

    by_type = Counter(Path(p).suffix.lower() or "(none)" for p, why in ignored if why == _TYPE)
    reasons = Counter(why.split(":")[0] for _, why in ignored if why != _TYPE)  # its gist
    parts = []
    if by_type:
        listed = ", ".join(f"{kind} {n}" for kind, n in by_type.most_common(shown))
        parts.append(f"{_TYPE} ({listed}{', …' if len(by_type) > shown else ''})")
    parts += [f"{why} ({n})" for why, n in reasons.most_common(shown)]
    if len(reasons) > shown:
        parts.append("…")
    return f"{len(ignored)} file(s) crag does not read: " + "; ".join(parts)


@friendly
def ingest(
    paths: Annotated[
        list[str], typer.Argument(help="Files or folders (recursive), or http(s) URLs.")
    ],
    delete: Annotated[
        bool, typer.Option("--delete", help="Remove these sources instead of adding them.")
    ] = False,
    tag: Annotated[
        list[str] | None,
        typer.Option(
            "--tag", help="KEY=VALUE metadata for every chunk (filter with --where); repeatable."
        ),
    ] = None,
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Fetch URLs already indexed again.")
    ] = False,
    crawl: Annotated[
        int, typer.Option("--crawl", metavar="DEPTH", help="Follow links DEPTH levels from URLs.")
    ] = 0,
    same_site: Annotated[
        bool, typer.Option("--same-site/--any-site", help="Crawl only the start page's site.")
    ] = True,
    max_pages: Annotated[int, typer.Option(help="Pages fetched at most (crawl cap).")] = 50,
    max_bytes: Annotated[
        int | None, typer.Option(help="Largest page in bytes (default web.max_page_bytes).")
    ] = None,
    delay: Annotated[float, typer.Option(help="Seconds between requests to one site.")] = 0.5,
    collection: CollectionOpt = None,
) -> None:
    """Index files and folders (SQuAD JSON, JSONL, PDF, HTML, Markdown, text, Office, EPUB;
    .gz too) and web pages by URL (docs/ingest-web.md)."""
    from crag.index.store import Index
    from crag.ingest.crawl import is_url
    from crag.ingest.ingestor import Ingestor
    from crag.ingest.metadata import parse_tags
    from crag.ingest.report import IngestReport

    settings = collection_settings(collection)
    tags = parse_tags(tag)
    urls = [p for p in paths if is_url(p)]
    files = [Path(p) for p in paths if not is_url(p)]
    index = Index.open(settings)
    ingestor = Ingestor(index, settings.ingest, tags=tags)
    if delete:
        report = ingestor.remove([*files, *urls])
        _print_report(report, "removed")
    else:
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
        )
        try:
            with Progress(*columns, console=err, transient=False) as progress:
                report = (
                    ingestor.ingest(files, progress=RichProgress(progress))
                    if files
                    else IngestReport()
                )
            if urls:
                got = _ingest_urls(ingestor, urls, settings, refresh, crawl, same_site,
                                   max_pages, max_bytes, delay)  # fmt: skip
                report = _merged(report, got)
        except KeyboardInterrupt:
            _cancelled(index)
        _print_report(report, "ingested")
    index.close()
    if report.failed:
        raise typer.Exit(2)


def _ingest_urls(ingestor: Any, urls: list[str], settings: Any, *args: Any) -> Any:
    from crag.ingest.urls import UrlOptions, ingest_urls

    refresh, depth, same_site, max_pages, max_bytes, delay = args
    options = UrlOptions(refresh=refresh, depth=depth, same_site=same_site,
                         max_pages=max_pages, max_bytes=max_bytes, delay=delay)  # fmt: skip

    def shown(got: Any) -> None:
        what = "[dim]already indexed (--refresh fetches it)[/]" if got.error == "skipped" else (
            f"[red]{got.error}[/]" if got.error else f"{len(got.page.body)} bytes")  # fmt: skip
        err.print(f"fetched {got.url} {what}", highlight=False)

    with err.status("fetching…"):
        return ingest_urls(ingestor, urls, settings.web, options, on_page=shown)


def _merged(a: Any, b: Any) -> Any:
    for name in ("added", "updated", "unchanged", "removed", "failed", "warnings", "repaired",
                 "ignored"):  # fmt: skip
        getattr(a, name).extend(getattr(b, name))
    a.chunks += b.chunks
    a.embedded += b.embedded
    a.seconds += b.seconds
    return a


def _cancelled(index: Any) -> None:
    """Ctrl-C during an ingest: bring the half-written file back in step now (files finished
    before stay indexed), then exit 130."""
    err.print("[yellow]interrupted: putting the index back in step…[/]")
    with index.write_lock():
        repaired = index.repair()
    index.close()
    what = f"{len(repaired)} half-written source(s) repaired" if repaired else "nothing to repair"
    err.print(f"[yellow]cancelled; the index is consistent ({what}); files finished before stay[/]")
    raise typer.Exit(130)


@friendly
def remove(
    sources: Annotated[
        list[str], typer.Argument(help="Files, folders or URLs to drop from the index.")
    ],
    collection: CollectionOpt = None,
) -> None:
    """Drop sources from the index (same as `crag ingest --delete`)."""
    ingest(sources, delete=True, collection=collection)


@friendly
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int | None, typer.Option("-k", help="Number of results (default 20).")] = None,
    mode: Annotated[str | None, typer.Option(help="bm25 | dense | hybrid")] = None,
    fusion: Annotated[str | None, typer.Option(help="rrf | weighted")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    where: WhereOpt = None,
    collection: CollectionOpt = None,
) -> None:
    """Search the index (hybrid BM25 + dense by default), reranked when a reranker is set."""
    from crag.index.filters import parse_filter
    from crag.index.retriever import HybridRetriever
    from crag.index.store import Index
    from crag.models.reranker import make_reranker, rerank

    settings = collection_settings(collection)
    if mode not in (None, "bm25", "dense", "hybrid"):
        raise CragError(f"--mode {mode!r}: use bm25, dense or hybrid")
    if fusion not in (None, "rrf", "weighted"):
        raise CragError(f"--fusion {fusion!r}: use rrf or weighted")
    flt = parse_filter(where)
    index = Index.open(settings)
    retriever = HybridRetriever(index, settings.retrieval)
    k = k or settings.retrieval.top_k
    hits = retriever.search(query, k, mode=mode, fusion=fusion, where=flt)  # type: ignore[arg-type]  # both names checked above
    reranker = make_reranker(settings.rerank.model)
    hits = rerank(reranker, query, hits, k, settings.rerank.weight, settings.retrieval.titles)
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
                "metadata": h.chunk.metadata,
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


@friendly
def sources(
    collection: CollectionOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
) -> None:
    """List indexed sources with their chunk counts."""
    from crag.index.store import Index

    settings = collection_settings(collection)
    index = Index.open(settings)
    if as_json:
        data = {
            "collection": settings.collection,
            "chunks": index.count(),
            "embedding_model": index.embedding_model,
            "sources": [
                {"source": i.source, "chunks": i.chunks, "state": i.state} for i in index.sources()
            ],
        }
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return
    table = Table(title=f"collection {settings.collection!r} ({index.count()} chunks)")
    table.add_column("source")
    table.add_column("chunks", justify="right")
    table.add_column("state")
    for info in index.sources():
        table.add_row(info.source, str(info.chunks), info.state)
    console.print(table)
    console.print(f"embedding model: {index.embedding_model or '(none yet)'}")


def register(app: typer.Typer) -> None:
    app.command()(ingest)
    app.command()(remove)
    app.command()(search)
    app.command()(sources)

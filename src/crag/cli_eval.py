"""`crag eval`: measure crag on a question set — every question through each mode, resumable.

    crag eval ../shared/datasets/squad-en-dev-subset.json --limit 50 --modes rag,crag

This is the edge where an eval run is put together: the dataset is read and sampled, the
knowledge base collection settled (crag.eval.kb) and ingested, the pipeline built once, and the
harness (crag.eval.harness) run with a rich progress bar; the report (crag.eval.report) is
written at the end, and again by any later run over the same --out.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated, Any

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

from crag.cli import _RichProgress, app, console, err, friendly
from crag.config import Settings, load_settings
from crag.errors import CragError

__all__ = ["eval_command"]

RESULTS = "results.jsonl"


class _RichEvalProgress:
    """One bar over the (question, mode) pairs still to run, with an ETA."""

    def __init__(self, progress: Progress) -> None:
        self.p = progress
        self.task = progress.add_task("questions", total=0, last="")
        self.answered = 0

    def start(self, total: int, skipped: int) -> None:
        note = f" ({skipped} done before, skipped)" if skipped else ""
        self.p.update(self.task, total=total, description=f"questions × modes{note}")

    def advance(self, record: dict[str, Any]) -> None:
        if record.get("error"):
            last = f"[red]{record['mode']}: error[/]"
        else:
            verdict = f" {record['verdict'].upper()}" if record.get("verdict") else ""
            what = "refused" if record["refused"] else "answered"
            last = f"{record['mode']}{verdict} {what} in {record['trace']['total_ms'] / 1000:.1f}s"
        self.p.update(self.task, advance=1, last=last)


def _machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{os.cpu_count()} CPU cores, load average {load:.1f} at start"


def _fingerprint(settings: Settings, dataset: Path, web: bool, split: bool) -> dict[str, Any]:
    t = settings.evaluate.thresholds(settings.collection, settings.llm.grader.model)
    return {
        "dataset": str(dataset.resolve()),
        "collection": settings.collection,
        "split": split,
        "embedding": settings.embedding.model,
        "keyword_language": settings.keyword.language,
        "grader": settings.llm.grader.model,
        "generator": settings.llm.generator.model,
        "thresholds": {"upper": t.upper, "lower": t.lower},
        "retrieval": [settings.retrieval.mode, settings.retrieval.fusion, settings.retrieval.top_k],
        "rerank": [settings.rerank.model, settings.rerank.top_k],
        "refine": settings.refine.mode,
        "web": web,
    }


def _print_summary(summary: dict[str, Any]) -> None:
    def pct(v: float | None) -> str:
        return "–" if v is None else f"{100 * v:.1f}%"

    table = Table(title=f"crag eval · {summary['run']['dataset_name']}", title_justify="left")
    for col in ("mode", "acc", "F1", "over-ref", "refused", "halluc", "R@5", "verdict",
                "p50 s", "p95 s", "calls"):  # fmt: skip
        table.add_column(col, justify="left" if col == "mode" else "right")
    for mode, s in summary["modes"].items():
        a, tot = s["answers"], s["latency"].get("total", {})
        ev = s["evaluator"]
        table.add_row(
            mode, pct(a["accuracy"]), pct(a["f1"]), pct(a["over_refusal"]),
            pct(a["refusal_rate"]), pct(a["hallucination_rate"]),
            pct(s["retrieval"]["recall@5"]), pct(ev["accuracy"]) if ev else "–",
            f"{tot.get('p50_ms', 0) / 1000:.1f}", f"{tot.get('p95_ms', 0) / 1000:.1f}",
            f"{s['calls']['per_question']['calls']:.1f}",
        )  # fmt: skip
    console.print(table)
    console.print(
        "[dim]acc/F1/over-ref: questions that should be answered; refused/halluc: questions "
        "that should be refused; R@5: gold passage in the top 5 retrieved; verdict: "
        "evaluator verdict accuracy; calls: model calls per question[/]"
    )


@app.command("eval")
@friendly
def eval_command(
    dataset: Annotated[Path, typer.Argument(help="SQuAD .json(.gz) or JSONL questions.")],
    modes: Annotated[str, typer.Option(help="Comma-separated: rag, crag (self-crag later).")] = (
        "rag,crag"
    ),
    limit: Annotated[int | None, typer.Option(help="Questions to sample (default: all).")] = None,
    seed: Annotated[int, typer.Option(help="Sampling seed.")] = 0,
    out: Annotated[
        Path | None, typer.Option(help="Output folder (default ./crag-eval/<dataset>).")
    ] = None,
    collection: Annotated[
        str | None,
        typer.Option("--collection", "-c", help="Use this existing collection; ingest nothing."),
    ] = None,
    kb: Annotated[
        list[Path] | None,
        typer.Option(help="Knowledge-base files for JSONL questions (repeatable)."),
    ] = None,
    split: Annotated[
        bool, typer.Option(help="Index only the 'kb' part of the passages (crag.eval.splits).")
    ] = False,
    parts: Annotated[
        str | None, typer.Option(help="With --split: sample questions from kb,web,held_out.")
    ] = None,
    language: Annotated[
        str, typer.Option(help="auto (detect from the questions), en, tr, ...")
    ] = "auto",
    unanswerable_share: Annotated[
        float | None, typer.Option(help="Share of unanswerable questions in the sample.")
    ] = None,
) -> None:
    """Evaluate crag on a question set: accuracy, refusals, recall, verdicts, latency."""
    from crag.eval.datasets import load_dataset, select_items
    from crag.eval.harness import Harness, check_modes
    from crag.eval.kb import (
        default_collection,
        detect_language,
        language_settings,
        split_kb,
        tag_parts,
    )
    from crag.eval.report import write_report
    from crag.eval.results import ResultsFile, check_fingerprint, locked
    from crag.eval.summary import summarize

    if limit is not None and limit < 1:
        raise CragError("--limit must be at least 1")
    if unanswerable_share is not None and not 0 <= unanswerable_share <= 1:
        raise CragError("--unanswerable-share must be within 0..1")
    wanted_parts = {p.strip() for p in parts.split(",")} if parts else None
    if wanted_parts and (not split or wanted_parts - {"kb", "web", "held_out"}):
        raise CragError("--parts takes kb, web, held_out and needs --split")
    data = load_dataset(dataset, kb)
    for note in data.notes:
        err.print(f"[dim]{data.path.name}: {note}[/]", highlight=False)
    items = tag_parts(data.items) if split else data.items
    chosen = select_items(
        items, limit=limit, seed=seed, parts=wanted_parts, unanswerable_share=unanswerable_share
    )
    if not chosen:
        raise CragError(f"{dataset}: no question left to evaluate after --parts/--limit")
    lang = detect_language(chosen) if language == "auto" else language.lower()

    base = load_settings(**({"collection": collection} if collection else {}))
    notes: list[str] = []
    if collection:
        settings = base
    else:
        settings, notes = language_settings(base, lang)
        settings.collection = default_collection(data.name, split)
    modes_list = check_modes(modes.split(","), _probe_graph)
    out_dir = out or Path("crag-eval") / settings.collection.removeprefix("eval-")
    for note in notes:
        err.print(f"[dim]{note}[/]", highlight=False)

    from crag.index.store import Index
    from crag.pipeline import build_pipeline

    with locked(out_dir):
        results = ResultsFile(out_dir)
        for note in results.notes:
            err.print(f"[yellow]note:[/] {note}", highlight=False)
        index = Index.open(settings)
        try:
            if not collection:
                if not data.kb:
                    raise CragError(
                        f"{dataset}: no knowledge base; pass --kb PASSAGES (files to index) or "
                        "--collection NAME (an existing index)"
                    )
                files = split_kb(data.kb, settings.data_dir / "eval") if split else data.kb
                _ingest(index, settings, files)
            elif index.count() == 0:
                raise CragError(f"collection {collection!r} is empty; `crag ingest` it first")
            pipeline = build_pipeline(settings, index)
            web = pipeline.components.web is not None
            check_fingerprint(out_dir, _fingerprint(settings, data.path, web, split))
            started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            machine = _machine()
            harness = Harness(pipeline, index.catalog, results, language=lang)
            if harness.pending(chosen, modes_list):
                err.print("[dim]loading models (one warm-up question per mode)…[/]")
            columns = (
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                TextColumn("[dim]{task.fields[last]}"),
            )  # fmt: skip
            try:
                with Progress(*columns, console=err, transient=False) as progress:
                    harness.progress = _RichEvalProgress(progress)
                    harness.run(chosen, modes_list)
            except KeyboardInterrupt:
                done = sum(results.done(it.id, m) for it in chosen for m in modes_list)
                err.print(
                    f"[yellow]interrupted with {done} of {len(chosen) * len(modes_list)} "
                    f"pairs in {results.path}; run the same command again to resume[/]"
                )
                raise typer.Exit(130) from None
        finally:
            index.close()
        records = [results.records[k] for it in chosen for m in modes_list
                   if (k := (it.id, m)) in results.records]  # fmt: skip
        t = settings.evaluate.thresholds(settings.collection, settings.llm.grader.model)
        summary = {
            "run": {
                "dataset": str(data.path), "dataset_name": data.name, "questions": len(chosen),
                "modes": modes_list, "seed": seed, "limit": limit, "split": split,
                "parts": sorted(wanted_parts) if wanted_parts else None,
                "unanswerable_share": unanswerable_share, "language": lang,
                "collection": settings.collection, "embedding": settings.embedding.model,
                "keyword_language": settings.keyword.language,
                "grader": settings.llm.grader.model, "generator": settings.llm.generator.model,
                "thresholds": {"upper": t.upper, "lower": t.lower}, "web": web,
                "machine": machine, "started": started,
                "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            },
            "modes": summarize(records, modes_list, web=web),
        }  # fmt: skip
        paths = write_report(summary, out_dir)
    _print_summary(summary)
    console.print(f"wrote {paths['report']}, {paths['summary'].name}, the plots and {RESULTS}")


def _probe_graph(mode: str) -> object:
    """Build the graph for `mode` over placeholder components: it checks a mode exists
    without loading any model (the wiring does not depend on the components)."""
    from unittest.mock import sentinel

    from crag.evaluate import ActionTrigger
    from crag.pipeline import Components, Pipeline

    parts = Components(
        retriever=sentinel.retriever,
        evaluator=sentinel.evaluator,
        trigger=ActionTrigger(1.0, 0.0),
        refiner=sentinel.refiner,
        generator=sentinel.generator,
    )
    return Pipeline(parts).graph(mode)  # type: ignore[arg-type]


def _ingest(index: Any, settings: Settings, files: list[Path]) -> None:
    from crag.ingest.ingestor import Ingestor

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())  # fmt: skip
    with Progress(*columns, console=err, transient=True) as progress:
        report = Ingestor(index, settings.ingest).ingest(files, progress=_RichProgress(progress))
    for path, reason in report.failed:
        raise CragError(f"knowledge base {path}: {reason}")
    if report.added or report.updated:
        console.print(
            f"indexed {len(report.added) + len(report.updated)} file(s), {report.chunks} chunks "
            f"into collection {settings.collection!r} in {report.seconds:.0f}s"
        )

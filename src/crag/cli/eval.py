"""`crag eval`: measure crag on a question set — every question through each mode, resumable.

    crag eval ../shared/datasets/squad-en-dev-subset.json --limit 50 --modes rag,crag

The command is the options, a rich progress bar with an ETA and the summary table; the run
itself is crag.eval.run (plan: dataset, sample, collection, language, modes; run: ingest,
pipeline, harness, report), usable from Python as well.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from crag.cli.common import RichProgress, console, err, friendly
from crag.config import load_settings
from crag.modes import Mode
from crag.trace import Trace

__all__ = ["eval_command", "register"]

RESULTS = "results.jsonl"


class _RichEvalProgress:
    """One bar over the (question, mode) pairs still to run, with an ETA."""

    def __init__(self, progress: Progress) -> None:
        self.p = progress
        self.task: Any = None

    def start(self, total: int, skipped: int) -> None:
        if not total:
            self.p.console.print(f"[dim]all {skipped} pairs were done before: report only[/]")
            return
        note = f" ({skipped} done before, skipped)" if skipped else ""
        self.task = self.p.add_task(f"questions × modes{note}", total=total, last="")

    def advance(self, record: dict[str, Any]) -> None:
        if record.get("error"):
            last = f"[red]{record['mode']}: error[/]"
        else:
            verdict = f" {record['verdict'].upper()}" if record.get("verdict") else ""
            what = "refused" if record["refused"] else "answered"
            seconds = Trace.model_validate(record["trace"]).total_ms / 1000
            last = f"{record['mode']}{verdict} {what} in {seconds:.1f}s"
        self.p.update(self.task, advance=1, last=last)


class _LastColumn(ProgressColumn):
    """What the last pair did (mode, verdict, answered or refused, seconds); blank for the
    ingest bars, which share the display."""

    def render(self, task: Task) -> Text:
        return Text.from_markup(f"[dim]{task.fields.get('last', '')}[/]")


def _print_summary(summary: dict[str, Any]) -> None:
    def pct(v: float | None) -> str:
        return "–" if v is None else f"{100 * v:.1f}%"

    table = Table(title=f"crag eval · {summary['run']['dataset_name']}", title_justify="left")
    near = any(s.get("near_miss") for s in summary["modes"].values())
    for col in ("mode", "acc", "F1", "over-ref", "refused", "halluc",
                *(("near-miss ref", "near-miss halluc") if near else ()), "R@5", "kept",
                "verdict", "decisive", "dec. right", "p50 s", "p95 s", "calls"):  # fmt: skip
        table.add_column(col, justify="left" if col == "mode" else "right")
    for mode, s in summary["modes"].items():
        a, tot = s["answers"], s["latency"].get("total", {})
        ev, nm = s["evaluator"], s.get("near_miss") or {}
        table.add_row(
            mode, pct(a["accuracy"]), pct(a["f1"]), pct(a["over_refusal"]),
            pct(a["refusal_rate"]), pct(a["hallucination_rate"]),
            *((pct(nm.get("refusal_rate")), pct(nm.get("hallucination_rate"))) if near else ()),
            pct(s["retrieval"]["recall@5"]), pct(s["answer_kept"]["rate"]),
            pct(ev["accuracy"]) if ev else "–", pct(ev["decisive"]) if ev else "–",
            pct(ev.get("decisive_right")) if ev else "–",
            f"{tot.get('p50_ms', 0) / 1000:.1f}", f"{tot.get('p95_ms', 0) / 1000:.1f}",
            f"{s['calls']['per_question']['calls']:.1f}",
        )  # fmt: skip
    console.print(table)
    console.print(
        "[dim]acc/F1/over-ref: questions that should be answered; refused/halluc: questions "
        "that should be refused (near-miss ones included; near-miss: gold passage withheld); "
        "R@5: gold passage in the top 5 retrieved; kept: answer string in what the generator "
        "read, given it was in the reranked top 5; verdict: evaluator verdict accuracy; "
        "decisive: verdicts not AMBIGUOUS; dec. right: share of those that are right; "
        "calls: model calls per question[/]"
    )


@friendly
def eval_command(
    dataset: Annotated[Path, typer.Argument(help="SQuAD .json(.gz) or JSONL questions.")],
    modes: Annotated[str, typer.Option(help=f"Comma-separated: {', '.join(Mode)}.")] = (
        f"{Mode.RAG},{Mode.CRAG}"
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
        bool, typer.Option(help="Index only the 'kb' part of the passages (crag.datasets.splits).")
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
    evaluator_held_out: Annotated[
        bool,
        typer.Option(
            help="Only questions whose gold passage the trained evaluator did not learn from "
            "(its 'test' part: crag.datasets.splits.evaluator_part)."
        ),
    ] = False,
    tuning_part: Annotated[
        bool,
        typer.Option(
            help="Only questions of the evaluator's 'calibrate' part: tune pipeline choices "
            "here, then report them on --evaluator-held-out, which they never saw."
        ),
    ] = False,
    near_miss: Annotated[
        float | None,
        typer.Option(
            help="Withhold the gold paragraph/passage of this share of the sampled answerable "
            "questions from the index (a separate collection): they should then be refused."
        ),
    ] = None,
    fail_under: Annotated[
        list[str] | None,
        typer.Option(
            help="MODE.METRIC=VALUE: exit 1 when the metric is below VALUE, e.g. "
            "crag.accuracy=0.7 (repeatable; docs/evaluation.md lists the metrics)."
        ),
    ] = None,
    fail_over: Annotated[
        list[str] | None,
        typer.Option(
            help="MODE.METRIC=VALUE: exit 1 when the metric is above VALUE, e.g. "
            "crag.hallucination=0.1 (repeatable; for lower-is-better metrics)."
        ),
    ] = None,
    order: Annotated[
        str,
        typer.Option(
            help="question: each question in every mode, then the next (load hits modes alike); "
            "mode: all questions through one mode, then the next."
        ),
    ] = "question",
    process_per_mode: Annotated[
        bool,
        typer.Option(
            "--process-per-mode/--one-process",
            help="Each mode answers in a process of its own, loading its own models, so no "
            "mode finds another's work in the caches (latencies compare, answers are those of "
            "the mode run alone). --one-process: one model load, less memory; a mode then "
            "reuses prompts other modes computed and its latency reads low.",
        ),
    ] = True,
) -> None:
    """Evaluate crag on a question set: accuracy, refusals, recall, verdicts, latency."""
    from crag.eval.gates import check_gates, parse_gate
    from crag.eval.notes import web_failed_lines
    from crag.eval.run import EvalConfig, plan_eval, run_eval

    config = EvalConfig(
        dataset=dataset,
        modes=modes.split(","),
        limit=limit,
        seed=seed,
        out=out,
        collection=collection,
        kb=kb,
        split=split,
        parts={p.strip() for p in parts.split(",")} if parts else None,
        language=language,
        unanswerable_share=unanswerable_share,
        evaluator_held_out=evaluator_held_out,
        tuning_part=tuning_part,
        order=order,
        near_miss=near_miss,
        process_per_mode=process_per_mode,
    )
    plan = plan_eval(config, load_settings())
    gates = [parse_gate(g, "under", plan.modes) for g in fail_under or []]
    gates += [parse_gate(g, "over", plan.modes) for g in fail_over or []]
    for note in plan.notes:
        err.print(f"[dim]{note}[/]", highlight=False)
    columns = (
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TextColumn("ETA"), TimeRemainingColumn(), _LastColumn(),
    )  # fmt: skip
    try:
        with Progress(*columns, console=err, transient=False) as progress:
            summary = run_eval(
                plan,
                progress=_RichEvalProgress(progress),
                ingest_progress=lambda: _IngestBar(progress),
                log=lambda line: progress.console.print(f"[dim]{line}[/]", highlight=False),
            )
    except KeyboardInterrupt:
        from crag.eval.results import ResultsFile

        results = ResultsFile(plan.out_dir)
        done = sum(results.done(it.id, m) for it in plan.items for m in plan.modes)
        err.print(
            f"[yellow]interrupted with {done} of {len(plan.items) * len(plan.modes)} pairs in "
            f"{results.path}; run the same command again to resume[/]"
        )
        raise typer.Exit(130) from None
    _print_summary(summary)
    for line in web_failed_lines(summary["modes"]):
        err.print(f"[yellow]warning:[/] {line}", highlight=False)
    console.print(f"wrote {summary['files']['report']}, summary.json, the plots and {RESULTS}")
    if missed := check_gates(summary, gates):
        for line in missed:
            err.print(f"[red]failed:[/] {line}", highlight=False)
        raise typer.Exit(1)
    if gates:
        console.print(f"all {len(gates)} --fail-under/--fail-over gates passed")


class _IngestBar:
    """The ingest bars for the time the knowledge base is indexed, then removed."""

    def __init__(self, progress: Progress) -> None:
        self.p = progress
        self.tasks: list[Any] = []

    def __enter__(self) -> RichProgress:
        bar = RichProgress(self.p)
        self.tasks = [bar.files_task, bar.chunks_task]
        return bar

    def __exit__(self, *exc: object) -> None:
        for task in self.tasks:
            self.p.remove_task(task)


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)

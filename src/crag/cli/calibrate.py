"""`crag calibrate`: the evaluator's thresholds measured on your own collection.

    crag calibrate -c notes --questions 40 --max-hallucination 0.1

Not to be confused with `crag evaluator calibrate`, which calibrates the trained cross-encoder
on SQuAD/NQ and ships the result with the model; this one measures whatever evaluator is
configured, on the collection's own text, and stores the thresholds with the collection.
"""

from __future__ import annotations

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

from crag.cli.common import CollectionOpt, collection_settings, console, err, friendly

__all__ = ["calibrate", "register"]


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


@friendly
def calibrate(
    collection: CollectionOpt = None,
    questions: Annotated[
        int, typer.Option("--questions", "-n", help="Questions to generate (each asked twice).")
    ] = 40,
    seed: Annotated[int, typer.Option(help="Seed of the chunk sample and the LLM.")] = 0,
    max_hallucination: Annotated[
        float,
        typer.Option(
            help="Budget: largest share of near-miss questions (answer withheld) that may be "
            "answered."
        ),
    ] = 0.1,
    answers: Annotated[
        bool,
        typer.Option(
            "--answers",
            help="Also run the generator; a question counts as answered only if it answered, "
            "and the verification cut is fitted and stored too (slower).",
        ),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(help="Run folder (default <data_dir>/collections/<name>/calibration)."),
    ] = None,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="Start over: forget the run folder's journal.")
    ] = False,
    store: Annotated[
        bool, typer.Option(help="Store the chosen thresholds with the collection.")
    ] = True,
) -> None:
    """Fit the evaluator's thresholds to this collection, on questions made from its chunks.

    Each generated question is scored answerable (its chunk in reach) and near miss (its unit
    withheld); the thresholds with the most right answers within the hallucination budget are
    stored with the collection, and the risk–coverage curve is drawn. Not `crag evaluator
    calibrate`, which calibrates the trained cross-encoder on SQuAD/NQ and ships the result.
    """
    from crag.calibrate import CalibrateConfig, run_calibration

    settings = collection_settings(collection)
    config = CalibrateConfig(
        questions=questions,
        seed=seed,
        max_hallucination=max_hallucination,
        answers=answers,
        out=out,
        fresh=fresh,
        store=store,
    )
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err, transient=False) as progress:
        task = progress.add_task("questions", total=None)

        def on_step(question: str) -> None:
            short = question if len(question) <= 50 else question[:47] + "..."
            progress.update(task, advance=1, description=f"questions [dim]{short}[/]")

        result = run_calibration(
            settings,
            config,
            on_start=lambda n: progress.update(task, total=n),
            on_step=on_step,
        )
    _print(result)


def _print(result: Any) -> None:
    c = result.choice
    table = Table(
        title=f"risk–coverage on {result.collection!r} ({result.evaluator})", title_justify="left"
    )
    for col in ("threshold", "answered", "right of answered", "right of answerable", "halluc."):
        table.add_column(col, justify="right")
    step = max(1, len(c.curve) // 12)
    shown = c.curve[::step]
    if c.at_lower not in shown:
        shown = sorted([*shown, c.at_lower], key=lambda p: p["threshold"])
    for p in shown:
        mark = " ←" if p is c.at_lower else ""
        table.add_row(
            f"{p['threshold']:.4f}{mark}",
            _pct(p["answered"]),
            _pct(p["right_of_answered"]),
            _pct(p["right_of_answerable"]),
            _pct(p["hallucination"]),
        )
    console.print(table)
    for warning in result.warnings:
        err.print(f"[yellow]warning:[/] {warning}", highlight=False)
    e = c.at_lower
    console.print(
        f"{result.questions} questions ({result.resumed} resumed, {result.rejected} chunks "
        f"rejected), each answerable and near miss"
    )
    console.print(
        f"chosen: upper {c.upper:.4f}, lower {c.lower:.4f} (were {result.before.upper}, "
        f"{result.before.lower})"
    )
    if c.verify_cut is not None:
        console.print(
            f"verification cut {c.verify_cut:.4f} (was {result.before_cut:.4f}): answers whose "
            "P(yes) is below it are refused"
        )
    console.print(
        f"expected: {_pct(e['answered'])} of questions answered, {_pct(e['right_of_answered'])} "
        f"of those right, {_pct(e['right_of_answerable'])} of answerable ones right; "
        f"hallucination {_pct(e['hallucination'])} of near misses (budget "
        f"{_pct(c.max_hallucination)}); CORRECT right {_pct(c.correct_precision)}"
    )
    console.print(f"curve: {result.curve_png}  {result.curve_json}")
    console.print(f"journal: {result.journal}")
    if result.stored:
        console.print(f"stored: {result.stored} (used by crag ask/serve for {result.evaluator})")
    if result.overridden:
        err.print(
            "[yellow]note:[/] evaluate.upper/lower or evaluate.per_collection are set: "
            "explicit settings take precedence over the stored thresholds",
            highlight=False,
        )
    if result.cut_overridden and c.verify_cut is not None:
        err.print(
            "[yellow]note:[/] generate.verify_cut is set: it takes precedence over the stored "
            "verification cut",
            highlight=False,
        )


def register(app: typer.Typer) -> None:
    app.command()(calibrate)

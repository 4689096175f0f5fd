"""`crag evaluator train | calibrate | export`: crag trains, calibrates and ships its own evaluator.

    crag evaluator train --squad data/squad.json --nq-questions q.jsonl --nq-passages p.jsonl
    crag evaluator train --distill-questions my-questions.txt -c notes   # your own domain
    crag evaluator calibrate --squad ... --nq-questions ... --nq-passages ...
    crag evaluator export .crag/evaluator/model --dest my-evaluator

Everything lands in one run folder (`--out`, default `<data_dir>/evaluator`): mined pairs,
checkpoints (a killed run resumes), the model, its thresholds. Point crag at the result with
`CRAG_EVALUATE__MODEL=<folder>` (and `CRAG_RERANK__MODEL=<folder>`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from crag.cli.common import CollectionOpt, collection_settings, console, friendly

if TYPE_CHECKING:
    from crag.grading.base import RetrievalEvaluator
    from crag.grading.training.run import Sources

__all__ = ["evaluator_app", "register"]

evaluator_app = typer.Typer(no_args_is_help=True, help="Train, calibrate and export the evaluator.")

SquadOpt = Annotated[list[Path] | None, typer.Option("--squad", help="SQuAD JSON (v1.1/v2.0).")]
NQQOpt = Annotated[Path | None, typer.Option("--nq-questions", help="NQ questions JSONL.")]
NQPOpt = Annotated[Path | None, typer.Option("--nq-passages", help="NQ passages JSONL.")]
NQLimit = Annotated[int | None, typer.Option("--nq-limit", help="NQ questions used.")]
SquadLimit = Annotated[int | None, typer.Option("--squad-limit", help="SQuAD questions used.")]
OutOpt = Annotated[Path | None, typer.Option("--out", help="Run folder.")]
SeedOpt = Annotated[int, typer.Option("--seed")]


def _run_dir(out: Path | None, collection: str | None) -> Path:
    return out or collection_settings(collection).data_dir / "evaluator"


def _sources(
    squad: list[Path] | None,
    nq_q: Path | None,
    nq_p: Path | None,
    nq_limit: int | None,
    squad_limit: int | None,
    seed: int,
    distill: Path | None = None,
    coll: str | None = None,
) -> Sources:
    from crag.grading.training.run import Sources

    return Sources(
        squad=list(squad or []),
        nq_questions=nq_q,
        nq_passages=nq_p,
        nq_limit=nq_limit,
        squad_limit=squad_limit,
        distill_questions=distill,
        distill_collection=coll,
        seed=seed,
    )


@evaluator_app.command()
@friendly
def train(
    squad: SquadOpt = None,
    nq_questions: NQQOpt = None,
    nq_passages: NQPOpt = None,
    nq_limit: NQLimit = None,
    squad_limit: SquadLimit = None,
    distill_questions: Annotated[
        Path | None,
        typer.Option(
            "--distill-questions",
            help="Questions (one a line) to label with the LLM "
            "judge over the collection (-c): adapts the evaluator to your domain.",
        ),
    ] = None,
    collection: CollectionOpt = None,
    base: Annotated[str, typer.Option(help="Start from: packaged name, hub name or path.")] = (
        "all-MiniLM-L6-v2"
    ),
    epochs: Annotated[int, typer.Option()] = 1,
    batch_size: Annotated[int, typer.Option()] = 16,
    lr: Annotated[float, typer.Option()] = 1e-4,
    seed: SeedOpt = 0,
    out: OutOpt = None,
    fresh: Annotated[bool, typer.Option(help="Ignore pairs and checkpoints of an earlier run.")] = (
        False
    ),
) -> None:
    """Mine pairs from labelled QA data (and/or distil the LLM judge), fine-tune a cross-encoder."""
    from crag.grading.training.run import build_pairs
    from crag.grading.training.trainer import TrainConfig
    from crag.grading.training.trainer import train as train_model

    settings = collection_settings(collection)
    run = _run_dir(out, collection)
    if fresh:
        import shutil

        shutil.rmtree(run / "checkpoint", ignore_errors=True)

    def judge() -> RetrievalEvaluator:
        from crag.pipeline.build import make_judge

        return make_judge(settings)

    sources = _sources(
        squad, nq_questions, nq_passages, nq_limit, squad_limit, seed, distill_questions, collection
    )
    console.print(f"pairs: {run / 'pairs.jsonl'}")
    with Progress(
        TextColumn("mining"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} questions"),
        TimeRemainingColumn(),
        console=console,
    ) as progress:
        task = progress.add_task("mine", total=None, visible=False)  # shown once sized
        pairs = build_pairs(
            sources,
            run,
            judge=judge,
            settings=settings,
            fresh=fresh,
            on_start=lambda n: progress.update(task, total=n, visible=True),
            on_question=lambda: progress.advance(task),
        )
    console.print(f"{len(pairs)} pairs, {sum(p.label >= 0.5 for p in pairs)} positive")
    config = TrainConfig(base=base, epochs=epochs, batch_size=batch_size, lr=lr, seed=seed)
    with Progress(
        TextColumn("training"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} steps"),
        TextColumn("loss {task.fields[loss]:.3f}"),
        TimeRemainingColumn(),
        console=console,
    ) as progress:
        task = progress.add_task("train", total=None, loss=float("nan"))

        def on_step(step: int, total: int, loss: float) -> None:
            progress.update(task, completed=step, total=total, loss=loss)

        record = train_model(pairs, run, config, resume=not fresh, on_step=on_step)
    console.print(
        f"model: {run / 'model'} ({record['steps']} steps, {record['seconds']} s, loss "
        f"{record['loss_first_100']} → {record['loss_last_100']}); next: crag evaluator calibrate"
    )


@evaluator_app.command()
@friendly
def calibrate(
    squad: SquadOpt = None,
    nq_questions: NQQOpt = None,
    nq_passages: NQPOpt = None,
    nq_limit: NQLimit = 300,
    squad_limit: SquadLimit = 300,
    model: Annotated[Path | None, typer.Option(help="Model folder; default <run>/model.")] = None,
    seed: SeedOpt = 0,
    out: OutOpt = None,
    collection: CollectionOpt = None,
) -> None:
    """Choose upper/lower thresholds on held-out questions; store them with the model.

    SQuAD/NQ questions, for the trained model as shipped; for your own collection and
    whatever evaluator is configured, use `crag calibrate`."""
    from crag.grading.training.calibrate import choose_thresholds, collect
    from crag.grading.training.run import labelled_questions
    from crag.models.cross_encoder import CrossEncoderEvaluator

    run = _run_dir(out, collection)
    model_dir = model or run / "model"
    evaluator = CrossEncoderEvaluator(str(model_dir))
    sources = _sources(squad, nq_questions, nq_passages, nq_limit, squad_limit, seed)
    items: list[Any] = []
    for q, index in labelled_questions(sources, "calibrate", run / "index"):
        items += collect([q], index.search, evaluator, seed=seed + len(items))
    result = choose_thresholds(items)
    (model_dir / "calibration.json").write_text(json.dumps(result, indent=2) + "\n")
    table = Table(title="verdict credit by upper threshold (best lower for each)")
    for col in ("upper", "lower", "credit"):
        table.add_column(col, justify="right")
    for row in result["curve"][::5]:
        table.add_row(f"{row['upper']:.2f}", f"{row['best_lower']:.2f}", f"{row['credit']:.3f}")
    console.print(table)
    console.print(
        f"chosen: upper {result['upper']}, lower {result['lower']} → credit {result['credit']} "
        f"on {result['questions']} questions ({result['answerable']} answerable); "
        f"verdicts {result['verdicts']}; written to {model_dir / 'calibration.json'}"
    )


@evaluator_app.command("export")
@friendly
def export_cmd(
    model: Annotated[Path, typer.Argument(help="Trained model folder (with calibration.json).")],
    dest: Annotated[Path | None, typer.Option(help="Default: the packaged evaluator folder.")] = (
        None
    ),
    metrics: Annotated[
        Path | None,
        typer.Option(help="bench/evaluator.py results for the card; default <run>/metrics.json."),
    ] = None,
) -> None:
    """Write the shippable model: fp16 weights, SHA-256 manifest, model card."""
    from crag.grading.training.export import export_model
    from crag.models.cross_encoder import packaged_evaluator_dir

    target = dest or packaged_evaluator_dir()
    manifest = export_model(model, target, metrics=metrics)
    for name, digest in manifest["sha256"].items():
        size = (target / name).stat().st_size / 1e6
        console.print(f"{target / name}: {size:.1f} MB sha256 {digest}")


def register(app: typer.Typer) -> None:
    app.add_typer(evaluator_app, name="evaluator")

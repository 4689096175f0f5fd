"""`crag calibrate`, the library side: questions → scores → thresholds → curve → stored.

For each chunk of a seeded sample the generator LLM writes a question (`questions`); the
question is scored as `crag ask` would, with its chunk in the index and with its unit withheld
(`scoring`); every step is appended to the run's journal as it is done (`journal`, driven by
`collect`), so a killed run resumes where it stopped. Then `search` chooses `lower` and
`upper`, `report` writes the risk–coverage curve, and the choice is stored with the
collection (`crag.grading.stored`), where `thresholds_for` finds it for this evaluator from
then on.

This differs from `crag evaluator calibrate`, which calibrates the trained cross-encoder once,
on SQuAD and NQ, and ships the result with the model: this one measures whatever evaluator is
configured on the user's own collection.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from crag.calibrate.collect import Collector
from crag.calibrate.journal import Journal
from crag.calibrate.report import write_curve
from crag.calibrate.search import Choice, choose_thresholds
from crag.config import Settings, Thresholds
from crag.errors import CragError

__all__ = ["CalibrateConfig", "CalibrateResult", "default_run_dir", "run_calibration"]

JOURNAL = "journal.jsonl"


@dataclass(slots=True)
class CalibrateConfig:
    questions: int = 40
    seed: int = 0
    max_hallucination: float = 0.1
    answers: bool = False  # also run the generator and use its real outcome
    out: Path | None = None  # run folder; default <data_dir>/collections/<name>/calibration
    fresh: bool = False  # forget an earlier run's journal in that folder
    store: bool = True  # store the chosen thresholds with the collection
    attempts: int = 3  # LLM replies asked for per chunk before it is rejected
    max_chunks: int | None = None  # chunks tried at most; default 4 × questions


@dataclass(slots=True)
class CalibrateResult:
    choice: Choice
    collection: str
    evaluator: str
    questions: int
    resumed: int  # of them, found in the journal of an earlier run
    rejected: int  # chunks the LLM gave no usable question for
    run_dir: Path
    journal: Path
    curve_json: Path
    curve_png: Path
    stored: Path | None
    before: Thresholds  # what the pipeline used before this run
    overridden: bool  # explicit settings take precedence over the stored thresholds
    before_cut: float = 0.75  # the verification cut the pipeline used before this run
    cut_overridden: bool = False  # generate.verify_cut is set: it takes precedence
    warnings: list[str] = field(default_factory=list)


def default_run_dir(settings: Settings) -> Path:
    return settings.data_dir / "collections" / settings.collection / "calibration"


def _header(settings: Settings, config: CalibrateConfig) -> dict[str, Any]:
    from crag.grading.stored import generator_name

    g = settings.llm.generator
    return {
        "type": "run",
        "collection": settings.collection,
        "seed": config.seed,
        "generator": generator_name(g),
        "titles": settings.retrieval.titles,  # chunks reranked with their titles (crag.titles)
    }


def _open_journal(settings: Settings, config: CalibrateConfig, run_dir: Path) -> Journal:
    path = run_dir / JOURNAL
    if config.fresh:
        path.unlink(missing_ok=True)
    journal = Journal(path)
    header = _header(settings, config)
    earlier = journal.of("run")
    if earlier:
        first = {k: earlier[0].get(k) for k in header}
        if first != header:
            diff = ", ".join(f"{k} {first[k]!r}" for k in header if first[k] != header[k])
            raise CragError(
                f"{path} holds a run with {diff}; pass --fresh to start over, or --out "
                "for another folder"
            )
    else:
        journal.append(header)
    return journal


def run_calibration(
    settings: Settings,
    config: CalibrateConfig | None = None,
    *,
    index: Any = None,
    pipeline: Any = None,
    llm: Any = None,
    on_start: Callable[[int], None] | None = None,
    on_step: Callable[[str], None] | None = None,
) -> CalibrateResult:
    """Calibrate the configured evaluator on `settings.collection` (module docstring).

    `index`, `pipeline` (its components are used) and `llm` (writes the questions) default to
    those the settings describe. `on_start(total)` is called once, `on_step(note)` after each
    question is done (resumed ones included)."""
    from crag.generate.answer_check import VERIFY_CUT
    from crag.grading.stored import evaluator_name, write_calibration
    from crag.grading.thresholds import settings_thresholds
    from crag.pipeline.build import verify_cut

    config = config or CalibrateConfig()
    if config.questions < 1:
        raise CragError("--questions must be at least 1")
    if not 0.0 <= config.max_hallucination <= 1.0:
        raise CragError("--max-hallucination must be between 0 and 1")
    if index is None:
        from crag.index.store import Index

        index = Index.open(settings)
    if index.count() == 0:
        raise CragError(
            f"collection {settings.collection!r} is empty: `crag ingest PATH` first, then calibrate"
        )
    run_dir = config.out or default_run_dir(settings)
    run_dir.mkdir(parents=True, exist_ok=True)
    journal = _open_journal(settings, config, run_dir)
    if pipeline is None:
        from crag.pipeline.build import build_pipeline

        pipeline = build_pipeline(settings, index, web=None)
    components = pipeline.components
    if llm is None:
        llm = getattr(components.generator, "llm", None)
    if llm is None:
        from crag.pipeline.build import make_roles

        llm = make_roles(settings, ("generator",))["generator"]
    evaluator = evaluator_name(settings.evaluate, settings.llm.grader.model)
    generator = _header(settings, config)["generator"]
    before = settings_thresholds(settings, embedding=index.embedder.name)
    before_cut = verify_cut(settings)

    collector = Collector(
        journal,
        index=index,
        components=components,
        llm=llm,
        evaluator=evaluator,
        generator=generator,
        answers=config.answers,
        attempts=config.attempts,
    )
    if on_start:
        on_start(config.questions)
    max_chunks = config.max_chunks or 4 * config.questions
    got = collector.collect(config.questions, config.seed, max_chunks, on_step)
    done, tried, resumed, rejected = got.done, got.tried, got.resumed, collector.rejected
    if not done:
        raise CragError(
            f"no usable question from {tried} chunks of {settings.collection!r} "
            f"({len(rejected)} rejected; see {journal.path})"
        )
    observations = collector.observations(done)
    # the verification cut is only raised from the default (crag.calibrate.search: generated
    # questions are easier than real ones)
    choice = choose_thresholds(observations, config.max_hallucination, min_cut=VERIFY_CUT)
    warnings = list(choice.warnings)
    if len(done) < config.questions:
        warnings.append(
            f"{len(done)} of {config.questions} questions: {len(rejected)} of {tried} chunks "
            "gave no usable question"
        )
    meta = {
        "collection": settings.collection,
        "evaluator": evaluator,
        "evaluator_component": getattr(components.evaluator, "name", ""),
        "generator": generator,
        "questions": len(done),
        "seed": config.seed,
        "answers": config.answers,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    curve_json, curve_png = write_curve(choice, run_dir, meta)
    stored = None
    if config.store:
        stored = write_calibration(
            settings.data_dir,
            settings.collection,
            {
                **meta,
                "upper": choice.upper,
                "lower": choice.lower,
                "verify_cut": choice.verify_cut,
                "max_hallucination": choice.max_hallucination,
                "budget_met": choice.budget_met,
                "expected": choice.at_lower,
                "correct_precision": choice.correct_precision,
                "run_dir": str(run_dir),
            },
        )
    e = settings.evaluate
    overridden = (
        settings.collection in e.per_collection or e.upper is not None or e.lower is not None
    )
    return CalibrateResult(
        choice=choice,
        collection=settings.collection,
        evaluator=evaluator,
        questions=len(done),
        resumed=resumed,
        rejected=len(rejected),
        run_dir=run_dir,
        journal=journal.path,
        curve_json=curve_json,
        curve_png=curve_png,
        stored=stored,
        before=before,
        overridden=overridden,
        before_cut=before_cut,
        cut_overridden=settings.generate.verify_cut is not None,
        warnings=warnings,
    )

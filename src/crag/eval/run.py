"""An eval run put together: plan it (no model loaded), then run it and write the report.

`plan_eval` reads and samples the dataset, settles the collection and the language settings,
and checks the modes — everything that can be wrong with the request fails here, fast.
`run_eval` ingests the knowledge base, builds the pipeline (crag.pipeline.build_pipeline, the
one place components are made; with several modes, once in each mode's own process:
crag.eval.processes), runs the harness and writes summary, report and plots.
`crag eval` is these two calls plus a progress bar; from Python:

    from crag.eval.run import EvalConfig, plan_eval, run_eval
    summary = run_eval(plan_eval(EvalConfig(Path("squad.json"), limit=20), load_settings()))
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crag.config import Settings
from crag.datasets import EvalDataset, EvalItem, load_dataset, select_items
from crag.datasets.nearmiss import NearMiss, choose_near_miss, withhold_kb
from crag.datasets.splits import evaluator_part
from crag.errors import CragError
from crag.eval.fingerprint import fingerprint, setup
from crag.eval.harness import EvalProgress, Harness, check_modes, check_order
from crag.eval.kb import (
    default_collection,
    detect_language,
    language_settings,
    near_miss_settings,
    split_kb,
    tag_parts,
)
from crag.eval.report import write_report
from crag.eval.results import ResultsFile, check_fingerprint, locked
from crag.eval.summary import summarize
from crag.ingest.report import IngestProgress
from crag.modes import Mode

__all__ = ["EvalConfig", "EvalPlan", "plan_eval", "probe_graph", "run_eval"]

PARTS = {"kb", "web", "held_out"}


@dataclass(slots=True)
class EvalConfig:
    """What `crag eval` was asked (its options)."""

    dataset: Path
    modes: list[str] = field(default_factory=lambda: [Mode.RAG.value, Mode.CRAG.value])
    limit: int | None = None
    seed: int = 0
    out: Path | None = None
    collection: str | None = None  # an existing collection: nothing is ingested
    kb: list[Path] | None = None
    split: bool = False
    parts: set[str] | None = None
    language: str = "auto"
    unanswerable_share: float | None = None
    evaluator_held_out: bool = False  # only the trained evaluator's held-out "test" part
    tuning_part: bool = False  # only its "calibrate" part: where pipeline choices are tuned
    order: str = "question"  # or "mode": every question through one mode, then the next
    near_miss: float | None = None  # share of answerable questions whose gold unit is withheld
    # each mode in a process of its own (crag.eval.processes), so the modes share no cache;
    # False: all in this one (less memory, one model load)
    process_per_mode: bool = True


@dataclass(slots=True)
class EvalPlan:
    config: EvalConfig
    data: EvalDataset
    items: list[EvalItem]
    modes: list[str]
    settings: Settings
    language: str
    out_dir: Path
    notes: list[str] = field(default_factory=list)
    near_miss: NearMiss | None = None


def probe_graph(mode: str) -> object:
    """The compiled graph for `mode`: it checks a mode exists without loading any model (the
    wiring depends on the mode alone)."""
    from crag.pipeline.graph import build_graph

    return build_graph(Mode(mode))


def plan_eval(config: EvalConfig, settings: Settings) -> EvalPlan:
    """Validate the request and decide questions, settings and output folder."""
    if config.limit is not None and config.limit < 1:
        raise CragError("--limit must be at least 1")
    if config.unanswerable_share is not None and not 0 <= config.unanswerable_share <= 1:
        raise CragError("--unanswerable-share must be within 0..1")
    if config.parts and (not config.split or config.parts - PARTS):
        raise CragError("--parts takes kb, web, held_out and needs --split")
    check_order(config.order)
    modes = check_modes(config.modes, probe_graph)
    data = load_dataset(config.dataset, config.kb)
    if not config.collection and not data.kb:
        raise CragError(
            f"{config.dataset}: no knowledge base; pass --kb PASSAGES (files to index) or "
            "--collection NAME (an existing index)"
        )
    pool = tag_parts(data.items) if config.split else data.items
    if config.evaluator_held_out and config.tuning_part:
        raise CragError("--evaluator-held-out and --tuning-part select disjoint questions")
    if config.evaluator_held_out or config.tuning_part:
        want = "test" if config.evaluator_held_out else "calibrate"
        pool = [it for it in pool if it.split_key and evaluator_part(it.split_key) == want]
    items = select_items(
        pool,
        limit=config.limit,
        seed=config.seed,
        parts=config.parts,
        unanswerable_share=config.unanswerable_share,
    )
    if not items:
        raise CragError(
            f"{config.dataset}: no question left to evaluate after --parts, "
            "--evaluator-held-out or --tuning-part"
        )
    near_miss = None
    if config.near_miss is not None:
        if config.collection:
            raise CragError("--near-miss builds its own collection; it cannot use --collection")
        near_miss = choose_near_miss(items, config.near_miss, config.seed)
        if not near_miss.withheld:
            raise CragError("--near-miss: no answerable question with an indexed gold passage")
        items = near_miss.items
    language = detect_language(items) if config.language == "auto" else config.language.lower()
    notes = [f"{data.path.name}: {n}" for n in data.notes]
    if config.collection:
        settings = settings.model_copy(update={"collection": config.collection})
    else:
        settings, changed = language_settings(settings, language)
        settings.collection = default_collection(data.name, config.split)
        notes += changed
        if near_miss:
            settings = near_miss_settings(settings, near_miss.digest)
            notes.append(
                f"near-miss: {near_miss.count} question(s) on {len(near_miss.withheld)} withheld "
                f"unit(s), collection {settings.collection!r}"
            )
    out_dir = config.out or Path("crag-eval") / settings.collection.removeprefix("eval-")
    return EvalPlan(config, data, items, modes, settings, language, out_dir, notes, near_miss)


def _ingest(plan: EvalPlan, index: Any, progress: IngestProgress | None) -> str | None:
    from crag.ingest.ingestor import Ingestor

    s = plan.settings
    files = split_kb(plan.data.kb, s.data_dir / "eval") if plan.config.split else plan.data.kb
    if plan.near_miss:
        work = s.data_dir / "eval" / f"nearmiss-{plan.near_miss.digest}"
        files = withhold_kb(files, plan.near_miss.withheld, work)
    report = Ingestor(index, s.ingest).ingest(files, progress=progress)
    for path, reason in report.failed:
        raise CragError(f"knowledge base {path}: {reason}")
    if report.added or report.updated:
        return (
            f"indexed {len(report.added) + len(report.updated)} file(s), {report.chunks} chunks "
            f"into collection {s.collection!r} in {report.seconds:.0f}s"
        )
    return None


@contextmanager
def _asker(
    plan: EvalPlan, index: Any, overrides: dict[str, Any], log: Callable[[str], None]
) -> Iterator[tuple[Any, bool, bool]]:
    """What answers the harness's questions, whether each mode has a process of its own, and
    whether the pipelines search the web. Each mode has its process unless the run asks for
    one process, has one mode, hands in components (those cannot cross processes), or the
    processes would not fit in the memory available (`crag.eval.memory`; said in `log`)."""
    from crag.eval.memory import available_mb, too_little_memory
    from crag.eval.processes import ModeProcesses
    from crag.pipeline import build_pipeline

    apart = plan.config.process_per_mode and len(plan.modes) > 1 and not overrides
    if apart and (why := too_little_memory(plan.settings, len(plan.modes), available_mb())):
        log(f"crag eval: {why}; `--one-process` chooses that from the start.")
        apart = False
    if apart:
        with ModeProcesses(plan.settings, plan.modes) as processes:
            yield processes, True, plan.settings.web.provider != "none"
    else:
        pipeline = build_pipeline(plan.settings, index, **overrides)
        yield pipeline, False, pipeline.components.web is not None


def run_eval(
    plan: EvalPlan,
    *,
    progress: EvalProgress | None = None,
    ingest_progress: Callable[[], Any] | None = None,
    log: Callable[[str], None] = lambda _: None,
    **pipeline_overrides: Any,
) -> dict[str, Any]:
    """Run the plan (resuming what `plan.out_dir` holds) and write the report; returns the
    summary. `ingest_progress` is a context manager factory yielding an IngestProgress."""
    from contextlib import nullcontext

    from crag.index.store import Index

    s = plan.settings
    with locked(plan.out_dir):
        results = ResultsFile(plan.out_dir)
        for note in results.notes:
            log(note)
        index = Index.open(s)
        try:
            if not plan.config.collection:
                with (ingest_progress or nullcontext)() as bar:
                    if done := _ingest(plan, index, bar):
                        log(done)
            elif index.count() == 0:
                raise CragError(f"collection {s.collection!r} is empty; `crag ingest` it first")
            check_fingerprint(plan.out_dir, fingerprint(plan))
            started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            with _asker(plan, index, pipeline_overrides, log) as (asker, apart, web):
                harness = Harness(asker, index.catalog, results, language=plan.language)
                harness.progress = progress or harness.progress
                if harness.pending(plan.items, plan.modes):
                    log(
                        "loading models (one warm-up question per mode"
                        + (", each mode in a process of its own)…" if apart else ")…")
                    )
                harness.run(plan.items, plan.modes, order=plan.config.order)
        finally:
            index.close()
        records = [
            results.records[(it.id, m)]
            for it in plan.items
            for m in plan.modes
            if (it.id, m) in results.records
        ]
        c = plan.config
        loads = [r["load"] for r in records if r.get("load") is not None]
        machine = f"{os.cpu_count()} CPU cores"
        if loads:
            machine += f", 1-min load average {min(loads):.1f}–{max(loads):.1f} while asking"
            if len(loads) < len(records):
                machine += f" ({len(loads)} of {len(records)} answers recorded it)"
        summary = {
            "run": {
                "dataset": str(plan.data.path), "dataset_name": plan.data.name,
                "questions": len(plan.items), "modes": plan.modes, "seed": c.seed,
                "limit": c.limit, "split": c.split,
                "parts": sorted(c.parts) if c.parts else None,
                "unanswerable_share": c.unanswerable_share,
                "evaluator_held_out": c.evaluator_held_out, "tuning_part": c.tuning_part,
                "language": plan.language,
                "order": c.order, "near_miss": c.near_miss,
                "near_miss_questions": plan.near_miss.count if plan.near_miss else None,
                **setup(s), "web_configured": web, "process_per_mode": apart, "machine": machine,
                "started": started,
                "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            },
            "modes": summarize(records, plan.modes, web=web),
        }  # fmt: skip
        summary["files"] = {k: str(p) for k, p in write_report(summary, plan.out_dir).items()}
    return summary

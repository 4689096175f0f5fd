"""Correction benchmark: does web correction answer what the knowledge base lacks, and refuse
what nobody has? `--mode rag` vs `--mode crag` on the same questions and models.

    python -m bench.correction [--limit N] [--seed S] [--evaluator NAME] [--set KEY=VALUE ...]
    python -m bench.correction --show bench/results/correction.json   # table of a (partial) run

Data (the fixed split of `crag.datasets.nq_part`): the knowledge base is the "kb" part of
`nq-passages.jsonl`, ingested once into `<data-dir>` (default `.crag/bench/correction`; later
runs reuse it); the "web" part is served by `tests/servers/search_double.py` on 127.0.0.1 behind the
Tavily API (or `--provider searxng`); the "held_out" part is nowhere. Questions from
`nq-questions-dev.jsonl` are sampled, `--limit` per group, by where their gold passage is.

Scoring (the CRAG paper's convention for short answers): an answer is correct when it is not
a refusal and contains one of the gold answers (`crag.eval.metrics.contains_answer`: SQuAD
normalisation — case, punctuation, articles — then the gold's tokens in order).
Reported: accuracy per group and on the mixed kb+web set; on held-out questions the refusal
rate and the hallucination rate (answered without containing a gold answer — the gold passage
is in neither corpus, so such an answer rests on nothing crag was given).

`--evaluator NAME` sets `evaluate.method` (for the trained evaluator of issue 8), `--set`
any other setting (`--set evaluate.upper=0.8 --set web.top_k=5`). Partial results are written
after every question, so a run cut short still leaves its figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path
from typing import Any

from bench.common import console, machine_info, write_results
from bench.correction_score import GROUPS, answer_record, show, summarise
from crag.modes import Mode

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT / ".." / "shared" / "datasets"
KEY = "bench-correction-key"


def _parse_set(pairs: list[str]) -> dict[str, Any]:
    """`a.b=1` pairs → nested dict for load_settings (values as JSON when they parse)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep:
            raise SystemExit(f"--set {pair!r}: use KEY=VALUE, e.g. evaluate.upper=0.8")
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        node = out
        *parents, leaf = key.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    return out


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for k, v in b.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def sample_questions(path: Path, per_group: int, seed: int) -> dict[str, list[dict[str, Any]]]:
    """Questions per part, only those the trained evaluator never saw (its "test" part)."""
    from crag.datasets import evaluator_part, nq_part

    groups: dict[str, list[dict[str, Any]]] = {g: [] for g in GROUPS}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                q = json.loads(line)
                if evaluator_part(q["gold_passage"]) == "test":
                    groups[nq_part(q["gold_passage"])].append(q)
    rng = random.Random(seed)
    return {g: rng.sample(qs, min(per_group, len(qs))) for g, qs in groups.items()}


def _kb_file(passages: Path, data_dir: Path) -> Path:
    from crag.datasets import nq_part

    target = data_dir / "nq-kb.jsonl"
    if not target.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".tmp")
        with passages.open(encoding="utf-8") as src, tmp.open("w", encoding="utf-8") as out:
            for line in src:
                if line.strip() and nq_part(json.loads(line)["id"]) == "kb":
                    out.write(line if line.endswith("\n") else line + "\n")
        tmp.replace(target)
    return target


def run(args: argparse.Namespace) -> dict[str, Any]:
    from tests.servers.search_double import SearchDouble, load_nq_part

    from crag.config import load_settings
    from crag.eval.processes import ModeProcesses
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor

    data_dir = Path(args.data_dir).resolve()
    overrides = _parse_set(args.set)
    if args.evaluator:
        overrides = _merge(overrides, {"evaluate": {"method": args.evaluator}})
    questions = sample_questions(Path(args.questions), args.limit, args.seed)
    modes = args.modes.split(",")
    rows: list[dict[str, Any]] = []
    os.environ["TAVILY_API_KEY"] = KEY
    with SearchDouble(load_nq_part("web", Path(args.passages)), api_key=KEY) as double:
        web = {
            "provider": args.provider,
            "tavily_url": double.url,
            "searxng_url": double.url,
            "allow_private_addresses": True,  # the double is on 127.0.0.1
            "cache_ttl": 0,  # every question pays its own search: honest cost figures
        }
        settings = load_settings(
            **_merge(
                {
                    "data_dir": data_dir,
                    "collection": "nq-kb",
                    "llm": {"models_dir": str(args.models_dir)},
                    "web": web,
                },
                overrides,
            )
        )
        index = Index.open(settings)
        try:
            started = time.perf_counter()
            report = Ingestor(index, settings.ingest).ingest(
                [_kb_file(Path(args.passages), data_dir)]
            )
            console.print(
                f"knowledge base: {index.count()} chunks "
                f"({time.perf_counter() - started:.0f} s; {len(report.added)} files added)"
            )
            # each mode in a process of its own: no mode finds another's work in its caches
            with ModeProcesses(settings, modes) as pipeline:
                for mode in modes:
                    pipeline.ask("warm up: what is this about?", mode)
                order = [  # interleaved, so a run cut short still covers every group
                    (g, questions[g][i])
                    for i in range(args.limit)
                    for g in GROUPS
                    if i < len(questions[g])
                ]
                for k, (group, q) in enumerate(order, start=1):
                    row: dict[str, Any] = {
                        "group": group,
                        "question": q["question"],
                        "answers": q["answers"],
                        "gold": q["gold_passage"],
                    }
                    for mode in modes if k % 2 else reversed(modes):  # alternate who goes first
                        row[mode] = answer_record(
                            pipeline.ask(q["question"], mode), q["answers"], q["gold_passage"]
                        )
                    rows.append(row)
                    marks = " ".join(
                        f"{m}:{'✓' if row[m]['correct'] else ('∅' if row[m]['refused'] else '✗')}"
                        for m in modes
                    )
                    console.print(  # markup off: "[kb]" would be read as a style tag
                        f"  {k}/{len(order)} [{group}] {marks}  {q['question'][:70]}", markup=False
                    )
                    _write(args, settings, questions, rows, modes, partial=True)
        finally:
            index.close()
    return _write(args, settings, questions, rows, modes, partial=False)


def _write(
    args: argparse.Namespace,
    settings: Any,
    questions: dict[str, list[dict[str, Any]]],
    rows: list[dict[str, Any]],
    modes: list[str],
    *,
    partial: bool,
) -> dict[str, Any]:
    from crag.grading.thresholds import thresholds_for

    out = {
        "partial": partial,
        "machine": machine_info(),
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "models": {"grader": settings.llm.grader.model, "generator": settings.llm.generator.model},
        "evaluator": settings.evaluate.method,
        "thresholds": thresholds_for(
            settings.evaluate, settings.collection, settings.llm.grader.model
        ).model_dump(),
        "provider": settings.web.provider,
        "questions_per_group": {g: len(v) for g, v in questions.items()},
        "summary": summarise(rows, modes),
        "rows": rows,
    }
    write_results(args.out, out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=20, help="questions per group")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modes", default=f"{Mode.RAG},{Mode.CRAG}")
    parser.add_argument("--provider", default="tavily", choices=["tavily", "searxng"])
    parser.add_argument("--evaluator", default=None, help="evaluate.method (default: settings)")
    parser.add_argument("--set", action="append", default=[], help="KEY=VALUE setting")
    parser.add_argument("--passages", default=str(DATASETS / "nq-passages.jsonl"))
    parser.add_argument("--questions", default=str(DATASETS / "nq-questions-dev.jsonl"))
    parser.add_argument("--data-dir", default=str(ROOT / ".crag" / "bench" / "correction"))
    parser.add_argument("--models-dir", default=str(ROOT / ".crag" / "models"))
    parser.add_argument("--out", default="correction")
    parser.add_argument("--show", default=None, help="print the table of a results JSON, only")
    args = parser.parse_args(argv)
    if args.show:
        show(json.loads(Path(args.show).read_text(encoding="utf-8")))
        return 0
    out = run(args)
    show(out)
    console.print(f"wrote {write_results(args.out, out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

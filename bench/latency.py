"""Latency benchmark: per-stage p50/p95 of `--mode rag` vs `--mode crag`, same questions/models.

    python -m bench.latency [--questions N] [--seed S] [--out PATH]

N seeded questions (from the evaluator's held-out "test" part) are asked in each mode, each
mode in a process of its own (rag first, then crag), as a user's `crag serve` answering in one
mode would: in one process the second mode found the first one's work on the same question
cached — the reranker's scores, and llama.cpp's prompt cache (`cache_ram_mib`), which kept
rag's computed instructions *and the chunk text its strips start with* — and was timed about
1.3x to 2x faster than on its own (2026-11-29: crag p50 ×0.57 of rag's alternating in one
process, ×1.00 in processes of their own). Each process indexes the SQuAD dev subset, loads
and warms its models (one throw-away question), then times its questions. Stage times come
from the answer's trace (`trace.stages_ms`), totals from `trace.total_ms`; model calls and
tokens are summed per mode. `--only MODE` runs one mode in this process (what each of the
two processes runs).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common import console, machine_info, percentile, print_table, write_results
from crag.modes import Mode

SQUAD = Path(__file__).resolve().parents[1].parent / "shared/datasets/squad-en-dev-subset.json"
STAGES = ["retrieve", "rerank", "evaluate", "escalate", "refine", "web_search", "generate", "total"]


def run_mode(args: argparse.Namespace, mode: Mode) -> dict[str, Any]:
    """Time `mode` alone in this process: its stage lists, call counts, verdicts, refusals."""
    from crag.config import default_data_dir, load_settings
    from crag.grading.training.data import load_squad, sample
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor
    from crag.pipeline import build_pipeline

    # held-out questions: the trained evaluator never saw their paragraphs
    items = sample(load_squad(SQUAD, "test"), args.questions, args.seed)
    per: dict[str, list[float]] = {s: [] for s in STAGES}
    calls = {"calls": 0.0, "prompt": 0.0, "completion": 0.0}
    verdicts: dict[str, int] = {}
    refused = 0
    with tempfile.TemporaryDirectory(prefix="crag-bench-lat-", ignore_cleanup_errors=True) as tmp:
        settings = load_settings(data_dir=Path(tmp), collection="latency")
        # assembled models are shared with the user's data dir, not rebuilt per run
        settings.llm.models_dir = Path(args.models_dir or default_data_dir() / "models")
        index = Index.open(settings)
        try:
            console.print(f"{mode.value}: indexing the SQuAD dev subset")
            Ingestor(index, settings.ingest).ingest([SQUAD])
            pipeline = build_pipeline(settings, index)
            pipeline.ask("warm up: what is this about?", mode)
            for i, item in enumerate(items):
                answer = pipeline.ask(item.question, mode)
                t = answer.trace
                for stage in STAGES[:-1]:
                    if stage in t.stages_ms:
                        per[stage].append(t.stages_ms[stage])
                per["total"].append(t.total_ms)
                calls["calls"] += len(t.calls)
                calls["prompt"] += sum(c.prompt_tokens for c in t.calls)
                calls["completion"] += sum(c.completion_tokens for c in t.calls)
                refused += answer.refused
                if answer.verdict:
                    verdicts[answer.verdict.value] = verdicts.get(answer.verdict.value, 0) + 1
                console.print(f"  {mode.value} {i + 1}/{len(items)} questions")
        finally:
            index.close()
    n = max(1, len(items))
    return {
        "questions": len(items),
        "models": {"grader": settings.llm.grader.model, "generator": settings.llm.generator.model},
        "per": per,
        "calls_per_question": {k: v / n for k, v in calls.items()},
        "verdicts": verdicts,
        "refused": refused,
        "loadavg": list(os.getloadavg()),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Each mode in a new process of its own, one after the other; their figures combined."""
    parts: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="crag-bench-lat-out-") as tmp:
        for mode in (Mode.RAG, Mode.CRAG):
            target = Path(tmp) / f"{mode.value}.json"
            command = [sys.executable, "-m", "bench.latency", "--only", mode.value,
                       "--questions", str(args.questions), "--seed", str(args.seed),
                       "--out", str(target)]  # fmt: skip
            if args.models_dir:
                command += ["--models-dir", args.models_dir]
            subprocess.run(command, check=True, cwd=Path(__file__).resolve().parents[1])
            parts[mode.value] = json.loads(target.read_text())
    stats = {
        mode: {
            stage: {"n": len(v), "p50_ms": percentile(v, 50), "p95_ms": percentile(v, 95)}
            for stage, v in part["per"].items()
            if v
        }
        for mode, part in parts.items()
    }
    return {
        "machine": machine_info(),
        "loadavg_after": {mode: part["loadavg"] for mode, part in parts.items()},
        "questions": parts["crag"]["questions"],
        "models": parts["crag"]["models"],
        "stages": stats,
        "ratio_crag_rag_p50": stats["crag"]["total"]["p50_ms"] / stats["rag"]["total"]["p50_ms"],
        "ratio_crag_rag_p95": stats["crag"]["total"]["p95_ms"] / stats["rag"]["total"]["p95_ms"],
        "calls_per_question": {mode: part["calls_per_question"] for mode, part in parts.items()},
        "crag_verdicts": parts["crag"]["verdicts"],
        "refused": {mode: part["refused"] for mode, part in parts.items()},
    }


def show(out: dict[str, Any]) -> None:
    rows = []
    for stage in STAGES:
        cells = [stage]
        for mode in (Mode.RAG, Mode.CRAG):
            s = out["stages"][mode].get(stage)
            cells += [f"{s['p50_ms']:.0f}", f"{s['p95_ms']:.0f}"] if s else ["–", "–"]
        rows.append(cells)
    print_table(
        f"Latency per stage, {out['questions']} SQuAD questions (grader {out['models']['grader']}, "
        f"generator {out['models']['generator']})",
        ["stage", "rag p50 ms", "rag p95 ms", "crag p50 ms", "crag p95 ms"],
        rows,
        caption=(
            f"crag/rag total: p50 ×{out['ratio_crag_rag_p50']:.2f}, "
            f"p95 ×{out['ratio_crag_rag_p95']:.2f}; "
            f"calls/question {out['calls_per_question']}; verdicts {out['crag_verdicts']}; "
            f"refused {out['refused']}"
        ),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models-dir", default=None, help="where packaged GGUFs are assembled")
    parser.add_argument("--out", default="latency")
    parser.add_argument("--only", choices=["rag", "crag"], help="time one mode in this process")
    args = parser.parse_args(argv)
    if args.only:
        Path(args.out).write_text(json.dumps(run_mode(args, Mode(args.only))))
        return 0
    out = run(args)
    show(out)
    console.print(f"wrote {write_results(args.out, out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

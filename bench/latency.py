"""Latency benchmark: per-stage p50/p95 of `--mode rag` vs `--mode crag`, same questions/models.

    python -m bench.latency [--questions N] [--seed S] [--out PATH]

The SQuAD dev subset is indexed once; N seeded questions (from the evaluator's held-out "test"
part) are asked in both modes, alternating
(rag, crag, rag, crag, ...) so background load hits both alike. Models are loaded and warmed
up (one throw-away question) before timing. Stage times come from the answer's trace
(`trace.stages_ms`), totals from `trace.total_ms`; model calls and tokens are summed per mode.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from bench.common import console, machine_info, percentile, print_table, write_results
from crag.modes import Mode

SQUAD = Path(__file__).resolve().parents[1].parent / "shared/datasets/squad-en-dev-subset.json"
STAGES = ["retrieve", "rerank", "evaluate", "escalate", "refine", "web_search", "generate", "total"]


def run(args: argparse.Namespace) -> dict[str, Any]:
    from crag.config import default_data_dir, load_settings
    from crag.grading.training.data import load_squad, sample
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor
    from crag.pipeline import build_pipeline

    # held-out questions: the trained evaluator never saw their paragraphs
    items = sample(load_squad(SQUAD, "test"), args.questions, args.seed)
    with tempfile.TemporaryDirectory(prefix="crag-bench-lat-", ignore_cleanup_errors=True) as tmp:
        settings = load_settings(data_dir=Path(tmp), collection="latency")
        # assembled models are shared with the user's data dir, not rebuilt per run
        settings.llm.models_dir = Path(args.models_dir or default_data_dir() / "models")
        index = Index.open(settings)
        try:
            console.print("indexing the SQuAD dev subset")
            Ingestor(index, settings.ingest).ingest([SQUAD])
            pipeline = build_pipeline(settings, index)
            pipeline.ask("warm up: what is this about?", Mode.CRAG)
            per: dict[str, dict[str, list[float]]] = {
                m: {s: [] for s in STAGES} for m in (Mode.RAG, Mode.CRAG)
            }
            calls: dict[str, dict[str, float]] = {
                m: {"calls": 0, "prompt": 0, "completion": 0} for m in per
            }
            verdicts: dict[str, int] = {}
            refused = {"rag": 0, "crag": 0}
            for i, item in enumerate(items):
                for mode in (Mode.RAG, Mode.CRAG):
                    answer = pipeline.ask(item.question, mode)  # type: ignore[arg-type]
                    t = answer.trace
                    for stage in STAGES[:-1]:
                        if stage in t.stages_ms:
                            per[mode][stage].append(t.stages_ms[stage])
                    per[mode]["total"].append(t.total_ms)
                    calls[mode]["calls"] += len(t.calls)
                    calls[mode]["prompt"] += sum(c.prompt_tokens for c in t.calls)
                    calls[mode]["completion"] += sum(c.completion_tokens for c in t.calls)
                    refused[mode] += answer.refused
                    if mode == Mode.CRAG and answer.verdict:
                        verdicts[answer.verdict.value] = verdicts.get(answer.verdict.value, 0) + 1
                console.print(f"  {i + 1}/{len(items)} questions")
        finally:
            index.close()
    stats = {
        mode: {
            stage: {"n": len(v), "p50_ms": percentile(v, 50), "p95_ms": percentile(v, 95)}
            for stage, v in stages.items()
            if v
        }
        for mode, stages in per.items()
    }
    n = max(1, len(items))
    return {
        "machine": machine_info(),
        "questions": len(items),
        "models": {"grader": settings.llm.grader.model, "generator": settings.llm.generator.model},
        "stages": stats,
        "ratio_crag_rag_p50": stats["crag"]["total"]["p50_ms"] / stats["rag"]["total"]["p50_ms"],
        "ratio_crag_rag_p95": stats["crag"]["total"]["p95_ms"] / stats["rag"]["total"]["p95_ms"],
        "calls_per_question": {m: {k: v / n for k, v in c.items()} for m, c in calls.items()},
        "crag_verdicts": verdicts,
        "refused": refused,
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
    args = parser.parse_args(argv)
    out = run(args)
    show(out)
    console.print(f"wrote {write_results(args.out, out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

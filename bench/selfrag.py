"""Self-RAG benchmark: rag vs crag vs self-crag on answerable, unanswerable and false-premise
questions, English and Turkish, over a few SQuAD articles (`tests/support/selfrag_questions.py`).

    python -m bench.selfrag [--limit N] [--modes rag,crag,self-crag] [--reflect auto|always]
    python -m bench.selfrag --show bench/results/selfrag.json   # the table of a (partial) run
    python -m bench.selfrag --show bench/results/selfrag-{rag,crag,self}.json  # runs side by side

Each language gets its own collection (English: the default MiniLM and English stemmer;
Turkish: use-multilingual and the Turkish stemmer, as `crag eval` chooses), ingested once
into `--data-dir` and reused. No web search is configured: the KB is all there is, so a
question it cannot answer must be refused.

Scoring, per question and mode (crag.eval.metrics.contains_answer, the CRAG paper's rule):
- answerable: **correct** = not refused and a gold answer is contained; **over-refused** =
  refused;
- unanswerable: **declined** (refused, or said the sources do not say / do not answer it) is
  right; anything else is a **hallucination**;
- false premise: **detected** = refused, or a sentence saying the sources do not say / do not
  support it, or self-crag's "do not answer this question as asked" caveat (`premise_caught`);
  anything else went along with the premise.
Latency is the pipeline's wall time per question. Each mode answers in a process of its own
(`crag.eval.processes`, as `crag eval` does): llama.cpp keeps earlier prompts in a RAM cache,
so a mode run after another in the same process would find the shared prompts (self-crag
repeats crag's up to the answer) already computed. Partial results are written after every
question, so a run cut short still leaves its figures.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from tests.support.selfrag_questions import LANGUAGES, SelfRagQuestion, kb_documents, load_questions

from bench.common import console, machine_info, print_table, write_results
from crag.modes import Mode

ROOT = Path(__file__).resolve().parents[1]
MODES = (Mode.RAG, Mode.CRAG, Mode.SELF_CRAG)


def premise_caught(answer: Any) -> bool:
    """Refused, or says (in a sentence of its own) that the sources do not support it."""
    from crag.refine.sentences import sentences
    from crag.reflect import is_refusal

    return answer.refused or any(is_refusal(s) for s in sentences(answer.text))


def score(q: SelfRagQuestion, answer: Any) -> dict[str, Any]:
    from crag.eval.metrics import contains_answer

    t = answer.trace
    contained = contains_answer(answer.text, q.answers, q.language) if q.answers else False
    reflection = t.reflection
    return {
        "answer": answer.text,
        "refused": answer.refused,
        "correct": q.kind == "answerable" and not answer.refused and contained,
        "caught": premise_caught(answer),  # declined: refused, or said the sources do not say
        "verdict": answer.verdict.value if answer.verdict else None,
        "citations": len(answer.citations),
        "total_ms": round(t.total_ms),
        "stages_ms": {k: round(v) for k, v in t.stages_ms.items()},
        "calls": len(t.calls),
        "generations": sum(c.purpose == "generate" for c in t.calls),
        "reflected": reflection is not None and reflection.ran,
        "rounds": len(reflection.rounds) if reflection else 0,
        "final": reflection.final or None if reflection else None,
        "flags": list(answer.flags),
    }


def _rate(items: list[dict[str, Any]], key: str) -> float | None:
    return sum(bool(i[key]) for i in items) / len(items) if items else None


def summarise(rows: list[dict[str, Any]], modes: list[str]) -> dict[str, Any]:
    from crag.eval.metrics import percentile

    out: dict[str, Any] = {}
    for mode in modes:
        done = [r for r in rows if mode in r]
        if not done:
            continue
        by = {k: [r[mode] for r in done if r["kind"] == k] for k in
              ("answerable", "unanswerable", "false_premise")}  # fmt: skip
        times = [r[mode]["total_ms"] / 1000 for r in done]
        out[mode] = {
            "n": len(done),
            "accuracy": _rate(by["answerable"], "correct"),
            "accuracy_en": _rate(
                [r[mode] for r in done if r["id"].startswith("en-ans")], "correct"
            ),
            "accuracy_tr": _rate(
                [r[mode] for r in done if r["id"].startswith("tr-ans")], "correct"
            ),
            "over_refusal": _rate(by["answerable"], "refused"),
            "unanswerable_declined": _rate(by["unanswerable"], "caught"),
            "false_premise_caught": _rate(by["false_premise"], "caught"),
            "reflected": _rate([r[mode] for r in done], "reflected")
            if mode == Mode.SELF_CRAG
            else None,
            "p50_s": percentile(times, 50) if times else None,
            "p95_s": percentile(times, 95) if times else None,
            "mean_s": sum(times) / len(times) if times else None,
        }
    return out


def show(result: dict[str, Any]) -> None:
    s = result["summary"]
    modes = list(s)

    def pct(v: float | None) -> str:
        return "–" if v is None else f"{100 * v:.0f} %"

    def sec(v: float | None) -> str:
        return "–" if v is None else f"{v:.1f}"

    lines = [
        ("questions", *(str(s[m]["n"]) for m in modes)),
        ("answerable: accuracy", *(pct(s[m]["accuracy"]) for m in modes)),
        ("  English", *(pct(s[m]["accuracy_en"]) for m in modes)),
        ("  Turkish", *(pct(s[m]["accuracy_tr"]) for m in modes)),
        ("answerable: refused (over-refusal)", *(pct(s[m]["over_refusal"]) for m in modes)),
        ("unanswerable: declined", *(pct(s[m]["unanswerable_declined"]) for m in modes)),
        ("false premise: caught", *(pct(s[m]["false_premise_caught"]) for m in modes)),
        ("reflection ran", *(pct(s[m]["reflected"]) for m in modes)),
        ("latency p50 s", *(sec(s[m]["p50_s"]) for m in modes)),
        ("latency p95 s", *(sec(s[m]["p95_s"]) for m in modes)),
    ]
    print_table("Self-RAG benchmark", ("", *modes), lines, caption=result.get("caption"))


def merge(paths: list[Path]) -> dict[str, Any]:
    """Results files of separate runs (one process per mode) as one result, rows by id."""
    import json

    rows: dict[str, dict[str, Any]] = {}
    modes: list[str] = []
    for path in paths:
        data = json.loads(path.read_text())
        modes += [m for m in data["modes"] if m not in modes]
        for row in data["rows"]:
            rows.setdefault(row["id"], {}).update(row)
    merged = list(rows.values())
    caption = f"{len(merged)} questions; {', '.join(p.name for p in paths)}"
    return {"modes": modes, "rows": merged, "summary": summarise(merged, modes), "caption": caption}


def _index(language: str, data_dir: Path, models_dir: Path) -> tuple[Any, Any]:
    """(settings, index) of the language's collection, ingested on first use."""
    from crag.config import load_settings
    from crag.eval.kb import language_settings
    from crag.index.store import Index, PreparedSource
    from crag.ingest.chunking import Chunker

    base = load_settings(
        data_dir=data_dir, collection=f"selfrag-{language}", llm={"models_dir": str(models_dir)}
    )
    settings, _ = language_settings(base, language)
    index = Index.open(settings)
    if index.count() == 0:
        started = time.perf_counter()
        docs = kb_documents((language,))
        chunks = Chunker(settings.ingest.chunk_size, settings.ingest.chunk_overlap).split_all(docs)
        index.write([PreparedSource(f"selfrag-kb-{language}", "-", chunks)])
        console.print(f"{language}: {len(docs)} paragraphs, {index.count()} chunks indexed in "
                      f"{time.perf_counter() - started:.0f} s")  # fmt: skip
    return settings, index


def run(args: argparse.Namespace) -> dict[str, Any]:
    from crag.eval.processes import ModeProcesses

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    questions = load_questions()
    if args.limit:
        picked: list[SelfRagQuestion] = []
        for lang in LANGUAGES:
            for kind in ("answerable", "unanswerable", "false_premise"):
                picked += [q for q in questions if (q.language, q.kind) == (lang, kind)][
                    : args.limit
                ]
        questions = picked
    questions = [q for q in questions if q.language in args.languages.split(",")]
    rows = [{"id": q.id, "kind": q.kind, "question": q.question} for q in questions]
    result: dict[str, Any] = {"machine": machine_info(), "modes": modes, "rows": rows,
                              "reflect": args.reflect}  # fmt: skip
    # Each mode in a process of its own (crag.eval.processes): self-crag repeats crag's
    # prompts, and llama.cpp's prompt cache would otherwise hand it crag's work for free.
    for language in dict.fromkeys(q.language for q in questions):
        settings, index = _index(language, Path(args.data_dir).resolve(), Path(args.models_dir))
        settings.pipeline.reflect = args.reflect
        index.close()  # written: the modes' processes read it
        with ModeProcesses(settings, modes) as pipeline:
            for mode in modes:
                for q, row in zip(questions, rows, strict=True):
                    if q.language != language:
                        continue
                    row[mode] = score(q, pipeline.ask(q.question, mode))  # type: ignore[arg-type]
                    ok = row[mode]["correct"] if q.kind == "answerable" else row[mode]["caught"]
                    seconds = row[mode]["total_ms"] / 1000
                    mark = "✓" if ok else "✗"
                    console.print(f"{mode:<9} {q.id:<10} {mark} {seconds:.0f}s", highlight=False)
                    result["summary"] = summarise(rows, modes)
                    write_results(args.out, result)
    result["summary"] = summarise(rows, modes)
    result["caption"] = (
        f"{len(rows)} questions, reflect={args.reflect}; correct = gold contained and not "
        "refused; caught = refused or says the sources do not support it"
    )
    write_results(args.out, result)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--limit", type=int, default=0, help="questions per (language, kind); 0: all")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--languages", default="en,tr")
    ap.add_argument("--reflect", default="auto", choices=("auto", "always"))
    ap.add_argument("--data-dir", default=str(ROOT / ".crag" / "bench" / "selfrag"))
    ap.add_argument("--models-dir", default=str(ROOT / ".crag" / "models"))
    ap.add_argument("--out", default="selfrag")
    ap.add_argument(
        "--show",
        type=Path,
        nargs="+",
        help="print the table of results files (one per mode: merged by question) and exit",
    )
    args = ap.parse_args()
    if args.show:
        show(merge(args.show))
        return
    show(run(args))


if __name__ == "__main__":
    main()

"""Retrieval-evaluator benchmark: is the LLM judge right, and where should the thresholds sit?

    python -m bench.evaluator [--questions N] [--model qwen2.5-coder-0.5b] [--concurrency C]
    python -m bench.evaluator --judge structured          # yes/no JSON replies, no logprobs
    python -m bench.evaluator --spec ollama:gemma3:27b --base-url http://127.0.0.1:11434

Labelled pairs, as the CRAG paper builds them: for each sampled question we retrieve the top
`--top` chunks with crag's own hybrid retrieval; a chunk of the gold paragraph/passage is a
positive, every other hit a negative ("hard" negatives: on-topic, but not the answer); when the
gold is not among the hits, its paragraph is added as a positive. Every pair is scored by the
judge. Reported: ROC-AUC, accuracy at 0.5 and at the best cut, pairs/s.

Verdicts: questions from SQuAD and NQ are asked against the index; for NQ, half of the sampled
questions have their gold passage left out of the index (their answer is not in the knowledge
base). A question's truth is "answerable" when one of its retrieved chunks contains a gold
answer string. The action trigger's verdicts are tabulated against that truth for the
thresholds chosen here:
- upper: the lowest score at which at least 80% of pairs are positives (a CORRECT verdict
  should rarely rest on a wrong passage);
- lower: the highest score below which at most 10% of positives fall (INCORRECT must not
  throw away answerable retrievals).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import console, machine_info, print_table, write_results

DATASETS = Path("/work/shared/datasets")
SQUAD = DATASETS / "squad-en-dev-subset.json"
NQ_PASSAGES = DATASETS / "nq-passages.jsonl"
NQ_QUESTIONS = DATASETS / "nq-questions-dev.jsonl"


@dataclass(slots=True)
class Item:
    question: str
    gold: str  # doc_id of the gold unit
    gold_text: str
    answers: list[str]
    in_kb: bool = True
    scores: list[float] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    answerable: bool = False


def load_squad(n: int, rng: random.Random) -> tuple[Path, list[Item]]:
    raw = json.loads(SQUAD.read_text(encoding="utf-8"))
    items = []
    for a_idx, article in enumerate(raw["data"]):
        title = str(article.get("title") or f"article {a_idx}").replace("_", " ")
        for p_idx, para in enumerate(article["paragraphs"]):
            for qa in para.get("qas", []):
                answers = [a["text"] for a in qa.get("answers", [])]
                items.append(Item(qa["question"], f"{title}#{p_idx}", para["context"], answers))
    return SQUAD, rng.sample(items, n)


def load_nq(n: int, rng: random.Random, work: Path, kb_size: int) -> tuple[Path, list[Item]]:
    records = [json.loads(x) for x in NQ_PASSAGES.open(encoding="utf-8") if x.strip()]
    by_id = {r["id"]: r for r in records}
    questions = [json.loads(x) for x in NQ_QUESTIONS.open(encoding="utf-8") if x.strip()]
    questions = [q for q in questions if q["gold_passage"] in by_id]
    sample = rng.sample(questions, n)
    items = []
    keep: set[str] = set()
    for i, q in enumerate(sample):
        in_kb = i % 2 == 0
        answers = q.get("answers") or q.get("short_answers") or []
        items.append(
            Item(q["question"], q["gold_passage"], by_id[q["gold_passage"]]["text"], answers, in_kb)
        )
        if in_kb:
            keep.add(q["gold_passage"])
    excluded = {it.gold for it in items if not it.in_kb}
    others = [r["id"] for r in records if r["id"] not in keep and r["id"] not in excluded]
    keep.update(rng.sample(others, max(0, kb_size - len(keep))))
    corpus = work / "nq-kb.jsonl"
    with corpus.open("w", encoding="utf-8") as out:
        for r in records:
            if r["id"] in keep:
                out.write(json.dumps(r, ensure_ascii=False) + "\n")
    return corpus, items


def roc_auc(scores: list[float], labels: list[int]) -> float:
    """Probability a random positive outscores a random negative (ties count half)."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return wins / (len(pos) * len(neg))


def accuracy(scores: list[float], labels: list[int], cut: float) -> float:
    return sum((s >= cut) == bool(y) for s, y in zip(scores, labels, strict=True)) / len(labels)


def choose_thresholds(scores: list[float], labels: list[int]) -> tuple[float, float]:
    cuts = sorted(set(scores))
    upper = 1.0
    for cut in cuts:  # lowest cut whose "score >= cut" set is >= 80% positive
        picked = [y for s, y in zip(scores, labels, strict=True) if s >= cut]
        if picked and sum(picked) / len(picked) >= 0.8:
            upper = cut
            break
    pos = sorted(s for s, y in zip(scores, labels, strict=True) if y)
    lower = pos[int(0.10 * len(pos))] if pos else 0.0
    lower = min(lower, upper)
    return round(upper, 3), round(lower, 3)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from crag.config import default_data_dir, load_settings
    from crag.evaluate import ActionTrigger, LLMJudge
    from crag.index.retriever import HybridRetriever
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor
    from crag.models.llm import LlamaCppLLM

    rng = random.Random(args.seed)
    models_dir = load_settings().llm.models_dir or default_data_dir() / "models"
    if args.spec:  # any provider: PROVIDER:MODEL (+ --base-url), as in CRAG_GRADER
        from crag.config import LLMRoleSettings
        from crag.models.llm.registry import create

        role = LLMRoleSettings.model_validate(args.spec)
        role = role.model_copy(update={"base_url": args.base_url, "parallel": args.concurrency})
        llm: Any = create(role, models_dir)
        args.model = f"{role.provider}:{role.model}"
    else:
        llm = LlamaCppLLM(args.model, models_dir=models_dir, parallel=max(1, args.concurrency))
        llm.load()
    judge = LLMJudge(llm, concurrency=args.concurrency, logprobs=args.judge != "structured")
    out: dict[str, Any] = {
        "machine": machine_info(), "model": args.model, "judge": args.judge, "datasets": {}
    }  # fmt: skip
    all_items: list[Item] = []
    judge_seconds = 0.0
    pairs = 0
    with tempfile.TemporaryDirectory(prefix="crag-bench-eval-", ignore_cleanup_errors=True) as tmp:
        work = Path(tmp)
        for name in args.datasets.split(","):
            if name == "squad":
                corpus, items = load_squad(args.questions, rng)
            else:
                corpus, items = load_nq(args.questions, rng, work, args.nq_kb)
            settings = load_settings(data_dir=work / name, collection=f"eval-{name}")
            index = Index.open(settings)
            try:
                console.print(f"{name}: indexing {corpus.name}")
                Ingestor(index, settings.ingest).ingest([corpus])
                retriever = HybridRetriever(index, settings.retrieval)
                for i, item in enumerate(items):
                    hits = retriever.search(item.question, k=args.top)
                    texts = [h.chunk.text for h in hits]
                    labels = [int(h.chunk.doc_id == item.gold) for h in hits]
                    if item.in_kb and not any(labels):
                        texts.append(item.gold_text)
                        labels.append(1)
                    t0 = time.perf_counter()
                    item.scores = judge.score(item.question, texts)
                    judge_seconds += time.perf_counter() - t0
                    pairs += len(texts)
                    item.labels = labels
                    lowered = [t.lower() for t in texts[: len(hits)]]
                    item.answerable = any(
                        a.lower() in t for a in item.answers for t in lowered if a.strip()
                    )
                    if (i + 1) % 10 == 0:
                        console.print(f"  {name}: {i + 1}/{len(items)} questions judged")
            finally:
                index.close()
            all_items.extend(items)
            s = [0.5 if math.isnan(x) else x for it in items for x in it.scores]
            y = [x for it in items for x in it.labels]
            out["datasets"][name] = {
                "questions": len(items),
                "pairs": len(s),
                "positives": sum(y),
                "roc_auc": roc_auc(s, y),
                "accuracy@0.5": accuracy(s, y, 0.5),
            }
    scores = [x for it in all_items for x in it.scores]
    labels = [x for it in all_items for x in it.labels]
    unknown = sum(1 for x in scores if math.isnan(x))
    scores = [0.5 if math.isnan(x) else x for x in scores]  # metrics only; reported below
    upper, lower = choose_thresholds(scores, labels)
    if args.upper is not None:
        upper, lower = args.upper, args.lower
    trigger = ActionTrigger(upper=upper, lower=lower)
    matrix: dict[str, dict[str, int]] = {
        t: {"correct": 0, "ambiguous": 0, "incorrect": 0} for t in ("answerable", "unanswerable")
    }
    for it in all_items:
        hit_scores = it.scores[: len(it.scores) - (1 if len(it.labels) > args.top else 0)]
        verdict = trigger.decide(hit_scores)
        matrix["answerable" if it.answerable else "unanswerable"][verdict.value] += 1
    best_cut = max(sorted(set(scores)), key=lambda c: accuracy(scores, labels, c))
    out.update(
        {
            "pairs": len(scores),
            "pairs_per_second": len(scores) / judge_seconds if judge_seconds else None,
            "roc_auc": roc_auc(scores, labels),
            "accuracy@0.5": accuracy(scores, labels, 0.5),
            "best_cut": best_cut,
            "accuracy@best": accuracy(scores, labels, best_cut),
            "thresholds": {"upper": upper, "lower": lower, "rule": __doc__.split("- upper")[1]},
            "verdicts": matrix,
            "concurrency": args.concurrency,
            "unknown_pairs": unknown,
            "uses_logprobs": judge.uses_logprobs,
        }
    )
    return out


def show(out: dict[str, Any]) -> None:
    rows = [
        (
            n,
            d["questions"],
            d["pairs"],
            d["positives"],
            f"{d['roc_auc']:.3f}",
            f"{d['accuracy@0.5']:.3f}",
        )
        for n, d in out["datasets"].items()
    ]
    rows.append(
        ("all", "", out["pairs"], "", f"{out['roc_auc']:.3f}", f"{out['accuracy@0.5']:.3f}")
    )
    print_table(
        f"LLM judge ({out['model']}, {out['judge']}, logprobs used: {out['uses_logprobs']}): "
        f"{out['pairs_per_second']:.2f} pairs/s, concurrency {out['concurrency']}, "
        f"{out['unknown_pairs']} pairs unscored",
        ["dataset", "questions", "pairs", "positives", "ROC-AUC", "acc@0.5"],
        rows,
    )
    th = out["thresholds"]
    print_table(
        f"Action trigger verdicts (upper={th['upper']}, lower={th['lower']}); "
        f"best single cut {out['best_cut']:.3f} → acc {out['accuracy@best']:.3f}",
        ["truth", "correct", "ambiguous", "incorrect"],
        [(t, *m.values()) for t, m in out["verdicts"].items()],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="squad,nq")
    parser.add_argument("--questions", type=int, default=40, help="per dataset")
    parser.add_argument("--top", type=int, default=5, help="hits judged per question")
    parser.add_argument("--nq-kb", type=int, default=1500, help="NQ passages in the index")
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument(
        "--judge", choices=["auto", "structured"], default="auto",
        help="auto: log-probabilities when the provider returns them; structured: JSON yes/no",
    )  # fmt: skip
    parser.add_argument("--spec", default=None, help="PROVIDER:MODEL, e.g. ollama:gemma3:27b")
    parser.add_argument("--base-url", default=None, help="server URL for --spec")
    parser.add_argument("--upper", type=float, default=None, help="fix thresholds instead")
    parser.add_argument("--lower", type=float, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="evaluator")
    args = parser.parse_args(argv)
    out = run(args)
    show(out)
    path = write_results(args.out, out)
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

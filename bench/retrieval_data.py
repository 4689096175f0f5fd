"""The question sets `bench.retrieval` (and the scale and backend benches) measure on: SQuAD-en,
an NQ subset whose index holds the sampled questions' gold passages, and SQuAD-TR, each
question paired with the doc_id of its gold paragraph or passage."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "DATASETS_DIR",
    "NQ_PASSAGES",
    "NQ_QUESTIONS",
    "SQUAD_PATH",
    "SQUAD_TR_PATH",
    "TURKISH_SETTINGS",
    "Question",
    "nq_subset",
    "squad_questions",
    "squad_tr_questions",
]

DATASETS_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
SQUAD_PATH = DATASETS_DIR / "squad-en-dev-subset.json"
NQ_PASSAGES = DATASETS_DIR / "nq-passages.jsonl"
NQ_QUESTIONS = DATASETS_DIR / "nq-questions-dev.jsonl"
SQUAD_TR_PATH = DATASETS_DIR / "squad-tr-dev-v1.0.0.json.gz"
# How a Turkish knowledge base is set up (README, "Configuration"): a multilingual embedder
# and Turkish stemming for the keyword index.
TURKISH_SETTINGS: dict[str, Any] = {
    "embedding": {"model": "use-multilingual"},
    "keyword": {"language": "turkish"},
}


@dataclass(slots=True)
class Question:
    text: str
    gold: str  # doc_id of the gold paragraph / passage


# -- datasets ---------------------------------------------------------------------------
def squad_questions(
    path: Path, n: int, seed: int, part: str | None = None
) -> tuple[list[Question], dict[str, Any]]:
    """(question, `title#paragraph_index`) pairs, the doc_id crag's SQuAD loader gives."""
    from crag.datasets import evaluator_part, squad_unit_id

    raw = json.loads(path.read_text(encoding="utf-8"))
    pairs: list[Question] = []
    paragraphs = 0
    for a_idx, article in enumerate(raw["data"]):
        for p_idx, para in enumerate(article["paragraphs"]):
            paragraphs += 1
            if part and evaluator_part(para["context"]) != part:
                continue
            for qa in para.get("qas", []):
                pairs.append(
                    Question(qa["question"], squad_unit_id(article.get("title"), a_idx, p_idx))
                )
    total = len(pairs)
    sample = random.Random(seed).sample(pairs, min(n, total)) if n > 0 else pairs
    info = {
        "file": str(path),
        "file_bytes": path.stat().st_size,
        "articles": len(raw["data"]),
        "paragraphs": paragraphs,
        "questions_total": total,
    }
    return sample, info


def nq_subset(
    passages: Path,
    questions: Path,
    workdir: Path,
    limit: int,
    n: int,
    seed: int,
    part: str | None = None,
) -> tuple[Path, list[Question], dict[str, Any]]:
    """Sample questions (seeded); index their gold passages plus random others, `limit` in all.

    `limit <= 0` (or at least the whole file) indexes the full passage file unchanged.
    """
    records = [json.loads(line) for line in passages.open(encoding="utf-8") if line.strip()]
    by_id = {r["id"]: r for r in records}
    from crag.datasets.splits import evaluator_part

    all_qs = [json.loads(line) for line in questions.open(encoding="utf-8") if line.strip()]
    if part:
        all_qs = [q for q in all_qs if evaluator_part(q["gold_passage"]) == part]
    rng = random.Random(seed)
    order = list(range(len(all_qs)))
    rng.shuffle(order)
    sampled = [all_qs[i] for i in order[: n if n > 0 else len(order)]]
    sampled = [q for q in sampled if q["gold_passage"] in by_id]

    keep: set[str] = set()
    if limit <= 0 or limit >= len(records):
        corpus = passages
        keep.update(by_id)
    else:
        for q in sampled:  # golds of the first sampled questions, while they fit
            if q["gold_passage"] in keep:
                continue
            if len(keep) >= limit:
                break
            keep.add(q["gold_passage"])
        others = [r["id"] for r in records if r["id"] not in keep]
        keep.update(rng.sample(others, limit - len(keep)))
        corpus = workdir / f"nq-passages-subset-{limit}.jsonl"
        with corpus.open("w", encoding="utf-8") as out:
            for r in records:  # original file order
                if r["id"] in keep:
                    out.write(json.dumps(r, ensure_ascii=False) + "\n")
    evaluated = [
        Question(q["question"], q["gold_passage"]) for q in sampled if q["gold_passage"] in keep
    ]
    info = {
        "file": str(passages),
        "questions_file": str(questions),
        "corpus_file": str(corpus) if corpus != passages else str(passages),
        "corpus_file_bytes": corpus.stat().st_size,
        "passages_total": len(records),
        "passages_indexed": len(keep),
        "nq_limit": limit,
        "subset_rule": (
            "full file"
            if corpus == passages
            else "gold passages of the seeded question sample, then seeded random others"
        ),
        "questions_total": len(all_qs),
    }
    return corpus, evaluated, info


def squad_tr_questions(
    path: Path, n: int, seed: int, part: str | None = None
) -> tuple[list[Question], dict[str, Any]]:
    """SQuAD-TR's answerable questions, gold = the paragraph's doc_id. With `part` (reranking),
    questions whose English original is in another evaluator part of the English subset are
    dropped (SQuAD-TR keeps SQuAD's question ids; the reranker was trained on the English train
    part); those whose original is not in the subset at all stay, as in bench/evaluator.py."""
    from crag.grading.training.data import load_squad, squad_ids

    qs = load_squad(path, name="squad-tr")
    total = len(qs)
    if part:
        others = {"train", "calibrate", "test"} - {part}
        excluded = set().union(*(squad_ids(SQUAD_PATH, o) for o in others))  # type: ignore[arg-type]
        qs = [q for q in qs if q.qid not in excluded]
    pairs = [Question(q.question, q.gold) for q in qs]
    sample = random.Random(seed).sample(pairs, min(n, len(pairs))) if n > 0 else pairs
    info = {
        "file": str(path),
        "file_bytes": path.stat().st_size,
        "paragraphs": len({q.gold for q in qs}),
        "questions_total": total,
        "settings": TURKISH_SETTINGS,
    }
    return sample, info

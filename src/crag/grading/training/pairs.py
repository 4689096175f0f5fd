"""(question, passage, label) pairs for the evaluator, mined the way crag will meet them.

The evaluator scores two kinds of text: retrieved chunks (to reach a verdict) and knowledge
strips cut from them (to refine). So the pairs are both, taken from crag's own pipeline:

- chunks: the hybrid retriever's top hits for the question over an index of the dataset. A
  chunk is positive when it belongs to the gold unit AND contains a gold answer (a SQuAD
  paragraph split in two has one half that cannot answer); negative when it is from another
  unit and contains no gold answer (the DPR rule for hard negatives: an answer string in a
  non-gold passage makes its label uncertain, so such chunks are dropped, not guessed);
- strips: the gold chunk's excerption strips (positive if they hold the answer, else negative
  — the hardest negatives there are: same paragraph, wrong sentences), and the strips of one
  hard-negative chunk.

"Holds a gold answer" is `crag.datasets.answers.contains_answer`, the test `crag eval` scores
answers with (SQuAD normalisation, whole tokens, Turkish i's folded; exact tokens, no suffix
matching, so a label never rests on a guessed Turkish suffix): a pair is labelled by the same
rule that later decides whether an answer from it counts as right.

Distillation (`distill_pairs`) labels a user's own collection with any configured judge
instead: soft labels P(yes), for domains no labelled data covers.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from crag.datasets.answers import contains_answer
from crag.grading.base import RetrievalEvaluator
from crag.grading.training.data import LabelledQuestion
from crag.refine.strips import decompose
from crag.types import Chunk

__all__ = ["Pair", "distill_pairs", "mine_pairs", "read_pairs", "write_pairs"]


@dataclass(frozen=True, slots=True)
class Pair:
    question: str
    passage: str
    label: float  # 1.0 / 0.0, or a judge's probability when distilled
    kind: str  # "chunk" | "strip" | "distilled"
    dataset: str


def _label(chunk: Chunk, q: LabelledQuestion) -> float | None:
    has = contains_answer(chunk.text, q.answers)
    if chunk.doc_id == q.gold:
        return 1.0 if has else 0.0
    return None if has else 0.0


def mine_pairs(
    questions: Iterable[LabelledQuestion],
    search: Callable[[str, int], list[Chunk]],
    gold_chunks: Callable[[str], list[Chunk]],
    *,
    top: int = 10,
    negatives: int = 4,
    seed: int = 0,
) -> Iterator[Pair]:
    """Pairs for each question: gold chunks, `negatives` hard negatives, and strips of both."""
    rng = random.Random(seed)
    for q in questions:
        hits = search(q.question, top)
        positives = [c for c in gold_chunks(q.gold) if _label(c, q) == 1.0]
        gold_misses = [c for c in gold_chunks(q.gold) if _label(c, q) == 0.0]
        hard = [c for c in hits if c.doc_id != q.gold and _label(c, q) == 0.0][:negatives]
        for c in positives:
            yield Pair(q.question, c.text, 1.0, "chunk", q.dataset)
        for c in hard + gold_misses[:1]:
            yield Pair(q.question, c.text, 0.0, "chunk", q.dataset)
        strip_sources = positives[:1] + hard[:1]
        for strip in decompose(strip_sources, "excerption"):
            label = 1.0 if strip.chunk.doc_id == q.gold else 0.0
            if label and not contains_answer(strip.text, q.answers):
                label = 0.0
            elif not label and contains_answer(strip.text, q.answers):
                continue
            yield Pair(q.question, strip.text, label, "strip", q.dataset)
        if rng.random() < 0.25 and hits:  # an easy negative now and then: off-topic text
            other = rng.choice(hits)
            if other.doc_id != q.gold and _label(other, q) == 0.0:
                yield Pair(q.question, other.text[: rng.randint(80, 400)], 0.0, "chunk", q.dataset)


def distill_pairs(
    questions: Iterable[str],
    search: Callable[[str, int], list[Chunk]],
    judge: RetrievalEvaluator,
    *,
    top: int = 5,
    strips: bool = True,
) -> Iterator[Pair]:
    """Soft-labelled pairs from a user's collection: `judge` scores each hit (and its strips)."""
    for question in questions:
        hits = search(question, top)
        texts = [c.text for c in hits]
        if strips:
            texts += [s.text for s in decompose(hits[:2], "excerption")]
        for text, score in zip(texts, judge.score(question, texts), strict=True):
            yield Pair(question, text, float(score), "distilled", "distilled")


def write_pairs(pairs: Iterable[Pair], path: Path) -> int:
    """Write pairs as JSONL (atomically: a killed run leaves no half file behind)."""
    tmp = path.with_suffix(path.suffix + ".part")
    n = 0
    with tmp.open("w", encoding="utf-8") as fh:
        for pair in pairs:
            fh.write(json.dumps(asdict(pair), ensure_ascii=False) + "\n")
            n += 1
    tmp.replace(path)
    return n


def read_pairs(path: Path) -> list[Pair]:
    with path.open(encoding="utf-8") as fh:
        return [Pair(**json.loads(line)) for line in fh if line.strip()]

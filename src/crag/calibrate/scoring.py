"""Score a calibration question as `crag ask` would: retrieve → rerank → evaluate.

The stages are the pipeline's own nodes over the pipeline's own components
(`build_pipeline(settings, index)`), so the scores are the ones the action trigger compares
with its thresholds. Two conditions per question:

- **answerable**: the collection as it is; the chunk the question was written from is there;
- **near miss**: the same question with the answer withheld — every chunk of the chunk's unit
  (its file, page, record or paragraph: overlapping neighbours may repeat the answer), and any
  other chunk that contains the answer, is dropped from the retrieved list before reranking and
  evaluation. The topic is usually still present; the answer is not.

Withholding happens at query time, by filtering what the retriever returns (asking it for more
to make up for what is dropped), never by changing the index.

With `answers`, the question also goes through the whole pipeline (refine and generate) with a
trigger that never says INCORRECT (nor CORRECT, short of a perfect score: the generator reads
every retrieved chunk, as under AMBIGUOUS), so what the generator does with the retrieved chunks
is known whatever thresholds are chosen later; and every answer is verified with a cut of 0, so
its P(yes) is known whatever verification cut is chosen later.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from crag.datasets.answers import contains_answer
from crag.types import Chunk, ScoredChunk

__all__ = [
    "ANSWERABLE",
    "CONDITIONS",
    "NEAR_MISS",
    "Scored",
    "Withholding",
    "answer_outcome",
    "score_question",
    "withheld",
]

ANSWERABLE = "answerable"
NEAR_MISS = "near_miss"
CONDITIONS = (ANSWERABLE, NEAR_MISS)


class Withholding:
    """A retriever that never returns chunks `drop` rejects (asks the wrapped one for more)."""

    def __init__(self, retriever: Any, drop: Callable[[Chunk], bool], extra: int = 0) -> None:
        self.retriever = retriever
        self.drop = drop
        self.extra = extra

    def search(self, query: str, k: int | None = None) -> list[ScoredChunk]:
        want = k or 20
        hits = self.retriever.search(query, k=want + self.extra)
        return [h for h in hits if not self.drop(h.chunk)][:want]


def withheld(source: Chunk, answer: str) -> Callable[[Chunk], bool]:
    """What a near miss withholds: the unit of `source`, and any chunk holding `answer`."""

    def drop(chunk: Chunk) -> bool:
        same_unit = chunk.source == source.source and chunk.doc_id == source.doc_id
        return same_unit or contains_answer(chunk.text, [answer])

    return drop


def _gold(source: Chunk, answer: str) -> Callable[[Chunk], bool]:
    """A gold-bearing chunk: the one the question came from, or one of its unit that holds
    the answer too (an overlapping neighbour)."""

    def gold(chunk: Chunk) -> bool:
        if chunk.id == source.id:
            return True
        same_unit = chunk.source == source.source and chunk.doc_id == source.doc_id
        return same_unit and contains_answer(chunk.text, [answer])

    return gold


@dataclass(frozen=True, slots=True)
class Scored:
    """The evaluated chunks of one question in one condition: id, score (NaN: unknown), gold."""

    ids: tuple[str, ...]
    scores: tuple[float, ...]
    gold: tuple[bool, ...]

    def to_json(self) -> list[dict[str, Any]]:
        return [
            {"id": i, "score": None if math.isnan(s) else round(s, 6), "gold": g}
            for i, s, g in zip(self.ids, self.scores, self.gold, strict=True)
        ]

    @classmethod
    def from_json(cls, hits: list[dict[str, Any]]) -> Scored:
        return cls(
            tuple(h["id"] for h in hits),
            tuple(math.nan if h["score"] is None else float(h["score"]) for h in hits),
            tuple(bool(h["gold"]) for h in hits),
        )


def _components(components: Any, condition: str, source: Chunk, answer: str, extra: int) -> Any:
    if condition == ANSWERABLE:
        return components
    if condition != NEAR_MISS:
        raise ValueError(f"condition {condition!r}: use one of {CONDITIONS}")
    retriever = Withholding(components.retriever, withheld(source, answer), extra)
    return replace(components, retriever=retriever)


def score_question(
    components: Any, question: str, source: Chunk, answer: str, condition: str, extra: int = 0
) -> Scored:
    """The evaluator's score of each chunk the pipeline would evaluate for `question`.

    `extra`: how many more chunks to ask the retriever for in the near-miss condition
    (about the number of chunks withheld)."""
    from langgraph.runtime import Runtime

    from crag.pipeline.nodes import NODES
    from crag.pipeline.state import CragState

    runtime = Runtime(context=_components(components, condition, source, answer, extra))
    state: CragState = {"question": question}
    for name in ("retrieve", "rerank", "evaluate"):
        state.update(NODES[name](state, runtime))
    hits: list[ScoredChunk] = state["reranked"]
    gold = _gold(source, answer)
    return Scored(
        tuple(h.id for h in hits),
        tuple(float(s) for s in state["scores"]),
        tuple(condition == ANSWERABLE and gold(h.chunk) for h in hits),
    )


def answer_outcome(
    components: Any, question: str, source: Chunk, answer: str, condition: str, extra: int = 0
) -> dict[str, Any]:
    """What the generator answers when the evaluator lets everything through: refused or not,
    whether the answer holds the expected one, and the verification's P(yes) of the answer
    (None: refused, not verified, or unknown)."""
    from crag.grading.trigger import ActionTrigger
    from crag.pipeline.runner import Pipeline

    parts = _components(components, condition, source, answer, extra)
    generator = parts.generator
    if getattr(generator, "verifier", None) is not None:  # verified, never refused by the cut
        generator = replace(generator, verify_cut=0.0, verify_correct=True)
    trigger = ActionTrigger(upper=1.0, lower=0.0)
    parts = replace(parts, trigger=trigger, web=None, generator=generator)
    result = Pipeline(parts).ask(question)
    checks = result.trace.verifications
    verified = checks[-1].p_yes if checks and not result.refused else None
    return {
        "refused": bool(result.refused),
        "right": (not result.refused) and contains_answer(result.text, [answer]),
        "text": result.text,
        "verified": verified,
    }

"""Choose the action trigger's thresholds for an evaluator on held-out questions.

What is being optimised is the verdict, not a pair label: for each calibration question crag
retrieves, reranks and scores its top chunks exactly as `crag ask` does, and the thresholds
are those that make the verdict most often right:

- the question is **answerable** when one of its top chunks is from the gold unit and holds a
  gold answer; half of the questions are made **unanswerable** by removing every chunk of the
  gold unit, and every chunk containing a gold answer, from what was retrieved — the
  "answer is not in the knowledge base" case that the INCORRECT branch exists for;
- credit: CORRECT on an answerable question 1, INCORRECT on an unanswerable one 1, the
  opposite 0, AMBIGUOUS `ambiguous_credit` (default 0.75) either way. AMBIGUOUS runs both
  corrections (refine the local chunks *and* search the web), so it rarely loses an answer,
  but it costs a web search and mixes more text into the context: worth three quarters of a
  right call. The band therefore covers the scores where the evaluator is right less than
  75 % of the time either way. (With a credit of 0.5 the band would never beat a single cut,
  and CRAG's middle action would vanish.)

Every (upper, lower) pair on a 0.01 grid is tried; the curve (best credit per upper) is stored
with the choice so `crag evaluator calibrate` can show it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from crag.datasets.answers import contains_answer
from crag.grading.base import RetrievalEvaluator
from crag.grading.training.data import LabelledQuestion
from crag.grading.trigger import ActionTrigger
from crag.types import Chunk, Verdict

__all__ = ["AMBIGUOUS_CREDIT", "CalibrationItem", "choose_thresholds", "collect", "credit"]


@dataclass(frozen=True, slots=True)
class CalibrationItem:
    scores: tuple[float, ...]
    answerable: bool
    dataset: str


AMBIGUOUS_CREDIT = 0.75


def credit(verdict: Verdict, answerable: bool, ambiguous: float = AMBIGUOUS_CREDIT) -> float:
    if verdict is Verdict.AMBIGUOUS:
        return ambiguous
    return 1.0 if (verdict is Verdict.CORRECT) == answerable else 0.0


def collect(
    questions: list[LabelledQuestion],
    search: Callable[[str, int], list[Chunk]],
    evaluator: RetrievalEvaluator,
    *,
    retrieve_k: int = 20,
    top_k: int = 5,
    seed: int = 0,
) -> list[CalibrationItem]:
    """Score each question's top chunks as the pipeline would (retrieve → rerank → top k)."""
    rng = random.Random(seed)
    items = []
    for q in questions:
        hits = search(q.question, retrieve_k)
        if rng.random() < 0.5:  # the answer is not in the knowledge base
            hits = [
                c for c in hits if c.doc_id != q.gold and not contains_answer(c.text, q.answers)
            ]
        scores = evaluator.score(q.question, [c.text for c in hits])
        top = sorted(zip(scores, hits, strict=True), key=lambda x: -x[0])[:top_k]
        answerable = any(c.doc_id == q.gold and contains_answer(c.text, q.answers) for _, c in top)
        items.append(CalibrationItem(tuple(s for s, _ in top), answerable, q.dataset))
    return items


def mean_credit(
    items: list[CalibrationItem], upper: float, lower: float, ambiguous: float = AMBIGUOUS_CREDIT
) -> float:
    trigger = ActionTrigger(upper=upper, lower=lower)
    return sum(
        credit(trigger.decide(list(i.scores)), i.answerable, ambiguous) for i in items
    ) / len(items)


def choose_thresholds(
    items: list[CalibrationItem], step: float = 0.01, ambiguous: float = AMBIGUOUS_CREDIT
) -> dict[str, Any]:
    """The (upper, lower) with the highest mean credit (ties: the narrower AMBIGUOUS band)."""
    if not items:
        raise ValueError("calibration needs at least one question")
    grid = [round(i * step, 4) for i in range(round(1 / step) + 1)]
    best = (-1.0, 0.0, 0.0)
    curve = []
    for upper in grid:
        row_best = (-1.0, 0.0)
        for lower in grid:
            if lower > upper:
                break
            value = mean_credit(items, upper, lower, ambiguous)
            if value > row_best[0] + 1e-12 or (
                abs(value - row_best[0]) <= 1e-12 and upper - lower < upper - row_best[1]
            ):
                row_best = (value, lower)
        curve.append({"upper": upper, "best_lower": row_best[1], "credit": round(row_best[0], 4)})
        if row_best[0] > best[0] + 1e-12:
            best = (row_best[0], upper, row_best[1])
    value, upper, lower = best
    trigger = ActionTrigger(upper=upper, lower=lower)
    matrix: dict[str, dict[str, int]] = {
        t: {v.value: 0 for v in Verdict} for t in ("answerable", "unanswerable")
    }
    for i in items:
        matrix["answerable" if i.answerable else "unanswerable"][
            trigger.decide(list(i.scores)).value
        ] += 1
    return {
        "upper": upper,
        "lower": lower,
        "credit": round(value, 4),
        "ambiguous_credit": ambiguous,
        "questions": len(items),
        "answerable": sum(i.answerable for i in items),
        "verdicts": matrix,
        "curve": curve,
    }

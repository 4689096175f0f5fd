"""The action trigger: CRAG's rule from scores to a verdict, and its thresholds.

Exactly the paper's rule (Yan et al. 2024, §4.3; `CRAG/scripts/CRAG_Inference.py`):
CORRECT if any passage scores at least `upper`; INCORRECT if every passage scores below
`lower`; AMBIGUOUS otherwise. Thresholds belong to a scorer (an LLM judge's probabilities and
a cross-encoder's are not on one scale) and may differ per collection; the defaults come from
`bench/evaluator.py`.

A score the evaluator could not produce is NaN ("unknown", see `LLMJudge`). It can neither
make a verdict CORRECT nor let it be INCORRECT: a question whose passages are all unknown is
AMBIGUOUS — CRAG's "not sure" action, which keeps the retrieved text and searches as well.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from crag.types import Verdict

__all__ = ["ActionTrigger"]


@dataclass(frozen=True, slots=True)
class ActionTrigger:
    upper: float
    lower: float

    def __post_init__(self) -> None:
        if not 0.0 <= self.lower <= self.upper <= 1.0:
            raise ValueError(
                f"thresholds must satisfy 0 <= lower <= upper <= 1, got lower={self.lower}, "
                f"upper={self.upper}"
            )

    def decide(self, scores: list[float]) -> Verdict:
        """Verdict for one question from its passages' scores (no passages: INCORRECT)."""
        known = [s for s in scores if not math.isnan(s)]
        if any(s >= self.upper for s in known):
            return Verdict.CORRECT
        if len(known) == len(scores) and all(s < self.lower for s in known):
            return Verdict.INCORRECT
        return Verdict.AMBIGUOUS

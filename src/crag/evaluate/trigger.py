"""The action trigger: CRAG's rule from scores to a verdict, and its thresholds.

Exactly the paper's rule (Yan et al. 2024, §4.3; `CRAG/scripts/CRAG_Inference.py`):
CORRECT if any passage scores at least `upper`; INCORRECT if every passage scores below
`lower`; AMBIGUOUS otherwise. Thresholds belong to a scorer (an LLM judge's probabilities and
a cross-encoder's are not on one scale) and may differ per collection; the defaults come from
`bench/evaluator.py`.
"""

from __future__ import annotations

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
        if any(s >= self.upper for s in scores):
            return Verdict.CORRECT
        if all(s < self.lower for s in scores):
            return Verdict.INCORRECT
        return Verdict.AMBIGUOUS

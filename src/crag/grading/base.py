"""The `RetrievalEvaluator` protocol: how well can this passage answer this question?

One method, one number per (question, passage) in [0, 1]. The action trigger only compares
these numbers with two thresholds, so any scorer — an LLM judge, a cross-encoder, the trained
evaluator — can be swapped in; its thresholds are calibrated per scorer.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["RetrievalEvaluator"]


@runtime_checkable
class RetrievalEvaluator(Protocol):
    name: str

    def score(self, question: str, passages: list[str]) -> list[float]:
        """Relevance in [0, 1] of each passage to the question, in the order given.

        NaN means "could not judge" (e.g. an LLM whose replies could not be read); the action
        trigger and the refiner treat it as unknown, never as irrelevant.
        """
        ...

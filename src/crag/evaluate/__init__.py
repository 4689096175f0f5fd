"""Retrieval evaluation: score each retrieved passage, then decide CORRECT/AMBIGUOUS/INCORRECT."""

from crag.evaluate.base import RetrievalEvaluator
from crag.evaluate.llm_judge import LLMJudge, yes_probability
from crag.evaluate.trigger import ActionTrigger

__all__ = ["ActionTrigger", "LLMJudge", "RetrievalEvaluator", "yes_probability"]

"""Retrieval evaluation: score each retrieved passage, then decide CORRECT/AMBIGUOUS/INCORRECT."""

from crag.grading.base import RetrievalEvaluator
from crag.grading.llm_judge import LLMJudge, yes_probability
from crag.grading.trigger import ActionTrigger

__all__ = ["ActionTrigger", "LLMJudge", "RetrievalEvaluator", "yes_probability"]

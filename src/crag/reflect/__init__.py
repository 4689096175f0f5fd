"""Self-RAG's reflection layer: check the answer after generation, and loop back, bounded."""

from crag.reflect.judges import ClaimJudge, UsefulnessJudge
from crag.reflect.policy import ReflectPolicy, Route, best_attempt, finalize
from crag.reflect.reflector import ClaimCheck, Reflection, Reflector, is_refusal

__all__ = [
    "ClaimCheck",
    "ClaimJudge",
    "ReflectPolicy",
    "Reflection",
    "Reflector",
    "Route",
    "UsefulnessJudge",
    "best_attempt",
    "finalize",
    "is_refusal",
]

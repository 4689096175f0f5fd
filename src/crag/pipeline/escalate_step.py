"""The evaluate node's second step: an AMBIGUOUS verdict escalated to the generator's model.

Its own stage (`escalate`), so the trace times the extra call; the judge's verdict replaces
the evaluator's, and the trace records what was judged (crag.grading.escalation).
"""

from __future__ import annotations

import math

from crag.grading.escalation import Escalation
from crag.pipeline.stage import stage
from crag.pipeline.state import CragState
from crag.trace import EscalationRecord, TracePart, add_trace, judge_score
from crag.types import ScoredChunk

__all__ = ["escalated"]


def escalated(
    question: str,
    hits: list[ScoredChunk],
    texts: list[str],
    scores: list[float],
    cuts: Escalation,
    update: CragState,
) -> CragState:
    """The AMBIGUOUS verdict escalated to the generator's model (crag.grading.escalation): its
    own stage, so the trace times the extra call. Its verdict replaces the evaluator's.

    `texts` are the hits as the evaluator scored them (a link by its text), so the judge
    weighs the passage the evaluator weighed."""
    with stage("escalate") as log:
        out = cuts.escalate(question, texts, scores)
    if out is None:
        return update
    hit = hits[out.index]
    record = EscalationRecord(
        id=hit.id, cite=hit.chunk.cite(), score=judge_score(out.score),
        p_yes=judge_score(out.p_yes), upper=cuts.upper, lower=cuts.lower, verdict=out.verdict,
    )  # fmt: skip
    p = "unknown" if math.isnan(out.p_yes) else f"{out.p_yes:.2f}"
    note = (
        f"AMBIGUOUS escalated: the generator's model judged the best passage ({out.score:.2f}) "
        f"P(yes) {p} (CORRECT from {cuts.upper:.2f}, INCORRECT below {cuts.lower:.2f}): "
        f"{out.verdict.value.upper()}"
    )
    part = TracePart(escalation=record, verdict=out.verdict, notes=[note])
    return {
        **update,
        "verdict": out.verdict,
        "escalation": record,
        "trace": add_trace(update["trace"], log.part(part)),
    }

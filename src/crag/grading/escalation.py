"""Escalation: a second, stronger judge for the questions the evaluator leaves AMBIGUOUS.

The evidence evaluator (cross-encoder + cosine + term overlap) is fast, but between its two
thresholds it cannot tell a question whose answer is retrieved from one whose topic alone is
(a *near miss*): most questions land there, and CRAG's AMBIGUOUS action then reads everything
and leaves the decision to the answer check. The generator's model, asked CRAG's judge question
("can the question be answered from the passage alone?") about the evaluator's best passage,
ranks that band better (held-out SQuAD-en rows mined by `bench.combination`: AUC 0.82 against
the evidence score's 0.75 within the band, `python -m bench.escalation`). So an AMBIGUOUS
verdict is escalated: one yes/no call on the best-scored passage, and

- P(yes) at or above `upper` → CORRECT (the answer is there: refine, no web search; the
  answer is still verified, as under AMBIGUOUS: the judge read the passage, not the span the
  reader will take from it);
- P(yes) below `lower` → INCORRECT (the best passage does not answer it: web search, or an
  honest refusal);
- in between, or unknown (NaN) → AMBIGUOUS stays.

Only one passage is judged, so a question whose answer stands in a lower-scored chunk (a
paraphrase the evaluator missed) can be turned INCORRECT; the cuts were chosen on held-apart
questions with the evaluator's own rules (CORRECT: 90 % of those above hold the answer;
INCORRECT: at most 8 % of answerable ones fall below), and they belong to the judge's model
(`ESCALATION_CUTS`): another model has no cuts until measured, and is not escalated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from crag.config import EvaluateSettings
from crag.grading.base import RetrievalEvaluator
from crag.grading.llm_judge import LLMJudge
from crag.grading.trigger import ActionTrigger
from crag.types import Verdict

__all__ = [
    "ESCALATION_CUTS",
    "Escalated",
    "Escalation",
    "EscalationJudge",
    "configured_cuts",
    "escalation_cuts",
    "make_escalation",
]

# (upper, lower) of the escalation judge per model, chosen by `python -m bench.escalation` on
# the AMBIGUOUS rows of 150 SQuAD-en "calibrate" questions, each also as a near miss (the
# evidence evaluator's own threshold rules applied within its AMBIGUOUS band).
ESCALATION_CUTS: dict[str, tuple[float, float]] = {
    "qwen2.5-coder-1.5b": (0.897, 0.696),
}


def escalation_cuts(model: str) -> tuple[float, float] | None:
    """The measured (upper, lower) for a judge model (a packaged name or a `.gguf` path whose
    file name starts with it), or None: not measured, not escalated."""
    name = model.replace("\\", "/").rsplit("/", 1)[-1].lower()
    for known, cuts in ESCALATION_CUTS.items():
        if name.startswith(known):
            return cuts
    return None


class EscalationJudge(LLMJudge):
    """CRAG's judge question asked of the generator's model; its calls are named "escalate"
    in the trace."""

    purpose = "escalate"


@dataclass(frozen=True, slots=True)
class Escalated:
    """One escalation: which passage was judged (its index among the scored ones), the
    evaluator's score for it, the judge's P(yes) (NaN: unknown) and the verdict it gave."""

    index: int
    score: float
    p_yes: float
    verdict: Verdict


@dataclass(frozen=True, slots=True)
class Escalation:
    """The judge asked about the best passage of an AMBIGUOUS question, and its cuts."""

    judge: RetrievalEvaluator
    upper: float
    lower: float
    # The cuts as CRAG's rule over one score (crag.grading.trigger): CORRECT from `upper`,
    # INCORRECT below `lower`, AMBIGUOUS between or when unknown (NaN). Built once, it refuses
    # cuts out of order, as it does thresholds.
    trigger: ActionTrigger = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "trigger", ActionTrigger(self.upper, self.lower))

    def verdict(self, p_yes: float) -> Verdict:
        return self.trigger.decide([p_yes])

    def escalate(self, question: str, passages: list[str], scores: list[float]) -> Escalated | None:
        """Judge the best-scored of `passages` (None when none has a known score)."""
        known = [(s, i) for i, s in enumerate(scores) if not math.isnan(s)]
        if not known or len(passages) != len(scores):
            return None
        score, best = max(known, key=lambda x: (x[0], -x[1]))
        p = float(self.judge.score(question, [passages[best]])[0])
        return Escalated(best, score, p, self.verdict(p))


def configured_cuts(
    evaluate: EvaluateSettings, model: str, language: str, *, web: bool
) -> tuple[float, float] | None:
    """The (upper, lower) cuts `evaluate` escalates with, for the judge model `model` on a
    collection whose keyword language is `language`, `web` telling whether web search is
    configured; None where escalation is off: `escalate` false (or "web" without web search),
    another evaluator than `evidence` (the LLM judge already is this judge), or cuts not
    measured for this model and language and not both set."""
    on = evaluate.escalate is True or (evaluate.escalate == "web" and web)
    if not on or evaluate.method != "evidence":
        return None
    up, low = evaluate.escalate_upper, evaluate.escalate_lower
    if up is None or low is None:
        measured = escalation_cuts(model) if language.lower() == "english" else None
        if measured is None:
            return None
        up = measured[0] if up is None else up
        low = measured[1] if low is None else low
    return up, low


def make_escalation(
    evaluate: EvaluateSettings,
    judge: RetrievalEvaluator,
    model: str,
    language: str,
    *,
    web: bool,
) -> Escalation | None:
    """The escalation `evaluate` asks for (`configured_cuts`), with `judge` (the generator's
    model as an LLM judge, `model` its name); None where it is off."""
    cuts = configured_cuts(evaluate, model, language, web=web)
    return None if cuts is None else Escalation(judge, *cuts)

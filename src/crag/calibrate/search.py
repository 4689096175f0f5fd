"""Choose `lower` and `upper` from scored calibration questions: most right answers within a
hallucination budget, and the risk–coverage curve behind the choice.

Each observation is one question in one condition (answerable or near miss) with the scores of
the chunks the evaluator judged. A question is **answered** at a threshold `t` when the action
trigger would not say INCORRECT with `lower = t` (some chunk scores at least `t`, or one could
not be scored); with generated answers (`crag calibrate --answers`) it must also not have been
refused. An answered near-miss question is a **hallucination**; an answered answerable one is
**right** when a gold-bearing chunk was judged and scores at least `t` (it survives refinement),
or, with generated answers, when the answer holds the expected one.

- `lower`: among the thresholds whose hallucination rate (answered near misses / near misses)
  is within the budget, the one with the most right answers; of those, the highest (fewest
  wrong answers, and it sits half-way between two observed scores).
- `upper`: CORRECT skips the second opinion (web search, when configured), so it must be right
  when it fires: the lowest threshold (≥ lower) from which on at least `1 − budget` of the
  questions it would call CORRECT are right.

Candidate thresholds are 0, the midpoints between consecutive distinct observed scores, and one
above the highest: every way of splitting the observations, each with a margin.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from crag.grading.trigger import ActionTrigger
from crag.types import Verdict

__all__ = ["Choice", "Observation", "choose_thresholds", "curve"]

_EPS = 1e-12


@dataclass(frozen=True, slots=True)
class Observation:
    answerable: bool  # False: the near-miss condition
    scores: tuple[float, ...]  # per judged chunk; NaN = the evaluator could not score it
    gold: tuple[bool, ...] = ()  # per judged chunk: holds the answer (answerable only)
    generated: bool | None = None  # --answers: the generator answered (did not refuse)
    generated_right: bool | None = None  # --answers: the answer holds the expected one

    @property
    def reach(self) -> float:
        """The highest `lower` at which the verdict is not INCORRECT."""
        if not self.scores:
            return -math.inf
        if any(math.isnan(s) for s in self.scores):
            return math.inf  # unknown is never a rejection: never INCORRECT
        return max(self.scores)

    @property
    def top(self) -> float:
        """The highest `upper` at which the verdict is CORRECT (NaN never makes it CORRECT)."""
        return max((s for s in self.scores if not math.isnan(s)), default=-math.inf)

    @property
    def gold_reach(self) -> float:
        """The highest floor a gold-bearing chunk survives (NaN: kept at any floor)."""
        marks = [
            math.inf if math.isnan(s) else s
            for s, g in zip(self.scores, self.gold, strict=False)
            if g
        ]
        return max(marks, default=-math.inf)

    def answered(self, t: float) -> bool:
        return self.reach >= t and self.generated is not False

    def right(self, t: float) -> bool:
        if not (self.answerable and self.answered(t)):
            return False
        if self.generated_right is not None:
            return self.generated_right
        return self.gold_reach >= t


def _share(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def point(observations: Sequence[Observation], t: float) -> dict[str, Any]:
    """Coverage, accuracy and hallucination if every question were answered from `t` up."""
    n = len(observations)
    answerable = [o for o in observations if o.answerable]
    near = [o for o in observations if not o.answerable]
    answered = sum(o.answered(t) for o in observations)
    right = sum(o.right(t) for o in answerable)
    hallucinated = sum(o.answered(t) for o in near)
    return {
        "threshold": t,
        "answered": _share(answered, n),
        "right_of_answered": _share(right, answered),
        "right_of_answerable": _share(right, len(answerable)),
        "hallucination": _share(hallucinated, len(near)) if near else 0.0,
        "answered_n": answered,
        "right_n": right,
        "hallucinated_n": hallucinated,
    }


def candidates(observations: Sequence[Observation]) -> list[float]:
    """0, midpoints between consecutive distinct observed scores, and one above the highest."""
    values = sorted(
        {
            v
            for o in observations
            for v in (o.reach, o.top, o.gold_reach)
            if math.isfinite(v) and 0.0 <= v <= 1.0
        }
    )
    out = [0.0]
    out += [(a + b) / 2 for a, b in pairwise(values)]
    if values:
        out.append((values[-1] + 1.0) / 2 if values[-1] < 1.0 else 1.0)
    return sorted({min(1.0, max(0.0, round(t, 6))) for t in out})


def curve(observations: Sequence[Observation]) -> list[dict[str, Any]]:
    """The risk–coverage curve: one point per candidate threshold, lowest first."""
    return [point(observations, t) for t in candidates(observations)]


@dataclass(slots=True)
class Choice:
    upper: float
    lower: float
    max_hallucination: float
    budget_met: bool
    at_lower: dict[str, Any]  # the curve's point at `lower`
    correct_precision: float | None  # share right of the questions CORRECT at `upper`
    verdicts: dict[str, dict[str, int]]  # condition -> verdict -> questions, at the choice
    curve: list[dict[str, Any]]
    observations: int
    answerable: int
    near_miss: int
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "upper": self.upper,
            "lower": self.lower,
            "max_hallucination": self.max_hallucination,
            "budget_met": self.budget_met,
            "expected": self.at_lower,
            "correct_precision": self.correct_precision,
            "verdicts": self.verdicts,
            "observations": self.observations,
            "answerable": self.answerable,
            "near_miss": self.near_miss,
            "warnings": self.warnings,
        }


def _precision(observations: Sequence[Observation], upper: float, lower: float) -> float | None:
    fired = [o for o in observations if o.top >= upper]
    return _share(sum(o.right(lower) for o in fired), len(fired))


def choose_thresholds(
    observations: Sequence[Observation], max_hallucination: float = 0.1
) -> Choice:
    """`lower` and `upper` by the rules in the module docstring."""
    if not observations:
        raise ValueError("calibration needs at least one scored question")
    if not 0.0 <= max_hallucination <= 1.0:
        raise ValueError("max_hallucination must be between 0 and 1")
    points = curve(observations)
    feasible = [p for p in points if p["hallucination"] <= max_hallucination + _EPS]
    warnings: list[str] = []
    if feasible:
        most = max(p["right_n"] for p in feasible)
        at_lower = max((p for p in feasible if p["right_n"] == most), key=lambda p: p["threshold"])
    else:  # even answering nothing the budget is missed (unscorable chunks): least harm
        least = min(p["hallucination"] for p in points)
        at_lower = max(
            (p for p in points if p["hallucination"] == least), key=lambda p: p["threshold"]
        )
        warnings.append(
            f"no threshold keeps hallucination within {max_hallucination:.0%} "
            f"(best {least:.0%}): the evaluator could not score some near-miss chunks"
        )
    lower = at_lower["threshold"]
    target = 1.0 - max_hallucination
    upper = 1.0
    for t in reversed([p["threshold"] for p in points if p["threshold"] >= lower]):
        precision = _precision(observations, t, lower)
        if precision is not None and precision < target - _EPS:
            break
        upper = t
    trigger = ActionTrigger(upper=upper, lower=lower)
    verdicts = {c: {v.value: 0 for v in Verdict} for c in ("answerable", "near_miss")}
    for o in observations:
        verdicts["answerable" if o.answerable else "near_miss"][
            trigger.decide(list(o.scores)).value
        ] += 1
    answerable = sum(o.answerable for o in observations)
    near = len(observations) - answerable
    if not answerable:
        warnings.append("no answerable questions: the thresholds refuse everything they can")
    if not near:
        warnings.append("no near-miss questions: hallucination could not be measured")
    elif near < 20:
        warnings.append(
            f"only {near} near-miss questions: each is {1 / near:.0%} of the hallucination rate"
        )
    return Choice(
        upper=upper,
        lower=lower,
        max_hallucination=max_hallucination,
        budget_met=bool(feasible),
        at_lower=at_lower,
        correct_precision=_precision(observations, upper, lower),
        verdicts=verdicts,
        curve=points,
        observations=len(observations),
        answerable=answerable,
        near_miss=near,
        warnings=warnings,
    )

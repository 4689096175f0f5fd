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
  questions it would call CORRECT are right (without the verification: CORRECT skips it too).
- `verify_cut` (only with generated answers whose verification was recorded): the answer
  check refuses an answer whose verification P(yes) is below it. Each candidate cut from
  `min_cut` up gets its best `lower` by the rule above; the cut whose best has the most right
  answers within the budget wins; of equals, the one with the fewest near misses answered,
  then the lowest (the least departure from where it starts). `min_cut` is 0.5 at least (below
  it the model says the passage does not state the answer); `crag calibrate` passes the
  default cut, because generated questions are easier than real ones (next paragraph). The
  expected figures count every answer as verified (those the evaluator calls CORRECT are
  not, unless `generate.verify_correct`).

Why the cut is only raised: a generated question copies its chunk's wording, and its near
miss's wrong answer is easy for the verification to doubt. On SQuAD-en the cut fitted from
0.5 up was 0.61; on 100 real tuning questions (half near misses) it answered 21 of 50 near
misses instead of 10, and 16 wrong answers instead of 7, for no more right ones. A cut the
generated questions push *up* (the verification doubts too little even there) is evidence;
one they pull down is not.

The observations, the curve and the candidate thresholds and cuts: `crag.calibrate.curve`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from crag.calibrate.curve import (
    MIN_CUT,
    Observation,
    curve,
    cut_candidates,
    share,
)
from crag.grading.trigger import ActionTrigger
from crag.types import Verdict

__all__ = ["Choice", "choose_thresholds"]

_EPS = 1e-12


class _AtCut(NamedTuple):
    """One verification cut's curve and its best point (`_best`)."""

    cut: float
    points: list[dict[str, Any]]
    best: dict[str, Any]
    feasible: bool  # the best point is within the budget


def _best(points: list[dict[str, Any]], budget: float) -> tuple[dict[str, Any], bool]:
    """The point with the most right answers within `budget` (of equals the highest
    threshold), and True; else the least hallucinating one (highest), and False."""
    feasible = [p for p in points if p["hallucination"] <= budget + _EPS]
    if feasible:
        most = max(p["right_n"] for p in feasible)
        return max(
            (p for p in feasible if p["right_n"] == most), key=lambda p: p["threshold"]
        ), True
    least = min(p["hallucination"] for p in points)
    return max(
        (p for p in points if p["hallucination"] == least), key=lambda p: p["threshold"]
    ), False


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
    # with verified answers (--answers): the chosen verification cut (else None), and for each
    # candidate cut its best point
    verify_cut: float | None = None
    cuts: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "upper": self.upper,
            "lower": self.lower,
            "verify_cut": self.verify_cut,
            "cuts": self.cuts,
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
    return share(sum(o.right(lower) for o in fired), len(fired))


def choose_thresholds(
    observations: Sequence[Observation], max_hallucination: float = 0.1, min_cut: float = MIN_CUT
) -> Choice:
    """`lower`, `upper` (and `verify_cut`, from `min_cut` up) by the rules in the module
    docstring."""
    if not observations:
        raise ValueError("calibration needs at least one scored question")
    if not 0.0 <= max_hallucination <= 1.0:
        raise ValueError("max_hallucination must be between 0 and 1")
    cuts = cut_candidates(observations, min_cut)
    by_cut: list[_AtCut] = []
    for cut in cuts or [0.0]:
        points = curve(observations, cut)
        by_cut.append(_AtCut(cut, points, *_best(points, max_hallucination)))
    if any(b.feasible for b in by_cut):
        # most right within budget; of equals, fewest near misses answered, then the lowest
        # cut (the least departure from the default, which was chosen on real questions)
        pick = max(
            (b for b in by_cut if b.feasible),
            key=lambda b: (b.best["right_n"], -b.best["hallucinated_n"], -b.cut),
        )
    else:
        pick = max(by_cut, key=lambda b: (-b.best["hallucination"], b.cut))
    cut, points, at_lower, feasible = pick
    warnings: list[str] = []
    if not feasible:  # even answering nothing the budget is missed (unscorable chunks)
        warnings.append(
            f"no threshold keeps hallucination within {max_hallucination:.0%} "
            f"(best {at_lower['hallucination']:.0%}): the evaluator could not score some "
            "near-miss chunks"
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
        budget_met=feasible,
        at_lower=at_lower,
        correct_precision=_precision(observations, upper, lower),
        verdicts=verdicts,
        curve=points,
        observations=len(observations),
        answerable=answerable,
        near_miss=near,
        warnings=warnings,
        verify_cut=cut if cuts else None,
        cuts=[{"cut": b.cut, **b.best, "within_budget": b.feasible} for b in by_cut]
        if cuts
        else [],
    )

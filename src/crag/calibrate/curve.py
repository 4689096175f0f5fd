"""Scored calibration questions and the risk–coverage curve they trace.

An `Observation` is one question in one condition (answerable or near miss) with the scores
of the chunks the evaluator judged and, with `crag calibrate --answers`, what the generator did.
`point` says what answering from a threshold up would give; `curve` is one point per candidate
threshold. Candidate thresholds are 0, the midpoints between consecutive distinct observed
scores, and one above the highest: every way of splitting the observations, each with a margin.
The choice among them is `crag.calibrate.search`'s.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

__all__ = ["MIN_CUT", "Observation", "candidates", "curve", "cut_candidates", "point", "share"]


@dataclass(frozen=True, slots=True)
class Observation:
    answerable: bool  # False: the near-miss condition
    scores: tuple[float, ...]  # per judged chunk; NaN = the evaluator could not score it
    gold: tuple[bool, ...] = ()  # per judged chunk: holds the answer (answerable only)
    generated: bool | None = None  # --answers: the generator answered (did not refuse)
    generated_right: bool | None = None  # --answers: the answer holds the expected one
    verified: float | None = None  # --answers: the answer's verification P(yes) (None: none)

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

    def answered(self, t: float, cut: float = 0.0) -> bool:
        """Not INCORRECT at `lower = t`, not refused, and verified at `cut` (or not verified)."""
        passes = self.verified is None or self.verified >= cut
        return self.reach >= t and self.generated is not False and passes

    def right(self, t: float, cut: float = 0.0) -> bool:
        if not (self.answerable and self.answered(t, cut)):
            return False
        if self.generated_right is not None:
            return self.generated_right
        return self.gold_reach >= t


def share(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def point(observations: Sequence[Observation], t: float, cut: float = 0.0) -> dict[str, Any]:
    """Coverage, accuracy and hallucination if every question were answered from `t` up
    (and its answer verified at `cut`)."""
    n = len(observations)
    answerable = [o for o in observations if o.answerable]
    near = [o for o in observations if not o.answerable]
    answered = sum(o.answered(t, cut) for o in observations)
    right = sum(o.right(t, cut) for o in answerable)
    hallucinated = sum(o.answered(t, cut) for o in near)
    return {
        "threshold": t,
        "answered": share(answered, n),
        "right_of_answered": share(right, answered),
        "right_of_answerable": share(right, len(answerable)),
        "hallucination": share(hallucinated, len(near)) if near else 0.0,
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


def curve(observations: Sequence[Observation], cut: float = 0.0) -> list[dict[str, Any]]:
    """The risk–coverage curve: one point per candidate threshold, lowest first."""
    return [point(observations, t, cut) for t in candidates(observations)]


# The lowest verification cut that means anything: below 0.5 the model says "no" more often.
MIN_CUT = 0.5


def cut_candidates(observations: Sequence[Observation], min_cut: float = MIN_CUT) -> list[float]:
    """Verification cuts: `min_cut`, midpoints between consecutive distinct P(yes) from it
    up, and one above the highest; empty when no answer's verification was recorded."""
    values = sorted({o.verified for o in observations if o.verified is not None})
    if not values:
        return []
    min_cut = max(MIN_CUT, min_cut)
    above = [v for v in values if v >= min_cut]
    out = [min_cut] + [(a + b) / 2 for a, b in pairwise(above)]
    if above:
        out.append((above[-1] + 1.0) / 2 if above[-1] < 1.0 else 1.0)
    return sorted({min(1.0, round(c, 6)) for c in out})

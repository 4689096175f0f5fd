"""`--fail-under` / `--fail-over`: turn a run's figures into a pass or fail for a user's CI.

Syntax, one gate per option (repeatable): `MODE.METRIC=VALUE`, VALUE a fraction (`0.7`) or a
percentage (`70%`).

- `--fail-under crag.accuracy=0.7`: fail when crag's accuracy is below 0.7 (higher is better).
- `--fail-over crag.hallucination=0.1`: fail when crag's hallucination rate is above 0.1
  (lower is better).

METRIC is one of the short names in `METRICS` or a dotted path into the mode's entry of
`summary.json` (`crag.evaluator.decisive`, `rag.latency.total.p50_ms`). A figure that the run
did not measure (no near-miss questions, no evaluator in rag mode) fails its gate: a CI check
that silently passes on a missing number checks nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from crag.errors import CragError
from crag.modes import normalise_mode

__all__ = ["METRICS", "Gate", "check_gates", "parse_gate"]

# short name -> path in summary["modes"][mode]
METRICS: dict[str, str] = {
    "accuracy": "answers.accuracy",
    "short_accuracy": "answers.short_accuracy",
    "f1": "answers.f1",
    "over_refusal": "answers.over_refusal",
    "refusal_rate": "answers.refusal_rate",
    "found_elsewhere": "answers.found_elsewhere",
    "hallucination": "answers.hallucination_rate",
    "hallucination_rate": "answers.hallucination_rate",
    "near_miss_refusal": "near_miss.refusal_rate",
    "near_miss_hallucination": "near_miss.hallucination_rate",
    "answer_kept": "answer_kept.rate",
    "recall@1": "retrieval.recall@1",
    "recall@5": "retrieval.recall@5",
    "recall@20": "retrieval.recall@20",
    "verdict_accuracy": "evaluator.accuracy",
    "decisive": "evaluator.decisive",
    "decisive_right": "evaluator.decisive_right",
    "p50_ms": "latency.total.p50_ms",
    "p95_ms": "latency.total.p95_ms",
}


@dataclass(frozen=True, slots=True)
class Gate:
    """One requirement: `mode`'s `metric` must not go `under` (or `over`) `value`."""

    mode: str
    metric: str
    path: str
    kind: Literal["under", "over"]
    value: float

    def __str__(self) -> str:
        return f"--fail-{self.kind} {self.mode}.{self.metric}={self.value:g}"


def _number(text: str, where: str) -> float:
    text = text.strip()
    try:
        return float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise CragError(f"{where}: {text!r} is not a number (use 0.7 or 70%)") from None


def parse_gate(text: str, kind: Literal["under", "over"], modes: list[str]) -> Gate:
    """`MODE.METRIC=VALUE` as a Gate; a clear error for anything else (checked before the run
    starts, so a typo does not cost an evaluation)."""
    where = f"--fail-{kind} {text}"
    name, sep, value = text.partition("=")
    mode, dot, metric = name.strip().partition(".")
    mode, metric = normalise_mode(mode), metric.strip()
    if not sep or not dot or not metric:
        raise CragError(f"{where}: use MODE.METRIC=VALUE, e.g. crag.accuracy=0.7")
    if mode not in modes:
        raise CragError(f"{where}: mode {mode!r} is not evaluated (--modes {','.join(modes)})")
    path = METRICS.get(metric, metric)
    if metric not in METRICS and "." not in metric:
        known = ", ".join(METRICS)
        raise CragError(f"{where}: unknown metric {metric!r}; use one of {known} or a dotted path")
    return Gate(mode, metric, path, kind, _number(value, where))


def _lookup(entry: Any, path: str) -> float | None:
    for key in path.split("."):
        if not isinstance(entry, dict) or key not in entry:
            return None
        entry = entry[key]
    return float(entry) if isinstance(entry, int | float) and not isinstance(entry, bool) else None


def check_gates(summary: dict[str, Any], gates: list[Gate]) -> list[str]:
    """One message per missed gate (empty: all passed)."""
    missed = []
    for g in gates:
        got = _lookup(summary["modes"].get(g.mode, {}), g.path)
        if got is None:
            missed.append(f"{g.mode}.{g.metric} was not measured by this run ({g})")
        elif (g.kind == "under" and got < g.value) or (g.kind == "over" and got > g.value):
            word = "below" if g.kind == "under" else "above"
            missed.append(f"{g.mode}.{g.metric} = {got:.4g}, {word} {g.value:g} ({g})")
    return missed

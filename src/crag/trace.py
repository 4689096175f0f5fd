"""The trace: typed records of what the pipeline decided for one question.

Every stage of the graph returns its records as a `TracePart`; LangGraph's reducer for the
state's `trace` key (`add_trace`) merges each part into a new `Trace`, so no node mutates a
shared object and every reader (`crag ask --trace`, the HTTP API, the eval harness, the
benches) reads named, typed fields. The records are pydantic models: the HTTP API ships the
same schema (`AskResponse.trace`), and a trace stored as JSON (an eval record) reads back with
`Trace.model_validate`. The JSON field names are those the web page reads.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from crag.modes import Mode
from crag.types import ModelCall, ScoredChunk, Strip, Verdict

__all__ = [
    "CandidateRecord",
    "ClaimRecord",
    "EscalationRecord",
    "Evaluation",
    "Hit",
    "PageRecord",
    "ReflectionRecord",
    "ReflectionRound",
    "RewriteRecord",
    "StripRecord",
    "Thresholds",
    "Trace",
    "TracePart",
    "VerificationRecord",
    "WebRecord",
    "WebResultRecord",
    "WebStripRecord",
    "add_trace",
    "judge_score",
]


class _Record(BaseModel):
    # frozen: a record is never changed after a node returned it; extra fields are ignored so
    # a trace stored by another version (an eval record) still reads back
    model_config = ConfigDict(frozen=True, extra="ignore")


def judge_score(value: float) -> float | None:
    """A judge score for the trace: None where the judge could not score (NaN)."""
    return None if math.isnan(value) else round(value, 4)


class Hit(_Record):
    """A retrieved (or reranked) chunk: its fused score and the per-stage scores."""

    id: str
    score: float
    cite: str = ""
    scores: dict[str, float] = Field(default_factory=dict)

    @classmethod
    def of(cls, h: ScoredChunk) -> Hit:
        return cls(id=h.id, score=round(h.score, 6), cite=h.chunk.cite(), scores=h.scores)


class Evaluation(_Record):
    """The retrieval evaluator's score of one reranked chunk (None: it could not score)."""

    id: str
    score: float | None
    cite: str = ""


class Thresholds(_Record):
    upper: float
    lower: float


class EscalationRecord(_Record):
    """An AMBIGUOUS verdict escalated (crag.grading.escalation): the passage judged, the
    evaluator's score for it, the judge's P(yes) (None: unknown), its cuts and the verdict."""

    id: str
    cite: str = ""
    score: float | None
    p_yes: float | None
    upper: float
    lower: float
    verdict: Verdict


class StripRecord(_Record):
    """A knowledge strip of a local chunk: its score and whether the generator read it."""

    chunk_id: str
    score: float | None
    kept: bool
    text: str
    lead: str = ""  # its section's heading, read before it (crag.types.Strip)

    @classmethod
    def of(cls, s: Strip, kept: bool) -> StripRecord:
        return cls(
            chunk_id=s.chunk.id, score=judge_score(s.score), kept=kept, text=s.text, lead=s.lead
        )


class CandidateRecord(_Record):
    """One reading's answer in crag's modes (`crag.generate.reader`): its short answer, the
    reading that gave it ("all" sources at once or "alone [n]"), and the source where the
    question's words stand closest to it, with that alignment (source 0: tied nowhere);
    `probs`: the model's probability for each token of the short answer (empty: unknown)."""

    short: str
    reading: str
    source: int
    alignment: float
    probs: list[float] = Field(default_factory=list)


class VerificationRecord(_Record):
    """One answer check's verification: does source `source` state `short` as the answer to
    the question? `p_yes`: the generator's model's P(yes) (None: unknown, never refuses);
    `passed`: it reached `cut` (or was unknown)."""

    short: str
    source: int
    p_yes: float | None
    cut: float
    passed: bool


class RewriteRecord(_Record):
    """How the question became a web query ("model", "keywords", "rejected", ...)."""

    method: str
    keywords: list[str] = Field(default_factory=list)
    raw: str = ""  # the model's reply, cut to 200 characters
    reason: str = ""  # why the model's rewrite was not used


class WebResultRecord(_Record):
    url: str
    title: str = ""
    snippet: str = ""


class PageRecord(_Record):
    """One result page the corrector tried to read."""

    url: str
    status: Literal["read", "failed", "blocked"]
    reason: str = ""
    final_url: str = ""
    bytes: int = 0
    chars: int = 0
    truncated: bool = False
    ms: float = 0.0
    title: str = ""


class WebStripRecord(_Record):
    url: str
    kind: str  # "page" or "snippet"
    score: float
    kept: bool
    text: str


class WebRecord(_Record):
    """Everything the web correction decided: provider, query, results, pages and strips."""

    provider: str
    query: str
    rewrite: RewriteRecord
    timings_ms: dict[str, float] = Field(default_factory=dict)
    cache: Literal["hit", "miss", "off", ""] = ""
    results: list[WebResultRecord] = Field(default_factory=list)
    pages: list[PageRecord] = Field(default_factory=list)
    strips_considered: int = 0
    strips: list[WebStripRecord] = Field(default_factory=list)
    error: str = ""
    error_type: str = ""


class ClaimRecord(_Record):
    sentence: str
    cited: list[int]
    score: float | None  # P(supported); None: not judged (a refusal sentence) or unknown
    supported: bool | None


class ReflectionRound(_Record):
    """One Self-RAG round: the answer checked, the checks, and where the loop went next."""

    round: int
    answer: str
    refusal: bool
    grounded: bool
    useful: bool
    usefulness: float | None = None
    claims: list[ClaimRecord] = Field(default_factory=list)
    route: str
    why: str


class ReflectionRecord(_Record):
    """Whether and why reflection ran, its rounds, and which attempt the user reads."""

    ran: bool
    why: str
    mode: str  # the policy: "auto" or "always"
    rounds: list[ReflectionRound] = Field(default_factory=list)
    step_limit: bool = False
    final: str = ""  # how the chosen attempt was finalised ("" while the loop runs)
    chosen_round: int | None = None
    regenerations: int = 0
    web: bool = False


class TracePart(_Record):
    """What one node adds to the trace. Fields it sets replace the trace's; `calls` and
    `notes` are appended and `stages_ms` summed per stage (a Self-RAG loop repeats one)."""

    retrieved: list[Hit] = Field(default_factory=list)
    reranked: list[Hit] = Field(default_factory=list)
    evaluations: list[Evaluation] = Field(default_factory=list)
    verdict: Verdict | None = None
    thresholds: Thresholds | None = None
    escalation: EscalationRecord | None = None
    strips: list[StripRecord] = Field(default_factory=list)
    web_query: str | None = None
    web: WebRecord | None = None
    # crag's readings: every candidate answer, and the sources read alone (in that order)
    candidates: list[CandidateRecord] = Field(default_factory=list)
    read_alone: list[int] = Field(default_factory=list)
    verifications: list[VerificationRecord] = Field(default_factory=list)
    reflection: ReflectionRecord | None = None
    calls: list[ModelCall] = Field(default_factory=list)
    stages_ms: dict[str, float] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)


class _Question(_Record):
    question: str
    mode: Mode


class Trace(TracePart, _Question):
    """Everything the pipeline decided for one question, in the order it decided it
    (JSON: question and mode first, as before the records were typed)."""

    total_ms: float = 0.0

    @model_validator(mode="before")
    @classmethod
    def _empty_is_none(cls, data: Any) -> Any:
        """Traces stored before the records were typed held `{}` for a stage that did not
        run (thresholds, web, reflection); they read back as None."""
        if isinstance(data, dict):
            empty = [k for k in ("thresholds", "web", "reflection") if data.get(k) == {}]
            return {k: v for k, v in data.items() if k not in empty}
        return data

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


_ADDED = frozenset({"calls", "stages_ms", "notes"})  # appended or summed, never replaced


def add_trace(trace: TracePart, part: TracePart) -> TracePart:
    """The state's reducer: `trace` with `part` merged in, as a new record. A whole `Trace`
    (the run's start state) replaces what is there (LangGraph's empty channel value)."""
    if isinstance(part, Trace):
        return part
    update: dict[str, Any] = {name: getattr(part, name) for name in part.model_fields_set - _ADDED}
    stages = dict(trace.stages_ms)
    for name, ms in part.stages_ms.items():
        stages[name] = stages.get(name, 0.0) + ms
    update.update(
        calls=[*trace.calls, *part.calls],
        notes=[*trace.notes, *part.notes],
        stages_ms=stages,
    )
    return trace.model_copy(update=update)

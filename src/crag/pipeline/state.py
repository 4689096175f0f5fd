"""The typed state that flows through the graph, and the components its nodes call.

The state holds what the nodes pass each other and the trace. Nodes never mutate it: each
returns a partial update, and the `trace` key's reducer (`crag.trace.add_trace`) merges the
`TracePart` a node returns into a new `Trace`. `Components` are not state: they reach the
nodes as the run's context (LangGraph's `Runtime.context`), so one compiled graph per mode
serves every set of components, and drawing a graph needs none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Protocol, TypedDict

from crag.generate.generator import Generated, Generator
from crag.grading.base import RetrievalEvaluator
from crag.grading.escalation import Escalation
from crag.grading.trigger import ActionTrigger
from crag.models.reranker import Reranker
from crag.modes import Mode
from crag.refine.strips import Refiner
from crag.reflect import Reflection, Reflector, ReflectPolicy
from crag.trace import EscalationRecord, TracePart, add_trace
from crag.types import ScoredChunk, Strip, Verdict
from crag.web.corrector import WebOutcome

__all__ = ["Components", "CragState", "Retriever", "WebCorrection"]


class Retriever(Protocol):
    def search(self, query: str, k: int | None = None) -> list[ScoredChunk]: ...


class WebCorrection(Protocol):
    """Question → scored web strips and a trace record (`crag.web.WebCorrector`). Must not
    raise for a provider failure: the outcome carries the error."""

    def correct(self, question: str) -> WebOutcome: ...


class CragState(TypedDict, total=False):
    question: str
    mode: Mode
    # a `Trace` at the start; each node adds a `TracePart`, merged by `add_trace`
    trace: Annotated[TracePart, add_trace]
    retrieved: list[ScoredChunk]
    titled: bool  # the candidates come from documents with several titles (crag.titles)
    reranked: list[ScoredChunk]
    scores: list[float]
    verdict: Verdict
    escalation: EscalationRecord  # the AMBIGUOUS verdict was escalated (crag.grading.escalation)
    strips: list[Strip]
    web_strips: list[Strip]
    refuse_reason: str
    generated: Generated
    # Self-RAG's loop: what it has tried, how often, and where it goes next
    web_done: bool
    feedback: str  # unsupported claims named for the next generation
    attempts: list[tuple[Generated, Reflection]]
    regenerations: int
    steps: int
    route: str


@dataclass(slots=True)
class Components:
    """Everything the graph calls: the run's context (`Runtime[Components].context`). Built
    by `crag.pipeline.build` from settings, or by hand."""

    retriever: Retriever
    evaluator: RetrievalEvaluator
    trigger: ActionTrigger
    refiner: Refiner
    generator: Generator
    reranker: Reranker | None = None
    # AMBIGUOUS: the generator's model judges the best passage (crag.grading.escalation)
    escalation: Escalation | None = None
    web: WebCorrection | None = None
    reflector: Reflector | None = None  # Self-RAG's checks; needed by mode "self-crag" only
    policy: ReflectPolicy = field(default_factory=ReflectPolicy)
    retrieve_k: int = 20
    rerank_k: int = 5
    rerank_weight: float = 1.0  # share of the reranker's score; the rest is the fused score
    # AMBIGUOUS with web search: strips read at most, local and web together (0: all kept)
    merged_top_k: int = 0
    # read chunks with their document's title where the candidates' titles differ (crag.titles)
    titles: bool = True

"""The CRAG graph: LangGraph wiring of the nodes, and nothing else.

    retrieve → rerank → evaluate ─┬─ CORRECT   → refine ──────────────→ generate
                                  ├─ AMBIGUOUS → refine → web_search → generate  (local + web)
                                  └─ INCORRECT → web_search ──────────→ generate  (web only)

`web_search` calls the `WebCorrector` (rewrite → search → read pages → strips judged by the
same evaluator); without one configured, or when it fails, it records why in the trace.

`mode="rag"` is the baseline the corrective steps are measured against: retrieve → rerank →
generate with the same models.

`mode="self-crag"` adds Self-RAG's reflection after generation (`crag.reflect`):

    generate → reflect ─┬─ finish       → END
                        ├─ regenerate   → generate      (unsupported claims named)
                        └─ web_search   → generate      (once: grounded but not useful)

The loop is bounded twice: the reflect node finishes at `policy.max_steps` rounds with a flag,
and LangGraph's `recursion_limit` (`recursion_limit(components)`) sits above that as a last
guard against a wiring mistake.

The shape depends on the mode alone: the components reach the nodes as the run's context
(`graph.invoke(state, context=components)`), so each mode's graph is compiled once per process
(`build_graph(mode)`) and drawing one loads nothing.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from crag.modes import MODES, Mode
from crag.pipeline.nodes import NODES
from crag.pipeline.state import Components, CragState
from crag.types import Verdict

__all__ = ["MODES", "RECURSION_LIMIT", "CragGraph", "build_graph", "recursion_limit"]

RECURSION_LIMIT = 25  # the corrective graph without reflection takes at most 7 steps

CragGraph = CompiledStateGraph[CragState, Components, CragState, CragState]


def recursion_limit(components: Components) -> int:
    """LangGraph's step bound: the base graph plus up to 3 nodes per reflection round."""
    return RECURSION_LIMIT + 3 * components.policy.max_steps


def _after_evaluate(state: CragState) -> Literal["refine", "web_search"]:
    return "web_search" if state["verdict"] is Verdict.INCORRECT else "refine"


def _after_refine(state: CragState) -> Literal["web_search", "generate"]:
    return "web_search" if state["verdict"] is Verdict.AMBIGUOUS else "generate"


def _after_reflect(state: CragState) -> Literal["generate", "web_search", "__end__"]:
    route = state.get("route", "finish")
    if route == "regenerate":
        return "generate"
    return "web_search" if route == "web_search" else "__end__"


def build_graph(mode: Mode | str = Mode.CRAG) -> CragGraph:
    """The compiled StateGraph for `mode` (one of `MODES`), shared by every run."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    return _compiled(Mode(mode))


@cache
def _compiled(mode: Mode) -> CragGraph:
    graph = StateGraph(CragState, context_schema=Components)
    graph.add_node("retrieve", NODES["retrieve"])
    graph.add_node("rerank", NODES["rerank"])
    graph.add_edge(START, "retrieve")
    graph.add_edge("retrieve", "rerank")
    if mode == Mode.RAG:
        graph.add_node("generate", NODES["generate_from_passages"])
        graph.add_edge("rerank", "generate")
    else:
        graph.add_node("generate", NODES["generate"])
        graph.add_node("evaluate", NODES["evaluate"])
        graph.add_node("refine", NODES["refine"])
        graph.add_node("web_search", NODES["web_search"])
        graph.add_edge("rerank", "evaluate")
        graph.add_conditional_edges("evaluate", _after_evaluate, ["refine", "web_search"])
        graph.add_conditional_edges("refine", _after_refine, ["web_search", "generate"])
        graph.add_edge("web_search", "generate")
    if mode == Mode.SELF_CRAG:
        graph.add_node("reflect", NODES["reflect"])
        graph.add_edge("generate", "reflect")
        graph.add_conditional_edges(
            "reflect", _after_reflect, {"generate": "generate", "web_search": "web_search",
                                        "__end__": END}
        )  # fmt: skip
    else:
        graph.add_edge("generate", END)
    return graph.compile()

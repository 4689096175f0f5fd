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
"""

from __future__ import annotations

from typing import Any, Literal

from crag.modes import Mode
from crag.pipeline.nodes import make_nodes
from crag.pipeline.state import Components, CragState
from crag.types import Verdict

__all__ = ["MODES", "RECURSION_LIMIT", "build_graph", "recursion_limit"]

MODES = tuple(Mode)
RECURSION_LIMIT = 25  # the corrective graph without reflection takes at most 7 steps


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


def build_graph(components: Components, mode: str = Mode.CRAG) -> Any:
    """A compiled StateGraph for `mode` (one of `MODES`)."""
    from langgraph.graph import END, START, StateGraph

    nodes = make_nodes(components)
    graph = StateGraph(CragState)
    graph.add_node("retrieve", nodes["retrieve"])
    graph.add_node("rerank", nodes["rerank"])
    graph.add_node("generate", nodes["generate"])
    graph.add_edge(START, "retrieve")
    graph.add_edge("retrieve", "rerank")
    if mode == Mode.RAG:
        graph.add_edge("rerank", "generate")
    elif mode in (Mode.CRAG, Mode.SELF_CRAG):
        graph.add_node("evaluate", nodes["evaluate"])
        graph.add_node("refine", nodes["refine"])
        graph.add_node("web_search", nodes["web_search"])
        graph.add_edge("rerank", "evaluate")
        graph.add_conditional_edges("evaluate", _after_evaluate, ["refine", "web_search"])
        graph.add_conditional_edges("refine", _after_refine, ["web_search", "generate"])
        graph.add_edge("web_search", "generate")
    else:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == Mode.SELF_CRAG:
        if components.reflector is None:
            raise ValueError(f"mode '{Mode.SELF_CRAG}' needs a reflector (crag.reflect.Reflector)")
        graph.add_node("reflect", nodes["reflect"])
        graph.add_edge("generate", "reflect")
        graph.add_conditional_edges(
            "reflect", _after_reflect, {"generate": "generate", "web_search": "web_search",
                                        "__end__": END}
        )  # fmt: skip
    else:
        graph.add_edge("generate", END)
    return graph.compile()

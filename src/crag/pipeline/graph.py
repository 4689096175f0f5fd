"""The CRAG graph: LangGraph wiring of the nodes, and nothing else.

    retrieve → rerank → evaluate ─┬─ CORRECT   → refine ──────────────→ generate
                                  ├─ AMBIGUOUS → refine → web_search → generate  (local + web)
                                  └─ INCORRECT → web_search ──────────→ generate  (web only)

`web_search` calls the `WebCorrector` (rewrite → search → read pages → strips judged by the
same evaluator); without one configured, or when it fails, it records why in the trace.

`mode="rag"` is the baseline the corrective steps are measured against: retrieve → rerank →
generate with the same models. The graph has no cycles yet; `recursion_limit` still bounds it
so a future loop (Self-RAG) cannot run away.
"""

from __future__ import annotations

from typing import Any, Literal

from crag.pipeline.nodes import make_nodes
from crag.pipeline.state import Components, CragState
from crag.types import Verdict

__all__ = ["RECURSION_LIMIT", "build_graph"]

RECURSION_LIMIT = 25


def _after_evaluate(state: CragState) -> Literal["refine", "web_search"]:
    return "web_search" if state["verdict"] is Verdict.INCORRECT else "refine"


def _after_refine(state: CragState) -> Literal["web_search", "generate"]:
    return "web_search" if state["verdict"] is Verdict.AMBIGUOUS else "generate"


def build_graph(components: Components, mode: Literal["crag", "rag"] = "crag") -> Any:
    """A compiled StateGraph for `mode`."""
    from langgraph.graph import END, START, StateGraph

    nodes = make_nodes(components)
    graph = StateGraph(CragState)
    graph.add_node("retrieve", nodes["retrieve"])
    graph.add_node("rerank", nodes["rerank"])
    graph.add_node("generate", nodes["generate"])
    graph.add_edge(START, "retrieve")
    graph.add_edge("retrieve", "rerank")
    if mode == "rag":
        graph.add_edge("rerank", "generate")
    elif mode == "crag":
        graph.add_node("evaluate", nodes["evaluate"])
        graph.add_node("refine", nodes["refine"])
        graph.add_node("web_search", nodes["web_search"])
        graph.add_edge("rerank", "evaluate")
        graph.add_conditional_edges("evaluate", _after_evaluate, ["refine", "web_search"])
        graph.add_conditional_edges("refine", _after_refine, ["web_search", "generate"])
        graph.add_edge("web_search", "generate")
    else:
        raise ValueError(f"mode must be 'crag' or 'rag', not {mode!r}")
    graph.add_edge("generate", END)
    return graph.compile()

"""The graph's shape depends on the mode alone, and the trace is merged, never mutated.

Drawing or checking a mode's graph needs no components (they reach the nodes as the run's
context), each mode is compiled once, and `add_trace` — the state's reducer — returns new
records: calls and notes appended, stage times summed, the other fields replaced.
"""

from __future__ import annotations

import pytest

from crag.modes import Mode
from crag.pipeline.graph import build_graph
from crag.trace import Hit, ReflectionRecord, Trace, TracePart, add_trace
from crag.types import ModelCall, Verdict

EDGES = {
    Mode.RAG: {"retrieve", "rerank", "generate"},
    Mode.CRAG: {"retrieve", "rerank", "evaluate", "refine", "web_search", "generate"},
    Mode.SELF_CRAG: {"retrieve", "rerank", "evaluate", "refine", "web_search", "generate",
                     "reflect"},
}  # fmt: skip


@pytest.mark.parametrize("mode", list(Mode))
def test_each_mode_is_drawn_without_components_and_compiled_once(mode: Mode) -> None:
    graph = build_graph(mode)
    assert graph is build_graph(mode.value)  # a plain string names the same graph
    assert set(graph.get_graph().nodes) - {"__start__", "__end__"} == EDGES[mode]
    assert "generate" in graph.get_graph().draw_mermaid()


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError):
        build_graph("self-rag")


def _call(purpose: str) -> ModelCall:
    return ModelCall("grader", "m", purpose, 10, 1, 5.0)


def test_add_trace_appends_sums_and_replaces_without_mutating() -> None:
    start = Trace(question="q", mode=Mode.CRAG)
    first = add_trace(start, TracePart(retrieved=[Hit(id="a", score=0.5)], stages_ms={"r": 2.0},
                                       calls=[_call("evaluate")], notes=["one"]))  # fmt: skip
    second = add_trace(first, TracePart(verdict=Verdict.CORRECT, stages_ms={"r": 3.0},
                                        calls=[_call("rewrite")], notes=["two"]))  # fmt: skip
    assert isinstance(second, Trace) and second.question == "q"
    assert [h.id for h in second.retrieved] == ["a"]  # kept: the part did not set it
    assert second.verdict is Verdict.CORRECT and second.stages_ms == {"r": 5.0}
    assert [c.purpose for c in second.calls] == ["evaluate", "rewrite"]
    assert second.notes == ["one", "two"]
    assert start.retrieved == [] and start.calls == [] and first.verdict is None  # unchanged


def test_a_reflection_record_is_replaced_whole_and_a_new_trace_restarts() -> None:
    record = ReflectionRecord(ran=True, why="w", mode="always")
    trace = add_trace(Trace(question="q", mode=Mode.SELF_CRAG), TracePart(reflection=record))
    assert trace.reflection is not None and trace.reflection.ran
    fresh = Trace(question="other", mode=Mode.RAG)
    assert add_trace(trace, fresh) is fresh


def test_a_stored_trace_with_empty_stages_reads_back() -> None:
    """Eval records written before the trace was typed held {} for stages that did not run."""
    old = {"question": "q", "mode": "rag", "thresholds": {}, "web": {}, "reflection": {},
           "retrieved": [{"id": "a", "score": 1.0, "cite": "x"}], "total_ms": 3.0}  # fmt: skip
    trace = Trace.model_validate(old)
    assert trace.web is None and trace.thresholds is None and trace.retrieved[0].cite == "x"
    assert Trace.model_validate(trace.to_dict()) == trace

"""Run the graph for a question: to an `Answer`, or as a stream of events.

`Pipeline` holds one set of components and runs each mode's compiled graph (shared by every
pipeline: `build_graph(mode)`) with them as the run's context. `ask` returns the answer with
its trace; `stream` yields `("node", name, update)` as each node finishes and
`("token", text)` as the generator writes (its NOT_FOUND marker held back and removed:
`crag.generate.marker.clean_drafts`), then `("answer", Answer)`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, cast

from langchain_core.runnables import RunnableConfig

from crag.errors import CragError
from crag.generate.marker import clean_drafts
from crag.modes import Mode
from crag.pipeline.graph import MODES, CragGraph, build_graph, recursion_limit
from crag.pipeline.state import Components, CragState
from crag.trace import Trace
from crag.types import Answer

__all__ = ["Mode", "Pipeline"]

Event = tuple[Any, ...]  # ("node", name, update) | ("token", text) | ("answer", Answer)


class Pipeline:
    def __init__(self, components: Components) -> None:
        self.components = components

    def graph(self, mode: Mode | str = Mode.CRAG) -> CragGraph:
        return build_graph(Mode(mode))

    def _start(self, question: str, mode: Mode | str) -> CragState:
        if mode not in MODES:
            raise CragError(f"mode {mode!r}: use one of {', '.join(MODES)}")
        if not question or not question.strip():
            raise CragError("question: empty; ask something")
        if mode == Mode.SELF_CRAG and self.components.reflector is None:
            raise ValueError(f"mode '{Mode.SELF_CRAG}' needs a reflector (crag.reflect.Reflector)")
        q = question.strip()
        return {"question": q, "mode": Mode(mode), "trace": Trace(question=q, mode=Mode(mode))}

    def _config(self) -> RunnableConfig:
        return {"recursion_limit": recursion_limit(self.components)}

    @staticmethod
    def _answer(state: CragState, started: float) -> Answer:
        trace = state["trace"]
        assert isinstance(trace, Trace)  # the start state's, merged by `add_trace`
        trace = trace.model_copy(update={"total_ms": (time.perf_counter() - started) * 1000})
        generated = state["generated"]
        step_limit = trace.reflection is not None and trace.reflection.step_limit
        return Answer(
            question=state["question"],
            text=generated.text,
            citations=generated.citations,
            verdict=state.get("verdict"),
            refused=generated.refused,
            trace=trace,
            reason=state.get("refuse_reason", "") if generated.refused else "",
            flags=["step_limit"] if step_limit else [],
        )

    def ask(self, question: str, mode: Mode | str = Mode.CRAG) -> Answer:
        started = time.perf_counter()
        start = self._start(question, mode)
        state = self.graph(start["mode"]).invoke(start, self._config(), context=self.components)
        return self._answer(cast(CragState, state), started)

    def stream(self, question: str, mode: Mode | str = Mode.CRAG) -> Iterator[Event]:
        return clean_drafts(self._events(question, mode))

    def _events(self, question: str, mode: Mode | str) -> Iterator[Event]:
        """The graph's events as they come (drafts with the model's marker in them)."""
        started = time.perf_counter()
        state = self._start(question, mode)
        events = self.graph(state["mode"]).stream(
            state,
            self._config(),
            context=self.components,
            stream_mode=["updates", "custom", "values"],
        )
        for kind, payload in cast(Iterator[tuple[str, Any]], events):
            if kind == "custom" and "token" in payload:
                yield ("token", payload["token"])
            elif kind == "updates":
                for node, update in payload.items():
                    yield ("node", node, update or {})
            elif kind == "values":  # the whole state after each step, reducers applied
                state = payload
        yield ("answer", self._answer(state, started))

    def mermaid(self, mode: Mode | str = Mode.CRAG) -> str:
        return self.graph(mode).get_graph().draw_mermaid()

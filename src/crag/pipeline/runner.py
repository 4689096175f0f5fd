"""Run the graph for a question: to an `Answer`, or as a stream of events.

`Pipeline` owns the compiled graphs (crag, rag, self-crag) over one set of components. `ask`
returns the answer with its trace; `stream` yields `("node", name, update)` as each node
finishes and `("token", text)` as the generator writes, then `("answer", Answer)`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from crag.modes import Mode
from crag.pipeline.graph import MODES, build_graph, recursion_limit
from crag.pipeline.state import Components
from crag.types import Answer, Trace, Verdict

__all__ = ["Mode", "Pipeline"]


class Pipeline:
    def __init__(self, components: Components) -> None:
        self.components = components
        self._graphs: dict[str, Any] = {}

    def graph(self, mode: Mode = Mode.CRAG) -> Any:
        if mode not in self._graphs:
            self._graphs[mode] = build_graph(self.components, mode)
        return self._graphs[mode]

    def _start(self, question: str, mode: Mode) -> dict[str, Any]:
        if mode not in MODES:
            from crag.errors import CragError

            raise CragError(f"mode {mode!r}: use one of {', '.join(MODES)}")
        if not question or not question.strip():
            from crag.errors import CragError

            raise CragError("question: empty; ask something")
        return {"question": question.strip(), "trace": Trace(question=question.strip(), mode=mode)}

    @staticmethod
    def _answer(state: dict[str, Any], started: float) -> Answer:
        trace: Trace = state["trace"]
        trace.total_ms = (time.perf_counter() - started) * 1000
        generated = state["generated"]
        verdict = state.get("verdict")
        return Answer(
            question=state["question"],
            text=generated.text,
            citations=generated.citations,
            verdict=verdict if isinstance(verdict, Verdict) else None,
            refused=generated.refused,
            trace=trace,
            reason=state.get("refuse_reason", "") if generated.refused else "",
            flags=["step_limit"] if trace.reflection.get("step_limit") else [],
        )

    def ask(self, question: str, mode: Mode = Mode.CRAG) -> Answer:
        started = time.perf_counter()
        state = self.graph(mode).invoke(
            self._start(question, mode), {"recursion_limit": recursion_limit(self.components)}
        )
        return self._answer(state, started)

    def stream(self, question: str, mode: Mode = Mode.CRAG) -> Iterator[tuple[Any, ...]]:
        started = time.perf_counter()
        state = self._start(question, mode)
        for kind, payload in self.graph(mode).stream(
            state,
            {"recursion_limit": recursion_limit(self.components)},
            stream_mode=["updates", "custom"],
        ):
            if kind == "custom" and "token" in payload:
                yield ("token", payload["token"])
            elif kind == "updates":
                for node, update in payload.items():
                    state.update(update or {})
                    yield ("node", node, update or {})
        yield ("answer", self._answer(state, started))

    def mermaid(self, mode: Mode = Mode.CRAG) -> str:
        return self.graph(mode).get_graph().draw_mermaid()

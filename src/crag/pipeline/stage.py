"""Timing and model-call recording for one stage of the graph, shared by every node."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from crag.models.llm.roles import recording_calls, recording_notes
from crag.types import Trace

__all__ = ["stage"]


@contextmanager
def stage(trace: Trace, name: str) -> Iterator[None]:
    """Add the stage's wall time to `trace.stages_ms[name]` (summed over repeats, as in a
    Self-RAG loop) and its model calls and notes to the trace."""
    started = time.perf_counter()
    with recording_calls() as calls, recording_notes() as notes:
        try:
            yield
        finally:
            trace.calls.extend(calls)
            trace.notes.extend(notes)
            ms = (time.perf_counter() - started) * 1000
            trace.stages_ms[name] = trace.stages_ms.get(name, 0.0) + ms

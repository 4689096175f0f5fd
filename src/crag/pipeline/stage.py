"""Timing and model-call recording for one stage of the graph, shared by every node.

A node runs its component inside `with stage("name") as log:` and returns
`log.part(TracePart(...))`: its own records plus the stage's wall time and the model calls
made and notes added inside the block. The state's reducer merges the part into the trace.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from crag.models.llm.roles import recording_calls, recording_notes
from crag.trace import TracePart
from crag.types import ModelCall

__all__ = ["StageLog", "stage"]


@dataclass(slots=True)
class StageLog:
    """What one stage recorded; local to the node that runs it, never shared."""

    name: str
    ms: float = 0.0
    calls: list[ModelCall] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def part(self, records: TracePart | None = None) -> TracePart:
        """The trace part of this stage: the node's `records` with the stage's time, its
        model calls, and the components' notes before the node's own."""
        records = records or TracePart()
        return records.model_copy(
            update={
                "calls": [*self.calls, *records.calls],
                "stages_ms": {self.name: self.ms},
                "notes": [*self.notes, *records.notes],
            }
        )


@contextmanager
def stage(name: str) -> Iterator[StageLog]:
    """Time the block and collect the model calls and notes made inside it."""
    log = StageLog(name)
    started = time.perf_counter()
    with recording_calls() as calls, recording_notes() as notes:
        try:
            yield log
        finally:
            log.calls = list(calls)
            log.notes = list(notes)
            log.ms = (time.perf_counter() - started) * 1000

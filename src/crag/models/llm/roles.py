"""Roles (`grader`, `generator`, ...) and the record of every model call.

A role is an LLM with a job. `RoleLLM` wraps any provider, and each call it makes is appended
to the call log of the current context (a `contextvars` variable), so the pipeline's trace gets
role, model, tokens and latency of every call without components passing a trace around.
`parallel_map` copies the context into its worker threads so parallel calls are recorded too.
`add_note` works the same way for things a component wants the trace to show — a judge reply
that could not be read, for instance — without the component holding the trace.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

from crag.models.llm.base import LLM, ChatRequest, ChatResult, Health, stream_chat
from crag.types import ModelCall

__all__ = ["RoleLLM", "add_note", "parallel_map", "recording_calls", "recording_notes"]

T = TypeVar("T")
R = TypeVar("R")
_CALLS: contextvars.ContextVar[list[ModelCall] | None] = contextvars.ContextVar(
    "crag_model_calls", default=None
)


_NOTES: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "crag_trace_notes", default=None
)


@contextmanager
def recording_notes() -> Iterator[list[str]]:
    """Collect the notes components add (with `add_note`) inside the block."""
    notes: list[str] = []
    token = _NOTES.set(notes)
    try:
        yield notes
    finally:
        _NOTES.reset(token)


def add_note(text: str) -> None:
    """Add a note to the trace being recorded, if any (a no-op outside the pipeline)."""
    notes = _NOTES.get()
    if notes is not None:
        notes.append(text)


@contextmanager
def recording_calls() -> Iterator[list[ModelCall]]:
    """Collect every RoleLLM call made inside the block (including from parallel_map threads)."""
    calls: list[ModelCall] = []
    token = _CALLS.set(calls)
    try:
        yield calls
    finally:
        _CALLS.reset(token)


def parallel_map(fn: Callable[[T], R], items: Iterable[T], concurrency: int) -> list[R]:
    """`[fn(x) for x in items]`, run on up to `concurrency` threads, order kept."""
    items = list(items)
    if concurrency <= 1 or len(items) <= 1:
        return [fn(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(concurrency, len(items))) as pool:
        futures = [pool.submit(contextvars.copy_context().run, fn, item) for item in items]
        return [future.result() for future in futures]


class RoleLLM:
    """An LLM playing a role; records each call. Itself an `LLM`, so it nests anywhere."""

    def __init__(self, role: str, llm: LLM) -> None:
        self.role = role
        self.llm = llm
        self.name = llm.name
        self.provider = str(getattr(llm, "provider", ""))

    def _record(self, purpose: str, result: ChatResult, started: float) -> None:
        calls = _CALLS.get()
        if calls is not None:
            calls.append(
                ModelCall(
                    role=self.role,
                    model=self.name,
                    purpose=purpose,
                    prompt_tokens=result.prompt_tokens,
                    completion_tokens=result.completion_tokens,
                    latency_ms=(time.perf_counter() - started) * 1000,
                    provider=self.provider,
                    attempts=result.attempts,
                    cached_tokens=result.cached_tokens,
                )
            )

    def chat(self, request: ChatRequest) -> ChatResult:
        started = time.perf_counter()
        result = self.llm.chat(request)
        self._record(request.purpose, result, started)
        return result

    def check(self) -> Health:
        """The wrapped provider's health check (reachable, model present), if it has one."""
        check = getattr(self.llm, "check", None)
        return check() if callable(check) else Health(True, "no check available")

    def stream(self, request: ChatRequest, on_token: Callable[[str], None]) -> ChatResult:
        started = time.perf_counter()
        result = stream_chat(self.llm, request, on_token)
        self._record(request.purpose, result, started)
        return result

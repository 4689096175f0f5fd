"""Follow-up questions made standalone: "and when did it open?" after a question about a
bridge becomes "When did the Fatih Sultan Mehmet Bridge open?" before retrieval, because
retrieval, judging and generation see one question at a time and "it" retrieves nothing.

One call to the configured LLM (the generator's by default) with the last few turns of the
conversation; without history there is no call. A reply that is not one plausible question
(empty, an answer instead, far too long) is not used: the question is asked as it was typed.
`crag chat`, the web page and the OpenAI endpoint (which receives the history) use this.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from crag.models.llm.base import LLM, ChatRequest, Message
from crag.types import Answer, ModelCall

__all__ = [
    "FollowUps",
    "Rewrite",
    "Turn",
    "ask_followup",
    "followups_for",
    "noted",
    "stream_followup",
    "strip_sources",
]

SYSTEM = (
    "You rewrite the user's last question so it can be understood without the conversation: "
    "replace pronouns (it, its, they, he, she, there, that, this one) and left-out subjects "
    "with the names they refer to in the conversation. Keep the question's language and "
    "meaning. If it is already understandable on its own, repeat it unchanged. Do not answer "
    "it. Reply with the question only, on one line."
)
EXAMPLE = (
    Message(
        "user",
        "Conversation:\nQ: Who designed the Eiffel Tower?\nA: Gustave Eiffel's company "
        "designed it [1].\n\nLast question: and when was it finished?",
    ),
    Message("assistant", "When was the Eiffel Tower finished?"),
)
_MARK = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")
_PREFIX = re.compile(r"^(?:standalone question|question|rewritten(?: question)?)\s*:\s*", re.I)


@dataclass(frozen=True, slots=True)
class Turn:
    """One earlier exchange of a conversation."""

    question: str
    answer: str


@dataclass(frozen=True, slots=True)
class Rewrite:
    """The question to run, what was typed, and how it was decided ("none": no history;
    "model": rewritten; "kept": the model's reply was unusable or the same)."""

    question: str
    original: str
    method: str
    raw: str = ""
    call: ModelCall | None = None

    @property
    def changed(self) -> bool:
        return self.question != self.original


def strip_sources(answer: str) -> str:
    """An answer without its "Sources:" listing and `[n]` markers (as the OpenAI endpoint
    sends answers back in the history)."""
    head = answer.split("\n\nSources:\n", 1)[0]
    return _MARK.sub("", head).strip()


class FollowUps:
    def __init__(self, llm: LLM | None, *, max_turns: int = 3, max_tokens: int = 64) -> None:
        self.llm = llm
        self.max_turns = max_turns
        self.max_tokens = max_tokens

    def standalone(self, question: str, history: Sequence[Turn]) -> Rewrite:
        question = question.strip()
        turns = [t for t in history if t.question.strip()][-self.max_turns :]
        if not turns or self.llm is None:
            return Rewrite(question, question, "none")
        listing = "\n".join(
            f"Q: {t.question.strip()}\nA: {strip_sources(t.answer)[:600]}" for t in turns
        )
        request = ChatRequest(
            messages=(
                Message("system", SYSTEM),
                *EXAMPLE,
                Message("user", f"Conversation:\n{listing}\n\nLast question: {question}"),
            ),
            max_tokens=self.max_tokens,
            temperature=0.0,
            purpose="rewrite follow-up",
        )
        started = time.perf_counter()
        result = self.llm.chat(request)
        call = ModelCall(
            role=str(getattr(self.llm, "role", "rewriter")),
            model=str(getattr(self.llm, "name", "")),
            purpose="rewrite follow-up",
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
            latency_ms=(time.perf_counter() - started) * 1000,
            provider=str(getattr(self.llm, "provider", "")),
            cached_tokens=result.cached_tokens,
        )
        raw = result.text
        rewritten = self._clean(raw)
        if not self._plausible(rewritten, question):
            return Rewrite(question, question, "kept", raw, call)
        method = "model" if rewritten != question else "kept"
        return Rewrite(rewritten, question, method, raw, call)

    @staticmethod
    def _clean(raw: str) -> str:
        lines = [line.strip() for line in raw.strip().splitlines() if line.strip()]
        text = lines[0] if lines else ""
        text = _PREFIX.sub("", text).strip().strip("\"'“”«»").strip()
        return text

    @staticmethod
    def _plausible(text: str, question: str) -> bool:
        if not text or len(text) > 3 * len(question) + 160:
            return False
        # a question, not an answer: ends as one, or the typed question did not either
        return text.endswith(("?", "？", "؟")) or not question.endswith("?")


def noted(answer: Answer, rewrite: Rewrite) -> Answer:
    """The answer with the rewrite in its trace: the model call, its time, and a note."""
    trace = answer.trace
    if rewrite.call is not None:
        ms = rewrite.call.latency_ms
        trace = trace.model_copy(
            update={
                "calls": [rewrite.call, *trace.calls],
                "stages_ms": {"followup": round(ms, 1)} | trace.stages_ms,
                "total_ms": trace.total_ms + ms,
            }
        )
    if rewrite.changed:
        note = f"follow-up {rewrite.original!r} asked as {rewrite.question!r}"
        trace = trace.model_copy(update={"notes": [note, *trace.notes]})
    return replace(answer, trace=trace)


def ask_followup(
    pipeline: Any, followups: FollowUps, question: str, history: Sequence[Turn], mode: Any
) -> Answer:
    """`pipeline.ask` of the standalone form of `question`."""
    rewrite = followups.standalone(question, history)
    return noted(pipeline.ask(rewrite.question, mode), rewrite)


def stream_followup(
    pipeline: Any, followups: FollowUps, question: str, history: Sequence[Turn], mode: Any
) -> Iterator[tuple[Any, ...]]:
    """`pipeline.stream` of the standalone form of `question` (a `("rewrite", Rewrite)` event
    first when there was history)."""
    rewrite = followups.standalone(question, history)
    if rewrite.method != "none":
        yield ("rewrite", rewrite)
    for item in pipeline.stream(rewrite.question, mode):
        if item[0] == "answer":
            item = ("answer", noted(item[1], rewrite))
        yield item


def followups_for(pipeline: Any) -> FollowUps:
    """A `FollowUps` over the pipeline's generator LLM (the configured generator role)."""
    generator = getattr(pipeline.components, "generator", None)
    return FollowUps(getattr(generator, "llm", None))

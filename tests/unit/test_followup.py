"""Follow-ups made standalone (`crag.followup`) with a scripted model: no call without
history, the model's reply cleaned, an unusable reply not used, the rewrite in the trace."""

from __future__ import annotations

from crag.followup import FollowUps, Turn, noted, strip_sources
from crag.models.llm.base import ChatRequest, ChatResult
from crag.trace import Trace
from crag.types import Answer


class Scripted:
    name = "scripted"

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.requests: list[ChatRequest] = []

    def chat(self, request: ChatRequest) -> ChatResult:
        self.requests.append(request)
        return ChatResult(self.reply, prompt_tokens=40, completion_tokens=8)


HISTORY = [Turn("Who built the Lighthouse of Alexandria?", "The Ptolemaic Kingdom [1].")]


def test_no_history_no_call() -> None:
    llm = Scripted("unused")
    out = FollowUps(llm).standalone("  Who built it? ", [])
    assert out.question == "Who built it?" and out.method == "none" and not llm.requests


def test_a_follow_up_is_rewritten_from_the_conversation() -> None:
    llm = Scripted('Standalone question: "When was the Lighthouse of Alexandria built?"\nextra')
    out = FollowUps(llm).standalone("and when was it built?", HISTORY)
    assert out.question == "When was the Lighthouse of Alexandria built?"
    assert out.method == "model" and out.changed and out.call is not None
    prompt = llm.requests[0].messages[-1].content
    assert "Q: Who built the Lighthouse" in prompt and "A: The Ptolemaic Kingdom." in prompt
    assert prompt.endswith("Last question: and when was it built?")


def test_an_unusable_reply_keeps_the_question() -> None:
    for reply in ("", "It was built between 280 and 247 BC.", "why? " * 200):
        out = FollowUps(Scripted(reply)).standalone("and when was it built?", HISTORY)
        assert out.question == "and when was it built?" and out.method == "kept", reply


def test_only_the_last_turns_are_sent() -> None:
    llm = Scripted("What about the third?")
    turns = [Turn(f"question {i}", f"answer {i}") for i in range(6)]
    FollowUps(llm, max_turns=2).standalone("and the third?", turns)
    prompt = llm.requests[0].messages[-1].content
    assert "question 5" in prompt and "question 4" in prompt and "question 3" not in prompt


def test_the_rewrite_is_noted_in_the_trace() -> None:
    out = FollowUps(Scripted("When was it built, the lighthouse?")).standalone("and when?", HISTORY)
    trace = Trace(question=out.question, mode="crag")
    answer = noted(Answer(out.question, "280 BC [1].", [], None, False, trace), out)
    assert answer.trace.calls[0].purpose == "rewrite follow-up"
    assert "followup" in answer.trace.stages_ms
    assert answer.trace.notes[0].startswith("follow-up 'and when?' asked as")


def test_sources_and_markers_are_stripped_from_answers() -> None:
    text = "Paris [1], on the Seine [2, 3].\n\nSources:\n[1] a.md\n[2] b.md"
    assert strip_sources(text) == "Paris, on the Seine."

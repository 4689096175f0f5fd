"""Questions generated from chunks: what a small model writes is checked before it is used."""

from __future__ import annotations

import json

import pytest

from crag.calibrate.questions import (
    GeneratedQuestion,
    Rejected,
    ask_for_question,
    parse_question,
    sample_chunks,
)
from crag.models.llm.base import ChatRequest, ChatResult
from crag.types import Chunk

PASSAGE = (
    "The Rhine Falls near Schaffhausen is the largest plain waterfall in Europe. It is 23 "
    "metres high and 150 metres wide, and it formed about 15,000 years ago."
)


def reply(question: str, answer: str) -> str:
    return json.dumps({"question": question, "answer": answer})


def test_a_good_reply_is_accepted_and_tidied() -> None:
    got = parse_question(reply("How high is the Rhine Falls", '"23 metres."'), PASSAGE)
    assert got == GeneratedQuestion("How high is the Rhine Falls?", "23 metres")
    fenced = "Sure!\n```json\n" + reply("Where is the Rhine Falls?", "near Schaffhausen") + "\n```"
    assert isinstance(parse_question(fenced, PASSAGE), GeneratedQuestion)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("I cannot do that.", "not a JSON object"),
        ("[1, 2]", "not a JSON object"),
        (json.dumps({"question": "How high?"}), "question or answer missing"),
        (json.dumps({"question": 3, "answer": "x"}), "question or answer missing"),
        (reply("How high is the Rhine Falls?", "..."), "empty answer"),
        (reply("How high is it?", "23 metres high and 150 metres wide, formed"), "answer too long"),
        (reply("Height?", "23 metres"), "question too short or too long"),
        (reply("How high? And how wide is it", "23 metres"), "more than a question"),
        (reply("How high is the waterfall in the passage?", "23 metres"), "refers to the passage"),
        (reply("How high are the falls we describe?", "23 metres"), "leans on its page"),
        (reply("How high is this waterfall?", "23 metres"), "leans on its page"),
        (reply("In the example, how high is the fall?", "23 metres"), "leans on its page"),
        (reply("How high is the Rhine Falls?", "40 metres"), "answer not in the chunk"),
        (reply("Is the Rhine Falls 23 metres high?", "23 metres"), "contains the answer"),
        (reply("How high is the Rhine Falls?", "23 met"), "answer not in the chunk"),
    ],
)
def test_malformed_or_unusable_replies_are_rejected(text: str, reason: str) -> None:
    got = parse_question(text, PASSAGE)
    assert isinstance(got, Rejected) and reason in got.reason, got


def test_a_country_named_us_is_not_the_authors_we() -> None:
    got = parse_question(reply("How high is the Rhine Falls, a US tourist sight?", "23 metres"),
                         PASSAGE)  # fmt: skip
    assert isinstance(got, GeneratedQuestion), got


class Scripted:
    """An LLM that replies from a script and records what it was asked."""

    name = "scripted"

    def __init__(self, *replies: str | tuple[str, str]) -> None:
        self.replies = list(replies)
        self.requests: list[ChatRequest] = []

    def chat(self, request: ChatRequest) -> ChatResult:
        self.requests.append(request)
        item = self.replies.pop(0) if self.replies else "nothing"
        text, finish = item if isinstance(item, tuple) else (item, "stop")
        return ChatResult(text=text, finish_reason=finish)


def chunk(text: str = PASSAGE, cid: str = "c1", source: str = "rhine.txt") -> Chunk:
    return Chunk(cid, text, source, "text", 0, 0, len(text))


def test_retries_are_bounded_and_vary_the_seed() -> None:
    llm = Scripted("no", (reply("How wide is the Rhine Falls?", "150 metres")[:-3], "length"))
    got, attempts = ask_for_question(llm, chunk(), attempts=2, seed=7)
    assert isinstance(got, Rejected) and got.reason == "reply cut off" and attempts == 2
    assert [r.seed for r in llm.requests] == [7, 8]
    assert [r.temperature for r in llm.requests] == [0.0, 0.7]
    first = llm.requests[0]
    assert first.json_schema is not None and PASSAGE in first.messages[1].content

    llm = Scripted("nope", reply("How wide is the Rhine Falls?", "150 metres"))
    got, attempts = ask_for_question(llm, chunk(), attempts=3)
    assert got == GeneratedQuestion("How wide is the Rhine Falls?", "150 metres") and attempts == 2


class Catalog:
    """The part of `crag.index.catalog.Catalog` the sampler reads."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self.chunks = {c.id: c for c in chunks}

    def sources(self) -> list:
        from crag.index.catalog import SourceInfo

        names = sorted({c.source for c in self.chunks.values()})
        return [SourceInfo(n, "sha", "done", 0) for n in names]

    def chunk_ids(self, source: str) -> set[str]:
        return {c.id for c in self.chunks.values() if c.source == source}

    def get_chunks(self, ids: list[str]) -> dict[str, Chunk]:
        return {i: self.chunks[i] for i in ids if i in self.chunks}


def test_the_sample_goes_round_the_sources_and_is_seeded() -> None:
    long = " ".join(["word"] * 30)
    chunks = [chunk(long, f"a{i}", "a.txt") for i in range(6)]
    chunks += [chunk(long, "b0", "b.txt"), chunk("too short", "b1", "b.txt")]
    catalog = Catalog(chunks)
    order = [c.id for c in sample_chunks(catalog, seed=1)]
    assert sorted(order) == sorted(c.id for c in chunks if c.id != "b1")  # short one skipped
    assert "b0" in order[:2]  # b.txt gets its turn in the first round, not after all of a.txt
    assert order == [c.id for c in sample_chunks(catalog, seed=1)]
    assert order != [c.id for c in sample_chunks(catalog, seed=2)] or len(order) < 3

"""The two streams on a real port, with scripted drafts: `/v1/ask` never sends the NOT_FOUND
marker as tokens and its final `answer` event carries the checked answer; the OpenAI chat
stream sends one answer — the checked one — that the OpenAI SDK reassembles to exactly the
non-streamed message. The app, index, pipeline, HTTP server and SDK are real; only the graph's
events under `Pipeline.stream` are scripted, because the behaviour under test is what a given
draft becomes on the wire (the live models' drafts are in test_server_live.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from tests.conftest import SAMPLE
from tests.servers.serving import serving

from crag.config import load_settings
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor
from crag.pipeline import build_pipeline
from crag.server import create_app
from crag.trace import Trace
from crag.types import Answer, Citation, Verdict

pytestmark = pytest.mark.slow

REFUSAL = "I could not find the answer: the indexed sources do not contain it."
CHECKED = "The waggle dance [1]."
CITE = Citation(1, "c1", "honeybees.md › Honey bees", "honeybees.md")


class Script:
    """A draft (tokens) and the checked answer the pipeline ends with."""

    def __init__(self) -> None:
        self.tokens: list[str] = []
        self.answer = answer("", True, [])

    def events(self, question: str, mode: Any = "crag") -> Iterator[tuple[Any, ...]]:
        yield ("node", "retrieve", {})
        for t in self.tokens:
            yield ("token", t)
        yield ("node", "generate", {})
        yield ("answer", self.answer)

    def ask(self, question: str, mode: Any = "crag") -> Answer:
        return self.answer


def answer(text: str, refused: bool, citations: list[Citation]) -> Answer:
    trace = Trace(question="Q?", mode="crag")
    return Answer("Q?", text, citations, Verdict.AMBIGUOUS, refused, trace)


@pytest.fixture(scope="module")
def served(tmp_path_factory, embedder) -> Iterator[tuple[str, Script]]:
    settings = load_settings(data_dir=tmp_path_factory.mktemp("streams") / "data", collection="s")
    settings.server.warmup = False
    reader = Index.open(settings, embedder=embedder)
    writer = Index.open(settings, embedder=embedder)
    Ingestor(reader, settings.ingest).ingest([SAMPLE])  # a question needs a non-empty index
    pipeline = build_pipeline(settings, reader)
    script = Script()
    pipeline._events = script.events  # type: ignore[method-assign]
    pipeline.ask = script.ask  # type: ignore[method-assign]
    try:
        app = create_app(settings, pipeline=pipeline, index=reader, writer=writer, api_keys=[])
        with serving(app) as url:
            yield url, script
    finally:
        writer.close()
        reader.close()


def sse(response: httpx.Response) -> list[tuple[str, dict]]:
    out, name, data = [], "message", []
    for line in response.iter_lines():
        if not line:
            if data:
                out.append((name, json.loads("\n".join(data))))
            name, data = "message", []
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
    return out


def ask_stream(url: str) -> list[tuple[str, dict]]:
    with httpx.Client(base_url=url, timeout=60) as client:
        body = {"question": "How do bees tell where flowers are?", "stream": True}
        with client.stream("POST", "/v1/ask", json=body) as response:
            assert response.status_code == 200
            return sse(response)


@pytest.mark.parametrize(
    "tokens", [["NOT", "_FO", "UND"], ["N", "OT", " ", "FOUND"], ["[NOT_", "FOUND]"]]
)
def test_ask_stream_never_sends_the_marker_and_ends_with_the_refusal(served, tokens) -> None:
    url, script = served
    script.tokens, script.answer = tokens, answer(REFUSAL, True, [])
    events = ask_stream(url)
    tokens_sent = "".join(d["text"] for n, d in events if n == "token")
    assert tokens_sent == ""
    assert "FOUND" not in json.dumps([d for n, d in events if n != "answer"])
    assert events[-1][0] == "answer" and events[-1][1]["answer"] == REFUSAL
    assert events[-1][1]["refused"] is True


def test_ask_stream_sends_the_draft_and_the_final_event_is_authoritative(served) -> None:
    url, script = served
    script.tokens = ["The", " waggle", " dance", " [1].", " Also", " the", " moon", "."]
    script.answer = answer(CHECKED, False, [CITE])  # the check dropped the second sentence
    events = ask_stream(url)
    draft = "".join(d["text"] for n, d in events if n == "token")
    assert draft == "".join(script.tokens)
    names = [n for n, _ in events]
    assert names.index("token") < names.index("answer") and names[-1] == "answer"
    assert events[-1][1]["answer"] == CHECKED and events[-1][1]["citations"][0]["n"] == 1


@pytest.mark.parametrize("checked", ["refusal", "answer"])
def test_chat_stream_sends_one_checked_answer(served, checked) -> None:
    url, script = served
    script.tokens = ["The", " waggle", " dance", " [1].", " Also", " the", " moon", "."]
    script.answer = (
        answer(REFUSAL, True, []) if checked == "refusal" else answer(CHECKED, False, [CITE])
    )
    client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=60)
    messages = [{"role": "user", "content": "How do bees tell where flowers are?"}]
    chunks = list(client.chat.completions.create(model="crag", messages=messages, stream=True))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    whole = client.chat.completions.create(model="crag", messages=messages)
    assert text == whole.choices[0].message.content  # the same message, streamed or not
    assert "moon" not in text and "Checked answer" not in text  # no draft, no second copy
    assert text.count(script.answer.text) == 1
    if checked == "answer":
        assert text == f"{CHECKED}\n\nSources:\n[1] {CITE.label}"
    assert sum(c.choices[0].finish_reason == "stop" for c in chunks if c.choices) == 1

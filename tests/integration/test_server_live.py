"""The service end to end with the packaged models on the sample corpus, on a real port:
ask (whole and streamed), the OpenAI client (whole and streamed), uploads as background jobs,
removal, and the admission gate's 503 + Retry-After."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import openai
import pytest
from tests.conftest import SAMPLE, share_models
from tests.servers.serving import serving

from crag.config import load_settings
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor
from crag.pipeline import build_pipeline
from crag.server import create_app
from crag.trace import Trace

pytestmark = pytest.mark.slow

QUESTION = "How do honey bees tell their nest mates where flowers are?"


@pytest.fixture(scope="module")
def parts(tmp_path_factory, embedder, llm, generator_llm):
    """Settings, reader index (the sample corpus), pipeline on the session's loaded models."""
    settings = load_settings(data_dir=tmp_path_factory.mktemp("live") / "data", collection="s")
    settings.rerank.top_k = 3
    settings.generate.max_tokens = 96
    settings.server.warmup = True  # loads nothing new: the session's models are in already
    reader = Index.open(settings, embedder=embedder)
    Ingestor(reader, settings.ingest).ingest([SAMPLE])
    pipeline = build_pipeline(settings, reader)
    share_models(pipeline, llm, generator_llm)
    yield settings, reader, pipeline
    reader.close()


@contextmanager
def app_url(parts, **server: object) -> Iterator[str]:
    settings, reader, pipeline = parts
    settings = settings.model_copy(deep=True)
    for key, value in server.items():
        setattr(settings.server, key, value)
    writer = Index.open(settings, embedder=reader.embedder)
    try:
        app = create_app(settings, pipeline=pipeline, index=reader, writer=writer, api_keys=[])
        with serving(app) as url:
            yield url
    finally:
        writer.close()


@pytest.fixture(scope="module")
def url(parts) -> Iterator[str]:
    with app_url(parts) as base:
        yield base


def sse_events(response: httpx.Response) -> Iterator[tuple[str, dict]]:
    """A minimal SSE parser (event + data lines, blank line ends an event; comments skipped)."""
    name, data = "message", []
    for line in response.iter_lines():
        if not line:
            if data:
                yield name, json.loads("\n".join(data))
            name, data = "message", []
        elif line.startswith(":"):
            continue
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())


def test_ask_and_its_stream_give_the_same_cited_answer(url, parts) -> None:
    _, reader, _ = parts
    real_ids = {r[0] for r in reader.catalog._db.execute("SELECT id FROM chunks")}
    with httpx.Client(base_url=url, timeout=600) as client:
        ready = client.get("/readyz").json()
        assert ready["status"] == "ready" and ready["warm"]
        assert set(ready["models"].values()) == {"loaded"}
        # the default evaluator is the cross-encoder (+ evidence); the grader loads on demand
        assert "qwen2.5-coder-1.5b" in ready["models"]
        assert any(name.startswith("cross-encoder") for name in ready["models"])
        assert ready["index"]["chunks"] == ready["index"]["vectors"] > 0
        whole = client.post("/v1/ask", json={"question": QUESTION})
        assert whole.status_code == 200, whole.text
        answer = whole.json()
        assert answer["mode"] == "crag" and answer["verdict"] in ("correct", "ambiguous")
        assert not answer["refused"] and answer["citations"], answer
        assert {c["chunk_id"] for c in answer["citations"]} <= real_ids
        assert any(c["source"].endswith("honeybees.md") for c in answer["citations"])
        trace = Trace.model_validate(answer["trace"])
        assert {"retrieve", "rerank", "evaluate", "generate"} <= set(trace.stages_ms)
        assert {c.role for c in trace.calls} == {"generator"}  # no LLM judge by default

        body = {"question": QUESTION, "stream": True, "options": {"trace": False}}
        with client.stream("POST", "/v1/ask", json=body) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            events = list(sse_events(response))
    names = [n for n, _ in events]
    nodes = [d["node"] for n, d in events if n == "node"]
    assert nodes[:3] == ["retrieve", "rerank", "evaluate"] and nodes[-1] == "generate"
    assert names[-1] == "answer" and "error" not in names
    tokens = [d["text"] for n, d in events if n == "token"]
    assert tokens and names.index("token") > names.index("node")  # nodes first, then tokens
    evaluated = next(d["update"] for n, d in events if n == "node" and d["node"] == "evaluate")
    assert len(evaluated["scores"]) == 3 and evaluated["verdict"] == answer["verdict"]
    final = events[-1][1]
    assert final["trace"] is None  # options.trace = false
    assert final["answer"] == answer["answer"]  # same question, same models, temperature 0
    assert final["citations"] == answer["citations"]


def test_openai_client_whole_and_streamed(url) -> None:
    client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=600)
    completion = client.chat.completions.create(
        model="rag",
        messages=[
            {"role": "system", "content": "ignored: crag answers from the documents"},
            {"role": "user", "content": [{"type": "text", "text": "Who patented the telephone?"}]},
        ],
        temperature=0.3,  # accepted and ignored, as other unknown OpenAI parameters
    )
    assert completion.object == "chat.completion" and completion.model == "rag"
    message = completion.choices[0].message
    assert message.role == "assistant" and completion.choices[0].finish_reason == "stop"
    extra = completion.model_extra["crag"]
    assert extra["mode"] == "rag" and extra["verdict"] is None
    assert Trace.model_validate(extra["trace"]).calls
    if extra["citations"]:
        assert "\n\nSources:\n[1] " in message.content
        assert "inventions.jsonl" in message.content
    assert completion.usage.prompt_tokens > 0 and completion.usage.total_tokens > 0

    stream = client.chat.completions.create(
        model="crag",
        messages=[{"role": "user", "content": QUESTION}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)  # the SDK stops at `data: [DONE]`
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    finals = [c for c in chunks if c.choices and c.choices[0].finish_reason == "stop"]
    assert len(finals) == 1
    ext = finals[0].model_extra["crag"]
    assert ext["mode"] == "crag" and ext["verdict"] in ("correct", "ambiguous", "incorrect")
    assert "NOT_FOUND" not in text
    if ext["citations"]:
        assert text.rstrip().endswith(ext["citations"][-1]["label"])
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens > 0


def _wait_job(client: httpx.Client, location: str) -> dict:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        job = client.get(location).json()
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {location} did not finish")


def test_uploads_are_jobs_named_by_the_client_stored_by_the_server(url, parts) -> None:
    settings, _, _ = parts
    uploads = settings.data_dir / "uploads" / settings.collection
    evil = b"# Saffron\n\nSaffron is harvested by hand from crocus flowers in autumn."
    records = json.dumps({"id": "r1", "title": "Kelp", "text": "Kelp forests grow in cold water."})
    with httpx.Client(base_url=url, timeout=60) as client:
        before = {s["source"] for s in client.get("/v1/documents").json()["sources"]}
        sent = client.post(
            "/v1/documents",
            files=[
                ("files", ("..\\..\\..\\saffron.md", evil)),
                ("files", ("../../moon.squad.json", (SAMPLE / "moon.squad.json").read_bytes())),
            ],
        )
        assert sent.status_code == 202, sent.text
        job = sent.json()
        assert job["state"] in ("queued", "running") and job["kind"] == "ingest"
        assert [f["source"] for f in job["files"]] == ["saffron.md", "moon.squad.json"]
        assert job["files"][0]["filename"] == "..\\..\\..\\saffron.md"
        done = _wait_job(client, sent.headers["location"])
        assert done["state"] == "done", done
        assert done["result"]["added"] == ["saffron.md", "moon.squad.json"]
        assert done["progress"]["files_done"] == 2 and done["progress"]["chunks_done"] >= 2

        body = client.post(
            "/v1/documents?source=kelp",
            headers={"content-type": "application/x-ndjson"},
            content=records.encode() + b"\n",
        )
        assert body.status_code == 202
        assert _wait_job(client, body.headers["location"])["result"]["added"] == ["kelp.jsonl"]

        listing = client.get("/v1/documents").json()
        names = {s["source"] for s in listing["sources"]}
        assert names - before == {"saffron.md", "moon.squad.json", "kelp.jsonl"}
        assert all(s["state"] == "done" for s in listing["sources"])
        assert not any(uploads.iterdir())  # spooled files are gone once ingested
        for ancestor in settings.data_dir.parents[:4]:
            assert not (ancestor / "saffron.md").exists()

        found = client.post(
            "/v1/ask",
            json={"question": "How is saffron harvested?", "mode": "rag",
                  "options": {"top_k": 8, "rerank_k": 2}},
        ).json()  # fmt: skip
        assert any(c["source"] == "saffron.md" for c in found["citations"]), found
        trace = Trace.model_validate(found["trace"])
        assert len(trace.retrieved) == 8 and len(trace.reranked) == 2

        for name in ("saffron.md", "moon.squad.json", "kelp.jsonl"):
            gone = client.delete(f"/v1/documents/{name}")
            assert gone.status_code == 200 and gone.json()["removed_chunks"] >= 1
        assert client.delete("/v1/documents/kelp.jsonl").status_code == 404
        after = {s["source"] for s in client.get("/v1/documents").json()["sources"]}
        assert after == before


def test_a_full_queue_answers_503_with_retry_after(parts) -> None:
    with (
        app_url(parts, max_concurrent=1, max_queue=0) as base,
        httpx.Client(base_url=base, timeout=600) as client,
    ):
        body = {"question": QUESTION, "mode": "rag", "stream": True}
        with client.stream("POST", "/v1/ask", json=body) as first:
            assert first.status_code == 200
            events = sse_events(first)  # kept: dropping it would close the stream
            assert next(events)[0] == "node"  # the question is running: it holds the only slot
            busy = client.post("/v1/ask", json={"question": "and the moon?"})
            assert busy.status_code == 503
            assert busy.headers["content-type"].startswith("application/problem+json")
            retry = int(busy.headers["retry-after"])
            assert retry >= 1 and busy.json()["retry_after"] == retry
            assert busy.json()["type"] == "urn:crag:problem:busy"
            sdk = openai.OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0)
            with pytest.raises(openai.InternalServerError) as refused:
                sdk.chat.completions.create(
                    model="rag", messages=[{"role": "user", "content": "x"}]
                )
            assert refused.value.status_code == 503
            assert client.get("/healthz").status_code == 200  # the loop is not blocked
        # the client hung up mid-answer: the work stops and the slot comes back
        deadline = time.monotonic() + 300
        while client.get("/readyz").json()["queue"]["running"] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert client.get("/readyz").json()["queue"]["running"] == 0

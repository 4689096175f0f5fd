"""Quick unit tests of the service's parts that need no server: API keys and exposure, the
admission gate, SSE framing, jobs and pipeline variants (uploads: test_uploads.py)."""

from __future__ import annotations

import asyncio
import json

import pytest

from crag.errors import ConfigError
from crag.server.auth import (
    Unauthorized,
    authorize,
    check_exposure,
    is_loopback,
    key_from_headers,
    load_keys,
)
from crag.server.gate import Busy, Gate
from crag.server.sse import event, jsonable
from crag.server.uploads import (
    spool_path,
)
from crag.types import Chunk, ScoredChunk, Verdict

KEY = "k" * 24


# -- keys and exposure ---------------------------------------------------------------------
def test_keys_come_from_the_environment_and_must_be_long() -> None:
    assert load_keys({}) == ()
    assert load_keys({"CRAG_API_KEYS": f" {KEY} , {'z' * 16},"}) == (KEY, "z" * 16)
    with pytest.raises(ConfigError, match="key number 2 is shorter"):
        load_keys({"CRAG_API_KEYS": f"{KEY},short"})


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.5.5.5", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.10", False),
        ("example.com", False),
    ],
)
def test_is_loopback(host, loopback) -> None:
    assert is_loopback(host) is loopback


def test_beyond_loopback_needs_keys_or_an_explicit_override() -> None:
    check_exposure("127.0.0.1", (), allow_unauthenticated=False)
    check_exposure("0.0.0.0", (KEY,), allow_unauthenticated=False)
    check_exposure("0.0.0.0", (), allow_unauthenticated=True)
    with pytest.raises(ConfigError, match=r"refusing to serve on 0\.0\.0\.0 without API keys"):
        check_exposure("0.0.0.0", (), allow_unauthenticated=False)


def test_keys_from_headers_and_authorize() -> None:
    assert key_from_headers({"authorization": f"Bearer {KEY}"}) == KEY
    assert key_from_headers({"authorization": f"bearer  {KEY} "}) == KEY
    assert key_from_headers({"x-api-key": KEY}) == KEY
    assert key_from_headers({"authorization": "Basic abc"}) is None
    authorize((), None)  # no keys configured: open
    authorize((KEY, "y" * 16), "y" * 16)
    with pytest.raises(Unauthorized, match="required"):
        authorize((KEY,), None)
    with pytest.raises(Unauthorized, match="not valid"):
        authorize((KEY,), KEY[:-1])
    with pytest.raises(Unauthorized):
        authorize((KEY,), "ş" * 24)  # non-ASCII input does not crash the comparison


# -- the gate ------------------------------------------------------------------------------
def test_gate_runs_queues_then_refuses_with_a_retry_after() -> None:
    async def scenario() -> None:
        gate = Gate(concurrency=1, queue=1, timeout_s=5)
        await gate.acquire()  # running
        waiter = asyncio.create_task(gate.acquire())  # queued
        await asyncio.sleep(0)
        assert (gate.running, gate.waiting) == (1, 1)
        with pytest.raises(Busy) as busy:
            await gate.acquire()  # queue full: refused at once, not parked
        assert busy.value.retry_after >= 1 and gate.rejected == 1
        gate.release(2.0)
        await asyncio.wait_for(waiter, 1)
        assert (gate.running, gate.waiting) == (1, 0)
        gate.release(2.0)
        assert gate.running == 0

    asyncio.run(scenario())


def test_gate_gives_up_waiting_after_the_timeout() -> None:
    async def scenario() -> None:
        gate = Gate(concurrency=1, queue=5, timeout_s=0.05)
        async with gate.slot():
            with pytest.raises(Busy, match="waited"):
                await gate.acquire()
            assert gate.waiting == 0
        await gate.acquire()  # the slot came back
        gate.release()

    asyncio.run(scenario())


def test_retry_after_grows_with_the_work_ahead() -> None:
    gate = Gate(concurrency=2, queue=10, timeout_s=1)
    gate._observe(20.0)
    alone = gate.retry_after()
    gate.running, gate.waiting = 2, 6
    assert gate.retry_after() > alone >= 1


# -- server-sent events --------------------------------------------------------------------
def test_sse_event_is_one_json_line() -> None:
    raw = event("token", {"text": "two\nlines"})
    assert raw == b'event: token\ndata: {"text": "two\\nlines"}\n\n'
    assert event(None, "[DONE]") == b"data: [DONE]\n\n"


def test_jsonable_summarises_chunks_and_verdicts() -> None:
    chunk = Chunk("id1", "text", "notes.md", "d", 0, 0, 4, title="T")
    out = jsonable({"reranked": [ScoredChunk(chunk, 0.5)], "verdict": Verdict.CORRECT, "x": {1}})
    assert out["reranked"] == [{"id": "id1", "score": 0.5, "cite": chunk.cite()}]
    assert out["verdict"] == "correct"
    json.dumps(out)  # anything unknown became a string


def test_settings_have_a_server_section() -> None:
    from crag.config import load_settings

    s = load_settings(server={"max_queue": 0, "port": 9000})
    assert s.server.max_queue == 0 and s.server.host == "127.0.0.1"
    with pytest.raises(ConfigError, match=r"server\.max_concurrent"):
        load_settings(server={"max_concurrent": 0})


# -- jobs and pipeline variants (real Index, nothing embedded) -------------------------------
def test_job_queue_is_bounded_and_stopping_drops_queued_jobs(tmp_path) -> None:
    from crag.config import load_settings
    from crag.index.store import Index
    from crag.server.jobs import Job, JobRunner, Upload

    settings = load_settings(data_dir=tmp_path / "data", collection="jobs")
    index = Index.open(settings)
    try:
        runner = JobRunner(index, settings.ingest, max_queued=2)  # worker not started
        spooled = []
        for i in range(2):
            path = spool_path(tmp_path / "spool", f"f{i}.md")
            spooled.append(path)
            runner.submit(Job(runner.new_id(), "ingest", [Upload(f"f{i}.md", path, f"f{i}.md")]))
        assert runner.queued() == 2
        with pytest.raises(Busy, match=r"server\.max_jobs"):
            runner.submit(Job(runner.new_id(), "remove", remove_source="x"))
        runner.stop()
        jobs = [runner.get(j) for j in list(runner._jobs)]
        assert all(j.state == "failed" and "stopped" in j.error for j in jobs)
        assert all(j.done_event.is_set() for j in jobs)
        assert not any(p.exists() for p in spooled)  # spooled uploads do not pile up
    finally:
        index.close()


def test_pipeline_variants_share_the_components() -> None:
    from unittest.mock import sentinel

    from crag.config import load_settings
    from crag.grading import ActionTrigger
    from crag.pipeline import Components, Pipeline
    from crag.server.runtime import Runtime

    parts = Components(
        retriever=sentinel.retriever,
        evaluator=sentinel.evaluator,
        trigger=ActionTrigger(1.0, 0.0),
        refiner=sentinel.refiner,
        generator=sentinel.generator,
        retrieve_k=20,
        rerank_k=5,
    )
    shared = Pipeline(parts)
    rt = Runtime(load_settings(), shared, sentinel.index, sentinel.jobs, ())
    try:
        assert rt.pipeline_for(None, None) is shared
        assert rt.pipeline_for(20, 5) is shared
        deeper = rt.pipeline_for(50, None)
        assert deeper is rt.pipeline_for(50, 5)  # cached
        assert (deeper.components.retrieve_k, deeper.components.rerank_k) == (50, 5)
        assert deeper.components.evaluator is sentinel.evaluator
        assert shared.components.retrieve_k == 20  # the shared pipeline is untouched
    finally:
        rt.close()

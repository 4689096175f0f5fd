"""Quick unit tests of the service's parts that need no server: upload names, gzip bombs, API
keys and exposure, the admission gate, SSE framing."""

from __future__ import annotations

import asyncio
import bz2
import gzip
import json
import lzma
import os

import pytest

from crag.errors import ConfigError, CragError
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
    TooLarge,
    UnsupportedUpload,
    check_supported,
    check_upload,
    source_name,
    spool_path,
)
from crag.types import Chunk, ScoredChunk, Verdict

KEY = "k" * 24


# -- upload names --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("../../etc/passwd", "passwd"),
        ("..\\..\\windows\\evil.md", "evil.md"),
        ("/abs/path/notes.md", "notes.md"),
        ("..", "upload.txt"),
        ("", "upload.txt"),
        (None, "upload.txt"),
        ("  .hidden.md ", "hidden.md"),
        ("na\x00me\n.md", "name.md"),
        ("rapor-ğüşiöç.pdf", "rapor-ğüşiöç.pdf"),
    ],
)
def test_source_name_keeps_only_a_bare_printable_name(given, expected) -> None:
    assert source_name(given) == expected


def test_source_name_is_bounded_and_keeps_the_suffix() -> None:
    name = source_name("a" * 1000 + ".jsonl")
    assert len(name) == 200 and name.endswith(".jsonl")


def test_unsupported_types_are_refused_by_name() -> None:
    check_supported("report.pdf")
    check_supported("squad.json.gz")
    check_supported("README.Debian")  # plain text by its conventional name
    check_supported("NEWS.gz")
    with pytest.raises(UnsupportedUpload, match="passwd"):
        check_supported("passwd")
    with pytest.raises(UnsupportedUpload):
        check_supported("tool.exe")


def test_spool_path_is_server_chosen_inside_the_folder(tmp_path) -> None:
    a = spool_path(tmp_path / "up", "../../x/evil.md")
    b = spool_path(tmp_path / "up", "../../x/evil.md")
    assert a != b
    for p in (a, b):
        assert p.parent == tmp_path / "up" and p.exists() and p.suffix == ".md"
        assert "evil" not in p.name and ".." not in p.name
        if os.name == "posix":
            assert p.stat().st_mode & 0o777 == 0o600
    assert spool_path(tmp_path, "data.JSON.GZ").name.endswith(".json.gz")
    assert spool_path(tmp_path, "weird.m$d").suffix == ".md"


def test_gzip_bomb_is_refused_without_inflating_it_whole(tmp_path) -> None:
    bomb = tmp_path / "x.gz"
    bomb.write_bytes(gzip.compress(b"a " * 10_000_000))  # 20 MB of text: ~20 KB compressed
    assert bomb.stat().st_size < 100_000
    with pytest.raises(TooLarge, match="decompresses to more than"):
        check_upload(bomb, "squad.json.gz", limit_bytes=5_000_000)
    check_upload(bomb, "squad.json.gz", limit_bytes=25_000_000)  # within the limit: fine
    with pytest.raises(CragError, match="binary data"):  # not compressed by name: not inflated
        check_upload(bomb, "plain.json", limit_bytes=1)
    broken = tmp_path / "broken.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00garbage-not-deflate")
    with pytest.raises(CragError, match="corrupt gzip"):
        check_upload(broken, "a.jsonl.gz", limit_bytes=10**9)


def test_a_bomb_in_a_second_member_is_refused(tmp_path) -> None:
    """F1: the first member is tiny and honest, the second inflates to 20 MB."""
    bomb = tmp_path / "two.gz"
    bomb.write_bytes(gzip.compress(b"hello\n") + gzip.compress(b"a" * 20_000_000))
    assert bomb.stat().st_size < 50_000
    with pytest.raises(TooLarge, match="decompresses to more than 5 MB"):
        check_upload(bomb, "notes.txt.gz", limit_bytes=5_000_000)
    for fmt, pack in (("bz2", bz2.compress), ("xz", lzma.compress)):
        other = tmp_path / f"two.{fmt}"
        other.write_bytes(pack(b"hello\n") + pack(b"a" * 20_000_000))
        with pytest.raises(TooLarge):
            check_upload(other, f"notes.txt.{fmt}", limit_bytes=5_000_000)


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("empty.txt", b"", "empty file"),
        ("blank.md", b"  \n\t\n", "empty file"),
        ("empty.txt.gz", gzip.compress(b""), "empty file"),
        ("nul.txt", b"text\0with a NUL", "binary data"),
        ("ctrl.md", bytes(range(1, 32)) * 50, "binary data"),
        ("cut.txt.gz", gzip.compress(b"some words " * 1000)[:-20], "truncated gzip"),
        ("cut.json.xz", lzma.compress(b"some words " * 1000)[:-30], "truncated xz"),
        ("junk.txt.bz2", b"BZh9 not really", "corrupt bzip2"),
        ("fake.pdf", b"hello, I am text", "not a PDF"),
        ("zero.jsonl.gz", b"", "empty file"),
    ],
)
def test_what_the_bytes_show_is_refused_at_the_door(tmp_path, name, data, reason) -> None:
    path = tmp_path / "spooled"
    path.write_bytes(data)
    with pytest.raises(CragError, match=reason) as caught:
        check_upload(path, name, limit_bytes=10**7)
    assert not isinstance(caught.value, TooLarge)
    assert repr(name) in str(caught.value)


def test_good_uploads_pass_the_door(tmp_path) -> None:
    path = tmp_path / "spooled"
    cases = [
        ("notes.txt", "caf\u00e9 na\u00efve".encode("latin-1")),  # legacy text: detected later
        ("utf16.txt", "\ufeffhello".encode("utf-16-le")),
        ("a.pdf", b"%PDF-1.7\n..."),
        ("a.docx", b"PK\x03\x04\x00\x00binary zip"),  # a binary format: its loader judges
        ("two.txt.gz", gzip.compress(b"one\n") + gzip.compress(b"two\n") + b"\0" * 512),
        ("ci.log.txt", b"\x1b[32mPASS\x1b[0m a.py\n" * 200),  # a log in colour: text
        ("page.txt", b"B\bBo\bol\bld\bd\n" * 200),  # overstrikes: text
    ]
    for name, data in cases:
        path.write_bytes(data)
        check_upload(path, name, limit_bytes=10**7)
    path.write_bytes("caf\u00e9".encode("latin-1"))
    with pytest.raises(CragError, match="not valid UTF-8"):
        check_upload(path, "x.txt", limit_bytes=10**7, detect_encoding=False)
    check_upload(path, "x.txt", limit_bytes=10**7, detect_encoding=False, encoding="latin-1")


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

"""Two service replicas sharing one store: the index's vectors in a real `chroma run` server
(CRAG_CHROMA_URL), the catalog in a shared data dir. Replica A is the real `crag serve` in a
subprocess; replica B runs in-process on the session's loaded models. What one ingests or
removes, the other lists and answers from."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest
from tests.conftest import MODELS_DIR, SAMPLE, share_models
from tests.servers.chroma import free_port
from tests.servers.serving import serving

from crag.config import load_settings
from crag.index.store import Index
from crag.pipeline import build_pipeline
from crag.server import create_app

pytestmark = pytest.mark.slow

KEY = "replica-key-" + "y" * 16
AUTH = {"X-API-Key": KEY}


@pytest.fixture
def replica_a(tmp_path, chroma_url) -> Iterator[tuple[str, subprocess.Popen]]:
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(sys.path),
        "CRAG_DATA_DIR": str(tmp_path / "data"),
        "CRAG_COLLECTION": "shared",
        "CRAG_CHROMA_URL": chroma_url,
        "CRAG_API_KEYS": KEY,
        "CRAG_SERVER__WARMUP": "false",  # A only ingests here; B answers
        "CRAG_LLM__MODELS_DIR": str(MODELS_DIR),
    }
    log = (tmp_path / "replica-a.log").open("w")  # a file: a full pipe would stall the server
    proc = subprocess.Popen(
        [sys.executable, "-m", "crag.cli", "serve", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail(f"crag serve did not start: {(tmp_path / 'replica-a.log').read_text()}")
    yield url, proc
    if proc.poll() is None:
        proc.kill()
        proc.wait(10)
    log.close()


def test_two_replicas_share_a_chroma_server(
    tmp_path,
    chroma_url,
    replica_a,
    embedder,
    llm,
    generator_llm,
) -> None:
    url_a, proc = replica_a
    a = httpx.Client(base_url=url_a, headers=AUTH, timeout=300)
    files = [("files", (p.name, p.read_bytes())) for p in sorted(SAMPLE.iterdir())]
    sent = a.post("/v1/documents", files=files)
    assert sent.status_code == 202, sent.text
    deadline = time.monotonic() + 300
    while (job := a.get(sent.headers["location"]).json())["state"] not in ("done", "failed"):
        assert time.monotonic() < deadline
        time.sleep(0.3)
    assert job["state"] == "done" and len(job["result"]["added"]) == len(files), job

    settings = load_settings(data_dir=tmp_path / "data", collection="shared", chroma_url=chroma_url)
    settings.server.warmup = False
    settings.rerank.top_k = 3
    settings.generate.max_tokens = 96
    reader = Index.open(settings, embedder=embedder)
    writer = Index.open(settings, embedder=embedder)
    assert (
        "HttpClient" in type(reader.vectors.client).__name__
        or not (tmp_path / "data" / "chroma").exists()
    )
    pipeline = build_pipeline(settings, reader)
    share_models(pipeline, llm, generator_llm)
    try:
        with serving(create_app(settings, pipeline=pipeline, index=reader, writer=writer)) as url_b:
            b = httpx.Client(base_url=url_b, headers=AUTH, timeout=600)
            ready = b.get("/readyz").json()["index"]
            assert ready["vector_store"] == "chroma-server"
            assert ready["chunks"] == ready["vectors"] > 0
            listed = {s["source"] for s in b.get("/v1/documents").json()["sources"]}
            assert listed == {p.name for p in SAMPLE.iterdir()}

            answer = b.post(
                "/v1/ask", json={"question": "Who patented the telephone?", "mode": "rag"}
            ).json()
            assert any(c["source"] == "inventions.jsonl" for c in answer["citations"]), answer
            assert "Bell" in answer["answer"]

            assert b.delete("/v1/documents/rhine.html").status_code == 200
            after_a = {s["source"] for s in a.get("/v1/documents").json()["sources"]}
            assert after_a == listed - {"rhine.html"}
            counts = a.get("/readyz").json()["index"]
            assert counts["chunks"] == counts["vectors"] == ready["chunks"] - 2
    finally:
        writer.close()
        reader.close()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) in (0, -signal.SIGTERM)  # uvicorn re-raises the signal once done
    log = (tmp_path / "replica-a.log").read_text()
    assert "Application shutdown complete" in log  # graceful: the lifespan closed the index
    assert "Traceback" not in log

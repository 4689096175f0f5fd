"""Two `crag serve` replicas (two real apps on 127.0.0.1) sharing one real PostgreSQL: an
upload accepted by either is run by either and searchable through both as soon as its job
ends; a job whose replica died mid-run (its lease gone) is finished by the other."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from tests.servers.serving import serving

from crag.config import Settings, load_settings
from crag.index.postgres.database import LOCK
from crag.index.store import Index
from crag.models.embedder import Embedder
from crag.server import create_app
from crag.server.jobs import Job, Upload
from crag.server.pgjobs import PgJobRunner

pytestmark = pytest.mark.slow


def _settings(tmp_path: Path, url: str, schema: str, replica: str) -> Settings:
    settings = load_settings(
        data_dir=tmp_path / replica,
        collection="shared",
        index={"url": url, "db_schema": schema},
    )
    settings.server.warmup = False
    settings.ingest.batch_chunks = 8
    return settings


def _files(tag: str, n: int) -> list[tuple[str, tuple[str, bytes]]]:
    return [
        ("files", (f"{tag}-{i}.txt", f"Note {i} of {tag}: marker{tag}{i} is here.".encode()))
        for i in range(n)
    ]


def _wait(c: httpx.Client, job_id: str, timeout: float = 240, collection: str = "") -> dict:
    deadline = time.monotonic() + timeout
    where = f"?collection={collection}" if collection else ""
    while time.monotonic() < deadline:
        job = c.get(f"/v1/documents/jobs/{job_id}{where}").json()
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not end")


@pytest.fixture
def replicas(tmp_path: Path, postgres_url: str, embedder: Embedder) -> Iterator[list]:
    """Two apps over one schema, each with its own data dir (nothing shared on disk)."""
    schema = f"r_{uuid.uuid4().hex[:10]}"
    with ExitStack() as stack:
        out = []
        for name in ("a", "b"):
            settings = _settings(tmp_path, postgres_url, schema, name)
            reader = Index.open(settings, embedder=embedder)
            writer = Index.open(settings, embedder=embedder)
            stack.callback(reader.close)
            stack.callback(writer.close)
            app = create_app(settings, index=reader, writer=writer, api_keys=[])
            url = stack.enter_context(serving(app))
            client = stack.enter_context(httpx.Client(base_url=url, timeout=60))
            out.append((settings, client))
        yield out


def test_two_replicas_share_index_and_jobs(replicas: list) -> None:
    (_, a), (_, b) = replicas
    jobs = []
    for round_ in range(3):  # uploads to both, interleaved
        for name, client in (("a", a), ("b", b)):
            tag = f"{name}{round_}"
            r = client.post("/v1/documents", files=_files(tag, 2))
            assert r.status_code == 202, r.text
            jobs.append((tag, r.json()["id"]))
    for tag, job_id in jobs:
        for client in (a, b):  # either replica reports every job
            job = _wait(client, job_id)
            assert job["state"] == "done" and len(job["result"]["added"]) == 2, job
        for client in (a, b):  # searchable through both right after the job ends
            body = {"query": f"marker{tag}1", "k": 1, "mode": "bm25", "rerank": False}
            hits = client.post("/v1/search", json=body).json()["hits"]
            assert hits and f"marker{tag}1" in hits[0]["chunk"]["text"], (tag, hits)
    assert a.get("/v1/documents").status_code == 200
    assert b.post("/v1/collections", json={"name": "other"}).status_code == 201
    listed = {c["name"]: c for c in a.get("/v1/collections").json()["collections"]}
    assert sorted(listed) == ["other", "shared"], listed  # created through b, listed by a
    assert (listed["shared"]["chunks"], listed["shared"]["sources"]) == (12, 12), listed
    ready = b.get("/readyz").json()
    assert ready["jobs"]["queued"] == 0 and ready["index"]["vector_store"] == "postgresql", ready
    # a deleted collection takes its jobs with it: made again, it has none of the old ones
    job = b.post("/v1/documents?collection=other", files=_files("other", 1)).json()
    assert _wait(b, job["id"], collection="other")["state"] == "done"
    assert a.delete("/v1/collections/other").status_code == 200
    assert a.post("/v1/collections", json={"name": "other"}).status_code == 201
    old = b.get(f"/v1/documents/jobs/{job['id']}?collection=other")
    assert old.status_code == 404, old.text


def test_a_job_whose_replica_died_is_finished_by_another(
    replicas: list, tmp_path: Path, embedder: Embedder
) -> None:
    (settings, a), _ = replicas
    # a third replica accepts a job and starts it, then dies: its connections drop, with them
    # the job's lease (PostgreSQL releases a dead session's advisory locks)
    writer = Index.open(settings, embedder=embedder)
    dead = PgJobRunner(writer, settings.ingest, spool_dir=tmp_path / "dead-spool")
    spooled = tmp_path / "dead-spool" / "upload.txt"
    spooled.parent.mkdir()
    spooled.write_text("The orphaned job mentions markerorphan once.")
    job = Job(id=dead.new_id(), kind="ingest", uploads=[Upload("orphan.txt", spooled, "o.txt")])
    # the live replicas would claim a queued job at once: take its lease before submitting
    lease = dead._lease.conn()
    lease.execute(LOCK, (f"crag-job:{job.id}",))
    dead.submit(job)
    claimed = dead._claim()
    assert claimed is not None and claimed.id == job.id
    claimed.state = "running"
    dead._save(claimed)
    assert not spooled.exists()  # the bytes are in the database, not on the dead machine
    leftover = dead.running_dir
    assert any(leftover.iterdir())  # the copy it was running from
    dead._lease.close()  # the process is gone
    writer.close()
    done = _wait(a, job.id)
    assert done["state"] == "done" and done["result"]["added"] == ["orphan.txt"], done
    body = {"query": "markerorphan", "k": 1, "mode": "bm25", "rerank": False}
    assert a.post("/v1/search", json=body).json()["hits"]
    # a replica started again on that spool removes what the dead one left there
    writer = Index.open(settings, embedder=embedder)
    again = PgJobRunner(writer, settings.ingest, spool_dir=tmp_path / "dead-spool")
    again.recover()
    assert not leftover.exists()
    again.stop()
    writer.close()

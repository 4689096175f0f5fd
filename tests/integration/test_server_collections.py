"""Several collections in one server, without loading a model: create, list, delete; each
route takes `?collection=` or `X-Crag-Collection`; uploads land in the collection named;
unknown and badly named collections are clear errors. (Slow: it starts a server; seconds.)"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from tests.servers.serving import serving

from crag.config import load_settings
from crag.server import create_app

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> Iterator[httpx.Client]:
    settings = load_settings(data_dir=tmp_path_factory.mktemp("cols") / "data", collection="main")
    settings.server.warmup = False
    with (
        serving(create_app(settings, api_keys=[])) as url,
        httpx.Client(base_url=url, timeout=60) as c,
    ):
        yield c


def _done(client: httpx.Client, job: dict, collection: str) -> dict:
    deadline = time.monotonic() + 60
    while job["state"] in ("queued", "running"):
        assert time.monotonic() < deadline, job
        time.sleep(0.1)
        job = client.get(f"/v1/documents/jobs/{job['id']}?collection={collection}").json()
    return job


def test_collections_are_created_listed_used_and_deleted(client) -> None:
    listed = client.get("/v1/collections").json()
    assert listed["default"] == "main"
    assert [c["name"] for c in listed["collections"]] == ["main"]

    made = client.post("/v1/collections", json={"name": "notes"})
    assert made.status_code == 201 and made.json()["chunks"] == 0
    assert client.post("/v1/collections", json={"name": "notes"}).status_code == 200

    upload = client.post(
        "/v1/documents?collection=notes",
        files={"files": ("kites.md", b"# Kites\n\nThe Zephyr Kite Club meets on Thursdays.\n")},
    )
    assert upload.status_code == 202, upload.text
    assert _done(client, upload.json(), "notes")["state"] == "done"

    notes = client.get("/v1/documents", headers={"X-Crag-Collection": "notes"}).json()
    assert notes["collection"] == "notes" and [s["source"] for s in notes["sources"]] == [
        "kites.md"
    ]
    assert client.get("/v1/documents").json()["sources"] == []  # the default is untouched
    counts = {c["name"]: c for c in client.get("/v1/collections").json()["collections"]}
    assert counts["notes"]["chunks"] >= 1 and counts["notes"]["sources"] == 1
    assert counts["main"]["default"] and not counts["notes"]["default"]

    models = {m["id"] for m in client.get("/v1/models").json()["data"]}
    assert {"crag", "rag", "crag:notes", "rag:notes"} <= models

    chunk_id = client.post(
        "/v1/documents?collection=notes",
        files={"files": ("more.txt", b"Second file.\n")},
    ).json()
    assert _done(client, chunk_id, "notes")["state"] == "done"

    assert client.delete("/v1/collections/notes").json() == {"deleted": "notes"}
    assert [c["name"] for c in client.get("/v1/collections").json()["collections"]] == ["main"]
    gone = client.get("/v1/documents?collection=notes")
    assert gone.status_code == 404 and "POST /v1/collections" in gone.json()["detail"]
    # made again under the same name, it has none of the old collection's jobs
    assert client.post("/v1/collections", json={"name": "notes"}).status_code == 201
    old = client.get(f"/v1/documents/jobs/{chunk_id['id']}?collection=notes")
    assert old.status_code == 404, old.text
    assert client.delete("/v1/collections/notes").status_code == 200


def test_bad_names_and_the_default_are_refused(client) -> None:
    assert client.post("/v1/collections", json={"name": "../etc"}).status_code == 422
    assert client.get("/v1/documents?collection=..%2Fetc").status_code == 400
    assert client.delete("/v1/collections/main").status_code == 409
    assert client.delete("/v1/collections/nope").status_code == 404
    ask = client.post("/v1/ask", json={"question": "why?", "collection": "nope"})
    assert ask.status_code == 404
    chat = client.post(
        "/v1/chat/completions",
        json={"model": "crag:nope", "messages": [{"role": "user", "content": "hi"}]},
    )
    assert chat.status_code == 404

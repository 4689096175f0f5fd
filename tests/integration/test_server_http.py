"""The real app on a real port, without loading any model: auth, limits, malformed requests,
problem details, hostile upload names, the OpenAPI document, and the OpenAI client's view of
errors. (Marked slow because it starts servers; it takes seconds.)"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from tests.servers.serving import serving

from crag.config import load_settings
from crag.server import create_app

pytestmark = pytest.mark.slow

KEY = "test-key-" + "x" * 16
AUTH = {"Authorization": f"Bearer {KEY}"}
PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("http") / "data"
    settings = load_settings(data_dir=data, collection="empty")
    settings.server.warmup = False
    settings.server.max_body_kb = 2
    settings.server.max_upload_mb = 0.05
    settings.server.max_question_chars = 200
    settings.ingest.max_file_mb = 1
    with serving(create_app(settings, api_keys=[KEY])) as url:
        yield url, data


@pytest.fixture
def client(server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server[0], timeout=30) as c:
        yield c


def _problem(r: httpx.Response, status: int) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    body = r.json()
    assert body["status"] == status and body["type"].startswith("urn:crag:problem:")
    assert body["title"] and body["detail"]
    assert "Traceback" not in r.text and "/tmp" not in r.text
    return body


def test_health_and_readiness_are_open(client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready"}  # no key: the status only
    assert client.get("/readyz", headers={"X-API-Key": "wrong"}).json() == {"status": "ready"}
    body = client.get("/readyz", headers=AUTH).json()
    assert body["status"] == "ready"
    assert body["index"]["reachable"] and body["index"]["chunks"] == 0
    assert body["index"]["vector_store"] == "chroma-embedded"
    assert body["index"]["consistent"] and body["index"]["check"] == "consistent"


def test_api_docs_can_be_switched_off(tmp_path) -> None:
    settings = load_settings(data_dir=tmp_path / "data", collection="nodocs")
    settings.server.warmup = False
    settings.server.docs = False
    with serving(create_app(settings, api_keys=[KEY])) as url, httpx.Client(base_url=url) as c:
        for path in ("/docs", "/redoc", "/openapi.json"):
            _problem(c.get(path), 404)
        assert c.get("/healthz").status_code == 200


def test_keys_are_required_and_accepted_both_ways(client) -> None:
    missing = client.get("/v1/documents")
    assert _problem(missing, 401)["detail"].startswith("an API key is required")
    assert missing.headers["www-authenticate"].startswith("Bearer")
    _problem(client.get("/v1/documents", headers={"Authorization": "Bearer wrong"}), 401)
    _problem(client.get("/v1/documents", headers={"X-API-Key": KEY[:-1]}), 401)
    assert client.get("/v1/documents", headers=AUTH).status_code == 200
    assert client.get("/v1/documents", headers={"X-API-Key": KEY}).status_code == 200


def test_openapi_documents_every_endpoint_and_both_key_schemes(client) -> None:
    spec = client.get("/openapi.json").json()
    paths = set(spec["paths"])
    assert {
        "/v1/ask",
        "/v1/chat/completions",
        "/v1/models",
        "/v1/documents",
        "/v1/documents/jobs/{job_id}",
        "/v1/documents/{source}",
        "/healthz",
        "/readyz",
    } <= paths
    assert set(spec["components"]["securitySchemes"]) == {"HTTPBearer", "APIKeyHeader"}
    assert client.get("/docs").status_code == 200


def test_malformed_requests_are_422_naming_the_field(client) -> None:
    bad_json = client.post(
        "/v1/ask", headers={**AUTH, "content-type": "application/json"}, content=b"{oops"
    )
    assert _problem(bad_json, 422)["errors"][0]["type"] == "json_invalid"
    typo = _problem(client.post("/v1/ask", headers=AUTH, json={"question": "x", "mdoe": 1}), 422)
    assert typo["detail"] == "body.mdoe: Extra inputs are not permitted"
    wrong = _problem(client.post("/v1/ask", headers=AUTH, json={"question": "x", "mode": "z"}), 422)
    assert wrong["detail"].startswith("body.mode")
    _problem(client.post("/v1/ask", headers=AUTH, json={}), 422)
    blank = _problem(client.post("/v1/ask", headers=AUTH, json={"question": "   "}), 400)
    assert "empty" in blank["detail"]
    long = _problem(client.post("/v1/ask", headers=AUTH, json={"question": "why " * 60}), 400)
    assert "server.max_question_chars=200" in long["detail"]


def test_oversized_bodies_are_413_with_or_without_a_length(client) -> None:
    declared = client.post("/v1/ask", headers=AUTH, json={"question": "x" * 5000})
    assert "2 KiB" in _problem(declared, 413)["detail"]

    def chunked() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"question": "'
        for _ in range(100):
            yield b"x" * 100
        yield b'"}'

    streamed = client.post(
        "/v1/ask", headers={**AUTH, "content-type": "application/json"}, content=chunked()
    )
    _problem(streamed, 413)
    upload = client.post(
        "/v1/documents", headers=AUTH, files={"files": ("big.txt", b"word " * 20_000)}
    )
    _problem(upload, 413)


def test_asking_an_empty_collection_is_a_conflict(client) -> None:
    body = _problem(client.post("/v1/ask", headers=AUTH, json={"question": "why?"}), 409)
    assert "empty" in body["detail"] and "POST /v1/documents" in body["detail"]


def test_unknown_routes_and_methods_are_problems(client) -> None:
    _problem(client.get("/v2/nothing"), 404)
    _problem(client.put("/v1/ask", headers=AUTH), 405)
    _problem(client.get("/v1/documents/jobs/nope", headers=AUTH), 404)
    _problem(client.delete("/v1/documents/not-there.md", headers=AUTH), 404)


def test_hostile_and_unsupported_uploads_write_nothing(client, server) -> None:
    _, data = server
    before = {p for p in data.parent.rglob("*")}
    passwd = client.post(
        "/v1/documents", headers=AUTH, files={"files": ("../../etc/passwd", b"root:x:0:0")}
    )
    assert "'passwd': unsupported file type" in _problem(passwd, 415)["detail"]
    exe = client.post("/v1/documents", headers=AUTH, files={"files": ("x.exe", b"MZ")})
    _problem(exe, 415)
    _problem(client.post("/v1/documents", headers=AUTH, content=b"plain"), 415)
    _problem(client.post("/v1/documents", headers=AUTH, data={"note": "form"}), 415)
    no_file = client.post("/v1/documents", headers=AUTH, files={"files": (None, "a field")})
    assert "no file" in _problem(no_file, 400)["detail"]
    jsonl = client.post(
        "/v1/documents",
        headers={**AUTH, "content-type": "application/jsonl"},
        content=b'{"id": "1", "title": "no text"}\n{not json\n',
    )
    assert "line 1" in _problem(jsonl, 400)["detail"]
    created = {p for p in data.parent.rglob("*")} - before
    assert all(p.is_dir() for p in created), created  # at most the empty uploads folder
    assert not Path("/etc/passwd.txt").exists()


def test_bombs_and_unreadable_files_are_refused_at_the_door(client, server) -> None:
    """F1: a bomb in the second gzip member is 413; empty, binary, truncated and corrupt
    files are 400 problem+json at upload, not a failed job later; nothing stays spooled."""
    import gzip

    _, data = server
    spool = data / "uploads"
    before = set(spool.rglob("*")) if spool.exists() else set()
    bomb = gzip.compress(b"honest first member\n") + gzip.compress(b"a" * 20_000_000)
    assert len(bomb) < 40_000  # under server.max_upload_mb (50 KB)
    r = client.post("/v1/documents", headers=AUTH, files={"files": ("two.txt.gz", bomb)})
    assert "decompresses to more than 1 MB" in _problem(r, 413)["detail"]
    cases = {
        "empty.txt": (b"", "empty file"),
        "binary.md": (bytes(range(256)) * 4, "binary data"),
        "cut.jsonl.gz": (gzip.compress(b'{"id": "1", "text": "x"}\n' * 300)[:-12], "truncated"),
        "junk.txt.bz2": (b"BZh9 broken", "corrupt bzip2"),
        "fake.pdf": (b"just text", "not a PDF"),
        "binary.info-2": (bytes(range(256)) * 4, "binary data"),
    }
    for name, (body, reason) in cases.items():
        r = client.post("/v1/documents", headers=AUTH, files={"files": (name, body)})
        assert reason in _problem(r, 400)["detail"], name
    after = set(spool.rglob("*")) if spool.exists() else set()
    assert all(p.is_dir() for p in after - before)


def test_an_info_part_with_index_marks_is_text_at_the_door(client) -> None:
    """makeinfo marks an index node with NUL bytes, which alone would read as binary."""
    part = (
        b"This is moor.info.\n\x1f\nFile: moor.info,  Node: Tides,  Up: Top\n\n"
        b"Tides\n*****\n\nThe tide turns twice a day.\n\x1f\n"
        b"File: moor.info,  Node: Concept Index,  Up: Top\n\n\x00\x08[index\x00\x08]\n"
        b"* Menu:\n\n* tide:   Tides.   (line 6)\n"
    )
    r = client.post("/v1/documents", headers=AUTH, files={"files": ("moor.info-1", part)})
    assert r.status_code == 202, r.text


def test_openai_client_sees_models_and_readable_errors(server) -> None:
    url, _ = server
    client = openai.OpenAI(base_url=f"{url}/v1", api_key=KEY, max_retries=0)
    assert [m.id for m in client.models.list()] == ["crag", "rag", "self-crag"]
    with pytest.raises(openai.NotFoundError, match="does not exist"):
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(openai.ConflictError, match="empty"):
        client.chat.completions.create(model="crag", messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(openai.BadRequestError, match="no user message"):
        client.chat.completions.create(
            model="crag", messages=[{"role": "system", "content": "be brief"}]
        )
    anonymous = openai.OpenAI(base_url=f"{url}/v1", api_key="wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        anonymous.models.list()


def test_crag_serve_refuses_an_open_public_bind(tmp_path) -> None:
    env = {
        **os.environ,
        "CRAG_DATA_DIR": str(tmp_path),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    env.pop("CRAG_API_KEYS", None)
    run = subprocess.run(
        [sys.executable, "-m", "crag.cli", "serve", "--host", "0.0.0.0", "--port", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1
    assert "refusing to serve on 0.0.0.0 without API keys" in " ".join(run.stderr.split())
    assert not (tmp_path / "collections").exists()  # refused before opening anything

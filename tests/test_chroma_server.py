"""The same index code against a real `chroma run` server on 127.0.0.1 (CRAG_CHROMA_URL)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.conftest import SAMPLE, assert_in_step

from crag.config import load_settings
from crag.errors import CragError
from crag.index.retriever import HybridRetriever
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _chroma_binary() -> str:
    found = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
    if not Path(found).exists():
        pytest.fail("the `chroma` CLI (from the chromadb package) is not installed")
    return found


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    path = tmp_path_factory.mktemp("chroma-server")
    proc = subprocess.Popen(
        [_chroma_binary(), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("chroma run did not start within 60 s")
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def test_ingest_search_remove_through_a_chroma_server(tmp_path, chroma_url, embedder) -> None:
    settings = load_settings(data_dir=tmp_path / "data", collection="served", chroma_url=chroma_url)
    index = Index.open(settings, embedder=embedder)
    assert (
        "HttpClient" in type(index.vectors.client).__name__
        or not (tmp_path / "data" / "chroma").exists()
    )
    report = Ingestor(index).ingest([SAMPLE])
    assert report.ok and report.chunks > 0
    assert index.vectors.count() == index.count()
    assert_in_step(index)
    hits = HybridRetriever(index).search("waggle dance distance", 3)
    assert hits[0].chunk.title == "Honey bees"
    Ingestor(index).remove([SAMPLE / "rhine.html"])
    assert_in_step(index)
    index.close()
    # a second client (another replica) sees the same vectors and the recorded model
    again = Index.open(settings, embedder=embedder)
    assert again.vectors.embedding_model == "sentence-transformers/all-MiniLM-L6-v2"
    assert again.vectors.count() == again.count()
    again.close()
    assert not (tmp_path / "data" / "chroma").exists(), "no embedded store when a URL is set"


def test_unreachable_server_is_a_clear_error(tmp_path, embedder) -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    settings = load_settings(data_dir=tmp_path / "data", chroma_url=url)
    with pytest.raises(CragError, match="not reachable"):
        Index.open(settings, embedder=embedder)

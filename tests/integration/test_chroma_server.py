"""The same index code against a real `chroma run` server on 127.0.0.1 (CRAG_CHROMA_URL)."""

from __future__ import annotations

import pytest
from tests.conftest import SAMPLE, assert_in_step
from tests.servers.chroma import free_port

from crag.config import load_settings
from crag.errors import CragError
from crag.index.retriever import HybridRetriever
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor

pytestmark = pytest.mark.slow


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
    url = f"http://127.0.0.1:{free_port()}"
    settings = load_settings(data_dir=tmp_path / "data", chroma_url=url)
    with pytest.raises(CragError, match="not reachable"):
        Index.open(settings, embedder=embedder)

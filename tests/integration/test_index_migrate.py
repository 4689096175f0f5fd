"""`crag index migrate --to postgresql://…`: an embedded collection copied into a real
PostgreSQL with its vectors (nothing embedded again), counts checked, a second run a no-op."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import SAMPLE
from typer.testing import CliRunner

from crag.cli import app
from crag.config import load_settings
from crag.index.postgres import PgIndex
from crag.index.postgres.migrate import migrate_collection
from crag.index.retriever import HybridRetriever
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor
from crag.models.embedder import Embedder

pytestmark = pytest.mark.slow


class Forbidden:
    """An embedder that must not be called: migration copies vectors."""

    def __init__(self, name: str) -> None:
        self.name = name

    def embed(self, texts, kind="document"):
        raise AssertionError("migration must not embed")


def test_migrate_copies_vectors_and_ranks_the_same(
    tmp_path: Path, embedder: Embedder, postgres_url: str
) -> None:
    settings = load_settings(data_dir=tmp_path / "data", collection="m")
    embedded = Index.open(settings, embedder=embedder)
    Ingestor(embedded).ingest([SAMPLE])
    pg_settings = settings.model_copy(
        update={"index": settings.index.model_copy(update={"url": postgres_url, "db_schema": "m"})}
    )
    target = PgIndex.open(pg_settings, embedder=Forbidden(embedder.name))
    report = migrate_collection(embedded, target)
    assert report.target_chunks == report.source_chunks == embedded.count() > 0
    assert len(report.copied) == len(embedded.sources())
    assert target.embedding_model == embedded.embedding_model
    again = migrate_collection(embedded, target)
    assert not again.copied and len(again.unchanged) == len(embedded.sources())
    target.embedder = embedder  # searching embeds the query
    question = "Who flew the command module Columbia?"
    want = [h.chunk.id for h in HybridRetriever(embedded).search(question, 3, mode="dense")]
    got = [h.chunk.id for h in HybridRetriever(target).search(question, 3, mode="dense")]
    assert got == want
    assert HybridRetriever(target).search(question, 1)[0].chunk.title == "Apollo 11"
    target.close()
    embedded.close()


def test_migrate_command(tmp_path: Path, embedder: Embedder, postgres_url: str, monkeypatch):
    data = tmp_path / "data"
    settings = load_settings(data_dir=data, collection="cli")
    embedded = Index.open(settings, embedder=embedder)
    Ingestor(embedded).ingest([SAMPLE])
    chunks = embedded.count()
    embedded.close()
    monkeypatch.setenv("CRAG_DATA_DIR", str(data))
    monkeypatch.delenv("CRAG_INDEX__URL", raising=False)
    runner = CliRunner()
    args = ["index", "migrate", "--to", postgres_url, "-c", "cli", "--schema", "clitest"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"{chunks} chunks in PostgreSQL = {chunks} embedded" in result.output
    bad = runner.invoke(app, ["index", "migrate", "--to", "mysql://x", "-c", "cli"])
    assert bad.exit_code == 1 and "postgresql://" in bad.output
    empty = runner.invoke(app, ["index", "migrate", "--to", postgres_url, "-c", "nothing"])
    assert empty.exit_code == 1 and "empty" in empty.output

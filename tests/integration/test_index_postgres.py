"""What only the PostgreSQL backend promises beyond the conformance suite: a writer process
killed (SIGKILL) inside its transaction leaves no trace and no lock; two open handles (two
replicas) see each other's writes at once; the schema is versioned."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psycopg
import pytest
from tests.conftest import ROOT
from tests.support.files import write

from crag.config import load_settings
from crag.index.postgres.schema import SCHEMA_VERSION
from crag.index.retriever import HybridRetriever
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor
from crag.models.embedder import Embedder

pytestmark = pytest.mark.slow

CHILD = textwrap.dedent(
    """
    import sys, time
    import numpy as np
    import psycopg
    from crag.config import load_settings
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor

    class Quick:  # the collection's model name, random unit vectors: no model to load
        name = sys.argv[4]
        def embed(self, texts, kind="document"):
            v = np.random.default_rng(0).normal(size=(len(texts), 384)).astype(np.float32)
            return v / np.linalg.norm(v, axis=1, keepdims=True)

    original = psycopg.Cursor.executemany
    def stall(self, *args, **kwargs):
        original(self, *args, **kwargs)
        print("inside", flush=True)  # rows written, transaction not committed
        time.sleep(120)
    psycopg.Cursor.executemany = stall
    settings = load_settings(data_dir=sys.argv[1], collection="k",
                             index={"url": sys.argv[2], "db_schema": "killed"})
    Ingestor(Index.open(settings, embedder=Quick())).ingest([sys.argv[3]])
    """
)


def _settings(tmp_path: Path, url: str, schema: str, collection: str = "k"):
    return load_settings(
        data_dir=tmp_path / "data", collection=collection, index={"url": url, "db_schema": schema}
    )


def test_killed_writer_leaves_nothing_and_releases_the_lock(
    tmp_path: Path, postgres_url: str, embedder: Embedder
) -> None:
    docs = tmp_path / "docs"
    write(docs / "kept.txt", "The lighthouse at Alexandria was one of the seven wonders.")
    index = Index.open(_settings(tmp_path, postgres_url, "killed"), embedder=embedder)
    Ingestor(index).ingest([docs])
    write(docs / "kept.txt", "The lighthouse at Alexandria (new text) stood on Pharos.")
    write(docs / "new.txt", "Saffron comes from the stigmas of the crocus flower.")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    model = embedder.name
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path / "data"), postgres_url, str(docs), model],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.strip() == "inside", "the child never reached its transaction"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert [s.source.endswith("kept.txt") for s in index.sources()] == [True]
    assert "Pharos" not in index.catalog.chunks_of(index.sources()[0].source)[0].text
    assert index.stores_agree()
    with index.write_lock(wait=10):  # PostgreSQL dropped the dead session's advisory lock
        pass
    report = Ingestor(index).ingest([docs])
    assert report.ok and len(report.added) == 1 and len(report.updated) == 1
    assert HybridRetriever(index).search("Pharos", 1, mode="bm25")[0].chunk.text.endswith("Pharos.")
    index.close()


def test_two_handles_share_one_index(tmp_path: Path, postgres_url: str, embedder) -> None:
    """Two replicas: what one ingests, the other finds at once; one writer at a time."""
    first = Index.open(_settings(tmp_path, postgres_url, "shared"), embedder=embedder)
    second = Index.open(_settings(tmp_path / "b", postgres_url, "shared"), embedder=embedder)
    write(tmp_path / "d" / "tea.txt", "Matcha is a powdered green tea from Japan.")
    Ingestor(first).ingest([tmp_path / "d"])
    assert HybridRetriever(second).search("matcha", 1)[0].chunk.text.startswith("Matcha")
    with (
        first.write_lock(),
        pytest.raises(Exception, match="another crag process"),
        second.write_lock(wait=0.3),
    ):
        pass
    started = time.monotonic()
    Ingestor(second).remove([tmp_path / "d" / "tea.txt"])
    assert first.count() == 0 and time.monotonic() - started < 10
    first.close()
    second.close()


def test_schema_is_versioned(tmp_path: Path, postgres_url: str, embedder) -> None:
    Index.open(_settings(tmp_path, postgres_url, "versioned"), embedder=embedder).close()
    with psycopg.connect(postgres_url) as conn:
        got = conn.execute("SELECT max(version) FROM versioned.schema_version").fetchone()
        assert got == (SCHEMA_VERSION,)
        conn.execute("INSERT INTO versioned.schema_version (version) VALUES (999)")
        conn.commit()
    with pytest.raises(Exception, match="newer than this crag"):
        Index.open(_settings(tmp_path, postgres_url, "versioned"), embedder=embedder)

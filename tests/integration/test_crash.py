"""An ingest stopped at any step of the write protocol leaves a state the next run repairs.

Two ways of stopping it: an exception injected at each step boundary (deterministic), and a
real SIGKILL of a `crag ingest` process at several moments.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.conftest import ROOT, assert_in_step
from tests.support.files import write

from crag.index.retriever import HybridRetriever
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor

pytestmark = pytest.mark.slow


class Boom(RuntimeError):
    pass


def corpus(root: Path, n: int = 6, tag: str = "v1") -> Path:
    for i in range(n):
        write(root / f"doc{i}.txt", f"Document {i} ({tag}) is about subject {i}. " * 3)
    return root


def _fail_after(obj: object, name: str, when=lambda *a, **k: True) -> None:
    """Make obj.name run, then raise Boom (the write happened, the process 'died' after)."""
    original = getattr(obj, name)

    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        if when(*args, **kwargs):
            raise Boom(name)
        return result

    setattr(obj, name, wrapper)


STEPS = {
    "after-mark-pending": ("catalog", "mark", lambda srcs, state: state == "pending"),
    "after-vector-upsert": ("vectors", "upsert", lambda *a: True),
    "after-catalog-replace": ("catalog", "replace_source", lambda *a: True),
    "after-vector-delete": ("vectors", "delete", lambda *a: True),
}


@pytest.mark.parametrize("step", list(STEPS))
def test_stop_at_each_step_then_repair(tmp_path: Path, settings, embedder, step: str) -> None:
    docs = corpus(tmp_path / "docs")
    index = Index.open(settings, embedder=embedder)
    Ingestor(index).ingest([docs])
    corpus(docs, tag="v2")  # every file changes: new chunks in, old chunks out
    target, name, when = STEPS[step]
    _fail_after(getattr(index, target), name, when)
    with pytest.raises(Boom):
        Ingestor(index).ingest([docs])
    index.close()

    reopened = Index.open(settings, embedder=embedder)
    report = Ingestor(reopened).ingest([docs])
    assert report.ok
    assert report.repaired, "the half-written sources must be repaired"
    assert_in_step(reopened)
    texts = [c.text for s in reopened.sources() for c in reopened.catalog.chunks_of(s.source)]
    assert len(texts) == 6 and all("(v2)" in t for t in texts)
    hit = HybridRetriever(reopened).search("subject 3", 1, mode="bm25")[0]
    assert "(v2)" in hit.chunk.text
    reopened.close()


def test_remove_interrupted_then_repaired(tmp_path: Path, settings, embedder) -> None:
    docs = corpus(tmp_path / "docs")
    index = Index.open(settings, embedder=embedder)
    Ingestor(index).ingest([docs])
    _fail_after(index.catalog, "delete_source_chunks")
    with pytest.raises(Boom):
        Ingestor(index).remove([docs / "doc0.txt"])
    index.close()
    reopened = Index.open(settings, embedder=embedder)
    assert reopened.repair() == [str((docs / "doc0.txt").resolve())]
    assert_in_step(reopened)
    assert len(reopened.sources()) == 5
    reopened.close()


KILL_SCRIPT = """
import sys
from crag.config import load_settings
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor
settings = load_settings(data_dir=sys.argv[1], collection="test", ingest={"batch_chunks": 1})
index = Index.open(settings)
index.embedder.embed(["warm up"])
print("ready", flush=True)
Ingestor(index, settings.ingest).ingest([sys.argv[2]])
print("finished", flush=True)
"""


def _sources_written(db_path: Path) -> int:
    if not db_path.exists():
        return 0
    con = sqlite3.connect(str(db_path), timeout=5)
    try:
        return con.execute("SELECT count(*) FROM sources").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


@pytest.mark.parametrize("kill_after", [1, 10, 25])
def test_sigkill_mid_ingest_then_next_run_repairs(
    tmp_path: Path, settings, embedder, kill_after: int
) -> None:
    docs = tmp_path / "docs"
    for i in range(40):
        write(docs / f"f{i:02}.txt", f"File {i} mentions the keyword marker{i}. " * 20)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        [sys.executable, "-c", KILL_SCRIPT, str(settings.data_dir), str(docs)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    db_path = settings.data_dir / "collections" / "test" / "catalog.sqlite3"
    deadline = time.monotonic() + 120
    while _sources_written(db_path) < kill_after and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert kill_after <= _sources_written(db_path) < 40, "the kill must land mid-ingest"

    index = Index.open(settings, embedder=embedder)
    report = Ingestor(index).ingest([docs])
    assert report.ok
    assert_in_step(index)
    assert len(index.sources()) == 40 and index.count() == 40 * len(
        index.catalog.chunk_ids(index.sources()[0].source)
    )
    hit = HybridRetriever(index).search("marker17", 1, mode="bm25")[0]
    assert hit.chunk.source.endswith("f17.txt")
    index.close()

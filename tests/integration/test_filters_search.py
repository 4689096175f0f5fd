"""Metadata filters on a real index (SQLite/FTS5 + embedded Chroma + MiniLM): applied inside
both searches, so a filter matching 1 % of the collection still returns k chunks; tags given
at ingest; `crag search --where`; `/v1/search` and `/v1/ask` on a real server.

The 10k-chunk version with timings is `python -m bench.filters`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.servers.serving import serving

from crag.config import Settings
from crag.index.filters import parse_filter
from crag.index.retriever import HybridRetriever
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor
from crag.models.embedder import Embedder

pytestmark = pytest.mark.slow

N = 200  # records; `group` takes 100 values, so `group=7` matches 2 of them (1 %)
TOPICS = ["ferry timetable", "harbour crane", "pier repairs", "cargo manifest", "tide tables"]


def _records() -> list[dict]:
    return [
        {
            "id": f"r{i}",
            "text": f"Harbour report {i}: the {TOPICS[i % 5]} for pier {i % 13} changed in "
            f"week {i % 52}; the ferry schedule was updated.",
            "group": i % 100,
            "year": 2000 + i % 25,
            "lang": "en" if i % 2 else "tr",
        }
        for i in range(N)
    ]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[Settings]:
    from crag.config import load_settings

    root = tmp_path_factory.mktemp("filters")
    docs = root / "docs"
    docs.mkdir()
    (docs / "harbour.jsonl").write_text("\n".join(json.dumps(r) for r in _records()) + "\n")
    (docs / "notes.md").write_text("# Ops notes\n\nThe ferry schedule moves to winter times.\n")
    settings = load_settings(data_dir=root / "data", collection="filters")
    index = Index.open(settings, embedder=embedder)
    report = Ingestor(index).ingest([docs / "harbour.jsonl"])
    assert report.ok and report.chunks == N
    assert Ingestor(index, tags={"team": "ops"}).ingest([docs / "notes.md"]).ok
    index.close()
    yield settings


@pytest.fixture
def index(built: Settings, embedder: Embedder) -> Iterator[Index]:
    idx = Index.open(built, embedder=embedder)
    yield idx
    idx.close()


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_selective_filter_still_returns_k(index: Index, mode: str) -> None:
    retriever = HybridRetriever(index)
    plain = retriever.search("ferry schedule harbour report", 2, mode=mode)
    assert {h.chunk.metadata["group"] for h in plain} != {7}  # unfiltered: other groups win
    hits = retriever.search(
        "ferry schedule harbour report", 2, mode=mode, where=parse_filter("group=7")
    )
    assert len(hits) == 2
    assert sorted(h.chunk.doc_id for h in hits) == ["r107", "r7"]


@pytest.mark.parametrize(
    "exprs",
    [["year>=2020", "lang=tr"], ["group in 3,50"], ["type=md"], ["team=ops"], ["lang!=en"]],
    ids=" ".join,
)
def test_every_hit_matches_and_k_come_back(index: Index, exprs: list[str]) -> None:
    flt = parse_filter(exprs)
    chunks = [c for s in index.sources() for c in index.catalog.chunks_of(s.source)]
    matching = {
        c.id for c in chunks if flt.matches({"source": c.source, "title": c.title}, c.metadata)
    }
    assert matching
    for mode in ("bm25", "dense", "hybrid"):
        hits = HybridRetriever(index).search("ferry schedule", 10, mode=mode, where=flt)
        assert {h.id for h in hits} <= matching, mode
        # every chunk holds "ferry schedule", so keyword search finds them all too
        assert len(hits) == min(10, len(matching)), mode


def test_builtin_metadata(index: Index) -> None:
    notes = [
        c
        for s in index.sources()
        if s.source.endswith("notes.md")
        for c in index.catalog.chunks_of(s.source)
    ]
    meta = notes[0].metadata
    assert meta["type"] == "md" and meta["team"] == "ops" and meta["modified"] > 1.6e9


def test_new_tags_rewrite_metadata_in_both_stores(
    built: Settings, embedder: Embedder, tmp_path: Path
) -> None:
    from crag.config import load_settings

    settings = load_settings(data_dir=tmp_path / "data", collection="tags")
    doc = tmp_path / "memo.txt"
    doc.write_text("The budget memo for the harbour office, with the ferry schedule.")
    idx = Index.open(settings, embedder=embedder)
    try:
        assert Ingestor(idx, tags={"team": "ops"}).ingest([doc]).added
        again = Ingestor(idx, tags={"team": "dev", "year": 2024}).ingest([doc])
        assert again.updated and again.embedded == 0  # same text: the vector is kept
        for mode in ("bm25", "dense"):
            search = HybridRetriever(idx).search
            assert not search("budget memo", 3, mode=mode, where=parse_filter("team=ops"))
            assert (
                len(
                    search(
                        "budget memo", 3, mode=mode, where=parse_filter(["team=dev", "year=2024"])
                    )
                )
                == 1
            )
        assert Ingestor(idx, tags={"team": "dev", "year": 2024}).ingest([doc]).unchanged
    finally:
        idx.close()


def test_http_search_and_ask_filters(built: Settings) -> None:
    from crag.server import create_app

    built.server.warmup = False
    with (
        serving(create_app(built, api_keys=[])) as url,
        httpx.Client(base_url=url, timeout=60) as c,
    ):
        body = {
            "query": "ferry schedule",
            "k": 2,
            "rerank": False,
            "where": [{"field": "group", "value": 7}],
        }
        r = c.post("/v1/search", json=body)
        assert r.status_code == 200, r.text
        data = r.json()
        assert data["where"] == "group=7" and len(data["hits"]) == 2
        assert {h["chunk"]["metadata"]["group"] for h in data["hits"]} == {7}
        r = c.post(
            "/v1/search",
            json={"query": "ferry", "where": ["year>=2024", "lang in en"], "rerank": False},
        )
        hits = r.json()["hits"]
        assert hits and all(h["chunk"]["metadata"]["year"] >= 2024 for h in hits)
        # a hit's chunk, fetched by id, is the record the search showed
        one = c.get(f"/v1/chunks/{hits[0]['chunk']['id']}")
        assert one.status_code == 200 and one.json() == hits[0]["chunk"]
        assert "harbour.jsonl" in one.json()["cite"]
        missing = c.get("/v1/chunks/no-such-chunk")
        assert missing.status_code == 404 and "no-such-chunk" in missing.json()["detail"]
        for path, extra in (("/v1/search", {"query": "x"}), ("/v1/ask", {"question": "x"})):
            bad = c.post(path, json={**extra, "where": ["title>=abc"]})
            assert bad.status_code == 400 and "compares numbers or dates" in bad.json()["detail"]
            bad = c.post(path, json={**extra, "where": [{"field": "a b", "value": 1}]})
            assert bad.status_code == 422

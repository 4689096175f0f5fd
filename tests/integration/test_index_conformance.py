"""One conformance suite for index backends: every test runs on the embedded index (SQLite +
FTS5 + Chroma) and on PostgreSQL (tsvector + pgvector, a real server on 127.0.0.1).

What a backend must do, whatever it stores: ingest, skip unchanged files, replace only changed
chunks, remove atomically, rank in the three modes, keyword-search Turkish with its casing and
suffixes, filter by metadata inside the search, refuse a different embedding model, and leave
nothing half-written when a writer stops mid-way.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from tests.support.files import write
from tests.support.pdfs import pdf_pages

from crag.config import Settings, load_settings
from crag.errors import EmbeddingMismatchError
from crag.index.filters import parse_filter
from crag.index.retriever import HybridRetriever
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor, source_key
from crag.models.embedder import Embedder

pytestmark = pytest.mark.slow

CORPUS = {
    "volcano.txt": "Mount Etna on Sicily is one of the most active volcanoes in the world. "
    "Its eruptions have been recorded since 1500 BC.",
    "violin.txt": "Antonio Stradivari made violins in Cremona. About 650 of his instruments "
    "survive, and they sell for millions at auction.",
    "tea.md": "# Tea\n\nGreen tea is made from leaves of Camellia sinensis that are not oxidised. "
    "Matcha is a powdered green tea from Japan.",
}

Opener = Callable[..., Index]


class Renamed:
    """The session's embedder under another model name: what a collection built with one
    model and reopened with another looks like to the bookkeeping."""

    def __init__(self, inner: Embedder, name: str) -> None:
        self.inner, self.name = inner, name

    def embed(self, texts: list[str], kind: str = "document") -> np.ndarray:
        return self.inner.embed(texts, kind=kind)  # type: ignore[arg-type]


@pytest.fixture(params=["embedded", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def open_index(backend: str, tmp_path: Path, embedder: Embedder, request) -> Iterator[Opener]:
    """Opens collections of this test's own store (a fresh data dir, or a fresh schema)."""
    extra: dict[str, object] = {}
    if backend == "postgresql":
        url = request.getfixturevalue("postgres_url")
        extra["index"] = {"url": url, "db_schema": f"t_{uuid.uuid4().hex[:12]}"}
    opened: list[Index] = []

    def opener(collection: str = "c", language: str = "english", model=None) -> Index:
        settings: Settings = load_settings(
            data_dir=tmp_path / "data",
            collection=collection,
            keyword={"language": language},
            **extra,
        )
        index = Index.open(settings, embedder=model or embedder)
        opened.append(index)
        return index

    yield opener
    for index in opened:
        index.close()


def corpus(root: Path) -> Path:
    for name, text in CORPUS.items():
        write(root / name, text)
    return root


def consistent(index: Index) -> None:
    """Catalog, keyword index and vectors hold the same chunks; every source is done."""
    assert index.stores_agree()
    assert index.count() == index.vectors.count()
    assert sum(s.chunks for s in index.sources()) == index.count()
    assert all(s.state == "done" for s in index.sources())


def test_ingest_and_rank_each_mode(tmp_path: Path, open_index: Opener) -> None:
    index = open_index()
    report = Ingestor(index).ingest([corpus(tmp_path / "docs")])
    assert report.ok and len(report.added) == 3 and report.embedded == report.chunks == 3
    consistent(index)
    retriever = HybridRetriever(index)
    assert retriever.search("Cremona", 3, mode="bm25")[0].chunk.source.endswith("violin.txt")
    top = retriever.search("a mountain that spits lava", 3, mode="dense")[0]
    assert top.chunk.source.endswith("volcano.txt") and 0 < top.score <= 1
    for fusion in ("rrf", "weighted"):
        hits = retriever.search("powdered Japanese tea", 3, mode="hybrid", fusion=fusion)
        assert hits[0].chunk.source.endswith("tea.md")
        assert {"bm25", "dense", fusion} <= set(hits[0].scores)


def test_incremental_reingest(tmp_path: Path, open_index: Opener) -> None:
    index = open_index()
    docs = corpus(tmp_path / "docs")
    Ingestor(index).ingest([docs])
    again = Ingestor(index).ingest([docs])
    assert len(again.unchanged) == 3 and again.embedded == 0
    paras = [f"Paragraph {i} talks about topic number {i} in some detail. " * 4 for i in range(6)]
    long = write(docs / "long.txt", "\n\n".join(paras))
    Ingestor(index).ingest([long])
    before = index.catalog.chunk_ids(source_key(long))
    paras[2] = "Paragraph two now describes the Zanzibar archipelago instead. " * 3
    long.write_text("\n\n".join(paras), encoding="utf-8")
    second = Ingestor(index).ingest([long])
    after = index.catalog.chunk_ids(source_key(long))
    assert second.updated == [source_key(long)]
    assert 0 < second.embedded < second.chunks and len(after - before) == second.embedded
    consistent(index)
    hit = HybridRetriever(index).search("Zanzibar archipelago", 1, mode="bm25")[0]
    assert "Zanzibar" in hit.chunk.text
    texts = [c.text for c in index.catalog.chunks_of(source_key(long))]
    assert not any("Paragraph 2 talks" in t for t in texts)


def test_a_sections_heading_is_searched_with_its_chunks(tmp_path: Path, open_index: Opener) -> None:
    """A Markdown chunk is found by the heading it stands under (crag.headings), and a
    renamed heading is searched under its new name although the chunk's text is unchanged."""
    index = open_index()
    body = "Boats leave the harbour at dawn and return before the evening tide. " * 12
    page = write(tmp_path / "docs" / "guide.md", f"# Guide\n\n## Zanzibar crossings\n\n{body}")
    Ingestor(index).ingest([page])
    consistent(index)
    hits = HybridRetriever(index).search("Zanzibar", 5, mode="bm25")
    under = [h.chunk for h in hits if "Zanzibar" not in h.chunk.text]
    assert under and all(c.metadata["heading"] == "Zanzibar crossings" for c in under)
    kept = {c.id for c in index.catalog.chunks_of(source_key(page))}
    page.write_text(f"# Guide\n\n## Pemba crossings\n\n{body}", encoding="utf-8")
    again = Ingestor(index).ingest([page])
    assert again.updated and kept & {c.id for c in index.catalog.chunks_of(source_key(page))}
    consistent(index)
    renamed = HybridRetriever(index).search("Pemba", 5, mode="bm25")
    assert any(h.chunk.id in kept and h.chunk.metadata["heading"] == "Pemba crossings"
               for h in renamed)  # fmt: skip
    assert not [h for h in HybridRetriever(index).search("Zanzibar", 5, mode="bm25")
                if h.chunk.id in kept]  # fmt: skip


def test_a_pdf_outline_section_is_searched_with_its_pages(
    tmp_path: Path, open_index: Opener
) -> None:
    """A PDF's outline entry names the chunks of the pages its section runs over
    (crag.ingest.pdf): found by keyword on both backends though their text never says it."""
    index = open_index()
    pages = [
        ["Zanzibar crossings", "Boats leave the harbour at dawn."],
        ["They return before the evening tide, weather allowing."],
    ]
    path = tmp_path / "guide.pdf"
    path.write_bytes(pdf_pages(pages, [(1, "Zanzibar crossings", 0)]))
    Ingestor(index).ingest([path])
    consistent(index)
    hits = HybridRetriever(index).search("Zanzibar", 5, mode="bm25")
    second = [h.chunk for h in hits if h.chunk.doc_id == "page 2"]
    assert second and second[0].metadata["heading"] == "Zanzibar crossings"
    assert "Zanzibar" not in second[0].text


def test_remove(tmp_path: Path, open_index: Opener) -> None:
    index = open_index()
    docs = corpus(tmp_path / "docs")
    ingestor = Ingestor(index)
    ingestor.ingest([docs])
    gone = ingestor.remove([docs / "violin.txt"])
    assert gone.removed == [source_key(docs / "violin.txt")] and gone.chunks == 1
    consistent(index)
    hits = HybridRetriever(index).search("Stradivari violins", 5)
    assert hits and all(not h.chunk.source.endswith("violin.txt") for h in hits)
    ingestor.remove([docs])
    assert index.count() == 0 and index.vectors.count() == 0 and not index.sources()


def test_turkish_keyword_search(tmp_path: Path, open_index: Opener) -> None:
    index = open_index("tr", language="turkish")
    write(tmp_path / "tr" / "kopru.md", "# Köprüler\n\nBoğaz'daki köprülerin ilki 1973'te açıldı.")
    write(tmp_path / "tr" / "cay.md", "# Çay\n\nRize, Türkiye'nin çay üretiminin merkezidir.")
    write(tmp_path / "tr" / "isim.md", "# Şehir\n\nISPARTA ve İZMİR ılık şehirlerdir.")
    assert Ingestor(index).ingest([tmp_path / "tr"]).ok
    retriever = HybridRetriever(index)
    # suffixes, dotted/dotless I and missing diacritics meet in the keyword index
    assert retriever.search("KÖPRÜ", 1, mode="bm25")[0].chunk.title == "Köprüler"
    assert retriever.search("köprüleri", 1, mode="bm25")[0].chunk.title == "Köprüler"
    assert retriever.search("cayin uretimi", 1, mode="bm25")[0].chunk.title == "Çay"
    assert retriever.search("izmirde", 1, mode="bm25")[0].chunk.title == "Şehir"
    assert retriever.search("Isparta'da", 1, mode="bm25")[0].chunk.title == "Şehir"
    consistent(index)


def test_metadata_filter_inside_the_search(tmp_path: Path, open_index: Opener) -> None:
    """A selective filter still returns k hits when k match, in every mode (not top-k first)."""
    index = open_index()
    docs = tmp_path / "docs"
    for i in range(30):
        write(docs / f"tea{i}.txt", f"Tea note {i}: green tea, black tea and tea leaves, tea.")
    write(docs / "a.md", "# Lighthouse\n\nA lighthouse keeper tends the lamp.")
    write(docs / "b.md", "# Harbour\n\nBoats rest in the harbour at night.")
    Ingestor(index).ingest([docs])
    retriever = HybridRetriever(index)
    only_md = parse_filter(["type=md"])
    for mode in ("dense", "hybrid"):
        hits = retriever.search("green tea", 2, mode=mode, where=only_md)
        assert sorted(h.chunk.title for h in hits) == ["Harbour", "Lighthouse"], mode
    assert retriever.search("tea", 2, mode="bm25", where=only_md) == []
    assert retriever.search("lamp harbour", 5, mode="bm25", where=only_md)
    not_md = retriever.search("lighthouse", 40, mode="dense", where=parse_filter(["type!=md"]))
    assert len(not_md) == 30 and all(h.chunk.metadata["type"] == "txt" for h in not_md)
    by_source = parse_filter([f"source={source_key(docs / 'tea7.txt')}"])
    assert [h.chunk.title for h in retriever.search("tea", 5, mode="hybrid", where=by_source)]


def test_embedding_model_recorded_and_mismatch_refused(
    tmp_path: Path, open_index: Opener, embedder: Embedder
) -> None:
    index = open_index()
    Ingestor(index).ingest([corpus(tmp_path / "docs")])
    assert index.embedding_model == embedder.name
    with pytest.raises(EmbeddingMismatchError, match="other-model"):
        open_index(model=Renamed(embedder, "other-model"))
    assert open_index("fresh", model=Renamed(embedder, "other-model")).count() == 0


def test_collections_are_separate(tmp_path: Path, open_index: Opener) -> None:
    a, b = open_index("a"), open_index("b")
    Ingestor(a).ingest([corpus(tmp_path / "docs")])
    assert a.count() == 3 and b.count() == 0
    assert HybridRetriever(b).search("Cremona", 3) == []


class Boom(RuntimeError):
    pass


def test_writer_stopped_mid_batch_leaves_whole_sources(
    tmp_path: Path, open_index: Opener, backend: str
) -> None:
    """A writer that dies after the first of two changed sources was written: on reopening
    each source is wholly old or wholly new, searches never see a mix, and the next ingest
    finishes the job."""
    index = open_index()
    docs = tmp_path / "docs"
    for i in range(2):
        write(docs / f"doc{i}.txt", f"Document {i} (v1) is about subject {i}. " * 3)
    Ingestor(index).ingest([docs])
    for i in range(2):
        write(docs / f"doc{i}.txt", f"Document {i} (v2) is about subject {i}. " * 3)
    if backend == "postgresql":
        target, name = index, "write_source"
    else:
        target, name = index.catalog, "replace_source"
    original = getattr(target, name)
    calls = []

    def second_fails(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise Boom(name)
        return original(*args, **kwargs)

    setattr(target, name, second_fails)
    with pytest.raises(Boom):
        Ingestor(index).ingest([docs])
    reopened = open_index()
    texts = {
        s.source: {c.text[:16] for c in reopened.catalog.chunks_of(s.source)}
        for s in reopened.sources()
    }
    assert all(len(t) == 1 for t in texts.values())  # no source holds old and new chunks
    report = Ingestor(reopened).ingest([docs])
    assert report.ok
    consistent(reopened)
    chunks = [c for s in reopened.sources() for c in reopened.catalog.chunks_of(s.source)]
    assert len(chunks) == 2 and all("(v2)" in c.text for c in chunks)

"""Ingest into a real index (SQLite/FTS5 + embedded Chroma + MiniLM): incremental updates,
removal, bad files, ranking on a tiny corpus, embedding-model bookkeeping."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest
from tests.conftest import SAMPLE, assert_in_step, vector_ids
from tests.support.files import write

from crag.errors import EmbeddingMismatchError
from crag.index.retriever import HybridRetriever
from crag.index.store import Index
from crag.ingest.ingestor import UNSUPPORTED_TYPE, Ingestor, source_key
from crag.models.embedder import make_embedder

pytestmark = pytest.mark.slow

CORPUS = {
    "volcano.txt": "Mount Etna on Sicily is one of the most active volcanoes in the world. "
    "Its eruptions have been recorded since 1500 BC.",
    "violin.txt": "Antonio Stradivari made violins in Cremona. About 650 of his instruments "
    "survive, and they sell for millions at auction.",
    "tea.txt": "Green tea is made from leaves of Camellia sinensis that are not oxidised. "
    "Matcha is a powdered green tea from Japan.",
}


def make_corpus(root: Path) -> Path:
    for name, text in CORPUS.items():
        write(root / name, text)
    return root


def test_ingest_then_rank_each_mode(tmp_path: Path, index: Index) -> None:
    corpus = make_corpus(tmp_path / "docs")
    report = Ingestor(index).ingest([corpus])
    assert report.ok and len(report.added) == 3 and report.embedded == report.chunks == 3
    assert_in_step(index)
    retriever = HybridRetriever(index)
    # keyword: a rare exact word
    assert retriever.search("Cremona", 3, mode="bm25")[0].chunk.source.endswith("violin.txt")
    # dense: a paraphrase with no shared content word
    top = retriever.search("a mountain that spits lava", 3, mode="dense")[0]
    assert top.chunk.source.endswith("volcano.txt")
    for fusion in ("rrf", "weighted"):
        hits = retriever.search("powdered Japanese tea", 3, mode="hybrid", fusion=fusion)
        assert hits[0].chunk.source.endswith("tea.txt")
        assert {"bm25", "dense", fusion} <= set(hits[0].scores)


def test_reingest_unchanged_does_no_work(tmp_path: Path, index: Index) -> None:
    corpus = make_corpus(tmp_path / "docs")
    Ingestor(index).ingest([corpus])
    again = Ingestor(index).ingest([corpus])
    assert len(again.unchanged) == 3 and not again.added and not again.updated
    assert again.embedded == 0 and again.chunks == 0


def test_markdown_ingested_before_headings_is_read_again_once(tmp_path: Path, index: Index) -> None:
    """A Markdown source stored under its plain content digest (before chunks carried their
    heading path) is chunked again on the next ingest, its chunks keep their embeddings, and
    the ingest after that does no work; a text file is not touched."""
    body = "Boats leave at dawn and return before the evening tide. " * 12
    page = write(tmp_path / "docs" / "guide.md", f"# Guide\n\n## Crossings\n\n{body}")
    note = write(tmp_path / "docs" / "note.txt", "A plain note about the harbour.")
    Ingestor(index).ingest([tmp_path / "docs"])
    plain = hashlib.sha256(page.read_bytes()).hexdigest()
    index.catalog._db.execute(
        "UPDATE sources SET sha256=? WHERE source=?", (plain, source_key(page))
    )
    index.catalog._db.execute(
        "UPDATE chunks SET metadata='{}' WHERE source=?", (source_key(page),)
    )  # what an earlier version stored: no heading
    again = Ingestor(index).ingest([tmp_path / "docs"])
    assert again.updated == [source_key(page)] and again.unchanged == [source_key(note)]
    assert again.embedded == 0
    assert any(
        c.metadata.get("heading") == "Crossings" for c in index.catalog.chunks_of(source_key(page))
    )
    assert_in_step(index)
    third = Ingestor(index).ingest([tmp_path / "docs"])
    assert len(third.unchanged) == 2 and third.embedded == 0


def test_changed_file_replaces_only_its_changed_chunks(tmp_path: Path, index: Index) -> None:
    paras = [f"Paragraph {i} talks about topic number {i} in some detail." * 4 for i in range(6)]
    doc = write(tmp_path / "long.txt", "\n\n".join(paras))
    ingestor = Ingestor(index)
    first = ingestor.ingest([doc])
    before = index.catalog.chunk_ids(source_key(doc))
    assert first.chunks == len(before) > 2
    paras[2] = "Paragraph two now describes the Zanzibar archipelago instead. " * 3
    doc.write_text("\n\n".join(paras), encoding="utf-8")
    second = ingestor.ingest([doc])
    after = index.catalog.chunk_ids(source_key(doc))
    assert second.updated == [source_key(doc)]
    assert 0 < second.embedded < second.chunks  # unchanged chunks were not embedded again
    assert len(after - before) == second.embedded
    assert_in_step(index)
    hits = HybridRetriever(index).search("Zanzibar archipelago", 1, mode="bm25")
    assert "Zanzibar" in hits[0].chunk.text
    texts = [c.text for c in index.catalog.chunks_of(source_key(doc))]
    assert not any("Paragraph 2 talks" in t for t in texts)


def test_remove_source_and_folder(tmp_path: Path, index: Index) -> None:
    corpus = make_corpus(tmp_path / "docs")
    ingestor = Ingestor(index)
    ingestor.ingest([corpus])
    gone = ingestor.remove([corpus / "violin.txt"])
    assert gone.removed == [source_key(corpus / "violin.txt")] and gone.chunks == 1
    assert_in_step(index)
    assert all(
        not h.chunk.source.endswith("violin.txt")
        for h in HybridRetriever(index).search("Stradivari violins", 5)
    )
    unknown = ingestor.remove([tmp_path / "never-indexed.txt"])
    assert unknown.failed and "not in the index" in unknown.failed[0][1]
    ingestor.remove([corpus])  # a folder removes everything under it
    assert index.count() == 0 and not vector_ids(index) and not index.sources()


def test_bad_files_are_reported_and_nothing_indexed_is_lost(tmp_path: Path, index: Index) -> None:
    corpus = make_corpus(tmp_path / "docs")
    ingestor = Ingestor(index)
    ingestor.ingest([corpus])
    before = index.count()
    write(corpus / "broken.json", '{"data": [ {"title": "x", ')  # malformed JSON
    (corpus / "blob.txt").write_bytes(b"\x00\x01\x02binary\x00" * 50)
    write(corpus / "empty.md", "   \n")
    write(corpus / "new.md", "# Saffron\n\nSaffron comes from the crocus flower.")
    # a file that was fine is now corrupt: its old chunks must stay searchable
    (corpus / "tea.txt").write_bytes(b"\xff\xfe\x00\x00" + b"\x00" * 64)
    report = ingestor.ingest([corpus])
    failed = dict(report.failed)
    assert "malformed JSON" in failed[str(corpus / "broken.json")]
    assert "binary" in failed[str(corpus / "blob.txt")]
    assert "empty" in failed[str(corpus / "empty.md")]
    assert str(corpus / "tea.txt") in failed
    assert report.added == [source_key(corpus / "new.md")]
    assert index.count() == before + 1
    assert (
        HybridRetriever(index).search("Matcha", 1, mode="bm25")[0].chunk.source.endswith("tea.txt")
    )
    assert_in_step(index)


def test_linked_and_twice_named_files_are_indexed_once(tmp_path: Path, index: Index) -> None:
    # /usr/share/doc/base-files holds README and FAQ -> README: both resolve to one source, and
    # writing its chunks twice in one batch failed the whole ingest (Chroma DuplicateIDError)
    corpus = make_corpus(tmp_path / "docs")
    (corpus / "FAQ").symlink_to("volcano.txt")
    report = Ingestor(index).ingest(
        [corpus, corpus / "tea.txt", tmp_path / "docs" / "." / "tea.txt"]
    )
    assert report.ok and sorted(report.added) == sorted(source_key(corpus / n) for n in CORPUS)
    assert index.count() == 3
    assert_in_step(index)


def test_conventional_names_are_read_and_other_types_reported(tmp_path: Path, index: Index) -> None:
    # a package's docs as installed: README.Debian, a gzipped NEWS, a FAQ with no suffix
    pkg = tmp_path / "doc" / "saffron"
    write(pkg / "README.Debian", "Saffron for Debian\n\nThe spice comes from the crocus flower.")
    write(pkg / "FAQ", "Q. Why is saffron expensive?\nA. Each flower gives three stigmas.")
    (pkg / "NEWS.gz").write_bytes(gzip.compress(b"saffron 2.0: harvested by hand in Iran."))
    write(pkg / "Makefile", "all:\n\techo saffron")
    (pkg / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 32)
    (pkg / "history.db").write_bytes(b"SQLite format 3\x00" + b"\x00" * 32)
    # files of a kind crag reads that are not documents of it: passed over in a walk
    write(pkg / "package.json", '{"name": "saffron", "version": "2.0"}')
    write(pkg / "cat.1", ".so man1/other.1\n")  # a man page alias
    report = Ingestor(index).ingest([tmp_path / "doc"])
    assert report.ok and len(report.added) == 3
    ignored = {Path(p).name: why for p, why in report.ignored}
    assert sorted(ignored) == ["Makefile", "cat.1", "history.db", "logo.png", "package.json"]
    assert ignored["logo.png"] == UNSUPPORTED_TYPE and "not SQuAD" in ignored["package.json"]
    # named on its own, the same file is a failure
    named = Ingestor(index).ingest([pkg / "package.json"])
    assert not named.ok and "not SQuAD" in named.failed[0][1]
    hit = HybridRetriever(index).search("crocus", 1, mode="bm25")[0].chunk
    assert hit.source.endswith("README.Debian") and hit.title == "saffron README.Debian"
    assert HybridRetriever(index).search("Iran", 1, mode="bm25")[0].chunk.title == "saffron NEWS"


def test_missing_path_is_reported(tmp_path: Path, index: Index) -> None:
    report = Ingestor(index).ingest([tmp_path / "nope"])
    assert report.failed == [(str(tmp_path / "nope"), "no such file or folder")]


def test_sample_corpus_citations_point_at_real_text(index: Index) -> None:
    report = Ingestor(index).ingest([SAMPLE])
    assert report.ok and len(report.added) == len(list(SAMPLE.iterdir()))
    hits = HybridRetriever(index).search("Who flew the command module Columbia?", 3)
    top = hits[0].chunk
    assert top.title == "Apollo 11" and top.doc_id == "Apollo 11#0"
    assert "Michael Collins" in top.text
    from crag.ingest.loaders import load_file

    docs = {d.doc_id: d for d in load_file(Path(top.source)).documents}
    assert docs[top.doc_id].text[top.start : top.end] == top.text


def test_embedding_model_recorded_and_mismatch_refused(tmp_path: Path, settings, index) -> None:
    Ingestor(index).ingest([make_corpus(tmp_path / "docs")])
    assert index.embedding_model == "sentence-transformers/all-MiniLM-L6-v2"
    assert index.vectors.embedding_model == index.embedding_model
    index.close()
    with pytest.raises(EmbeddingMismatchError, match="use-multilingual"):
        Index.open(settings, embedder=make_embedder("use-multilingual"))


def test_turkish_through_the_index(tmp_path: Path, settings) -> None:
    from crag.config import load_settings

    tr = load_settings(data_dir=settings.data_dir, collection="tr", keyword={"language": "turkish"})
    index = Index.open(tr, embedder=make_embedder("use-multilingual"))
    write(tmp_path / "tr" / "kopru.md", "# Köprüler\n\nBoğaz'daki köprülerin ilki 1973'te açıldı.")
    write(tmp_path / "tr" / "cay.md", "# Çay\n\nRize, Türkiye'nin çay üretiminin merkezidir.")
    assert Ingestor(index).ingest([tmp_path / "tr"]).ok
    retriever = HybridRetriever(index)
    # suffixes, dotted/dotless I and missing diacritics still meet in BM25
    assert retriever.search("KÖPRÜ", 1, mode="bm25")[0].chunk.title == "Köprüler"
    assert retriever.search("cayin uretimi", 1, mode="bm25")[0].chunk.title == "Çay"
    assert retriever.search("Boğaz köprüsü ne zaman açıldı?", 1)[0].chunk.title == "Köprüler"
    assert_in_step(index)
    index.close()


def test_embedding_sorted_by_length_comes_back_in_order(index: Index) -> None:
    import numpy as np

    from crag.types import Chunk

    texts = ["short", "a much longer text about volcanoes and lava " * 5, "medium length text"]
    chunks = [
        Chunk(id=str(i), text=t, source="s", doc_id="d", position=i, start=0, end=len(t))
        for i, t in enumerate(texts)
    ]
    index.embed_batch = 2  # several slices
    got = index._embed(chunks, None)
    want = index.embedder.embed(texts)
    assert np.allclose(got, want, atol=1e-5)

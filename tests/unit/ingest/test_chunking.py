"""Chunker: size bound, exact offsets, stable content ids, dedup, sentence splits, bounded work
on long documents. Cuts at headings and Markdown structure: `test_chunking_sections.py`."""

from __future__ import annotations

import hashlib

import pytest
from tests.support.chunks import check_offsets, document

from crag.ingest.chunking import Chunker, chunk_id
from crag.types import Document

_ENGLISH = " ".join(
    f"Sentence number {i} talks about the {word} and what it means for the reader."
    for i, word in enumerate(
        [
            "river",
            "mountain",
            "harbour",
            "library",
            "market",
            "garden",
            "bridge",
            "station",
            "museum",
            "castle",
            "forest",
            "valley",
            "island",
            "lighthouse",
            "orchard",
            "tower",
        ]
        * 3
    )
)

_TURKISH = (
    "İstanbul'da sabah erkenden vapura bindik ve Boğaz'ın serin rüzgârını hissettik. "
    "Üsküdar'a vardığımızda çarşıdaki dükkânlar yeni açılıyordu. "
    "Şehrin kalabalığı öğleye doğru artıyor, ışıklar akşamüstü yanmaya başlıyordu.\n\n"
    "Kadıköy'de çay içtik; çocuklar sahilde güvercinlere simit atıyordu. "
    "Ağaçların gölgesinde oturan yaşlılar eski günleri konuşuyordu. "
    "Gece olduğunda köprünün ışıkları suya yansıyor, şehir başka bir güzelliğe bürünüyordu.\n\n"
    "Ertesi gün Eyüp'e gidip Piyer Loti tepesinden Haliç'i seyrettik. "
    "Dönüşte Balat'ın renkli evlerinin arasında dolaştık ve küçük bir lokantada yemek yedik."
)


@pytest.mark.parametrize(("size", "overlap"), [(80, 0), (120, 20), (200, 50), (500, 50)])
def test_chunks_respect_size_and_offsets(size: int, overlap: int) -> None:
    doc = document(_ENGLISH)
    chunks = Chunker(size, overlap).split(doc)
    assert len(chunks) > 1
    assert all(0 < len(c.text) <= size for c in chunks)
    check_offsets(doc, chunks)
    assert [c.position for c in chunks] == list(range(len(chunks)))
    # Together the chunks cover every word of the document.
    covered = " ".join(c.text for c in chunks)
    for word in ("river", "lighthouse", "orchard", "Sentence number 47"):
        assert word in covered


@pytest.mark.parametrize(("size", "overlap"), [(60, 0), (100, 10), (150, 30)])
def test_turkish_multibyte_offsets(size: int, overlap: int) -> None:
    doc = document(_TURKISH, source="/data/istanbul.md")
    chunks = Chunker(size, overlap).split(doc)
    assert len(chunks) > 2
    assert all(len(c.text) <= size for c in chunks)
    check_offsets(doc, chunks)
    # Offsets are character offsets, not byte offsets: the last chunk ends at the text's end.
    assert chunks[-1].end == len(_TURKISH)
    assert len(_TURKISH.encode()) > len(_TURKISH)


def test_chunk_carries_document_fields() -> None:
    doc = Document(
        source="/data/x.jsonl",
        doc_id="rec-9",
        text="A short record.",
        title="Record nine",
        url="https://example.org/9",
        metadata={"lang": "en"},
    )
    (chunk,) = Chunker(100, 10).split(doc)
    assert chunk.text == "A short record."
    assert (chunk.source, chunk.doc_id, chunk.title, chunk.url) == (
        "/data/x.jsonl",
        "rec-9",
        "Record nine",
        "https://example.org/9",
    )
    assert chunk.metadata == {"lang": "en"}
    assert chunk.metadata is not doc.metadata
    assert (chunk.start, chunk.end, chunk.position) == (0, 15, 0)


def test_chunk_id_is_sha256_of_source_unit_and_text() -> None:
    expected = hashlib.sha256(b"/data/a.txt\x00r1\x00hello").hexdigest()
    assert chunk_id("/data/a.txt", "r1", "hello") == expected
    # The separator keeps ("ab", "c") and ("a", "bc") apart.
    assert chunk_id("ab", "x", "c") != chunk_id("a", "x", "bc")
    assert chunk_id("s", "ab", "c") != chunk_id("s", "a", "bc")


def test_ids_match_chunk_id_and_are_stable() -> None:
    doc = document(_ENGLISH)
    first = Chunker(150, 20).split(doc)
    second = Chunker(150, 20).split(doc)
    assert [c.id for c in first] == [chunk_id(doc.source, doc.doc_id, c.text) for c in first]
    assert [c.id for c in first] == [c.id for c in second]
    assert len({c.id for c in first}) == len(first)


def test_same_text_in_two_sources_gets_different_ids() -> None:
    chunker = Chunker(150, 20)
    a = chunker.split(document(_ENGLISH, source="/data/a.txt"))
    b = chunker.split(document(_ENGLISH, source="/data/b.txt"))
    assert [c.text for c in a] == [c.text for c in b]
    assert not {c.id for c in a} & {c.id for c in b}


def test_shared_text_in_two_records_of_a_source_keeps_both_records() -> None:
    """Records of one file may share passages; each record must stay citable by its own id."""
    shared = "This paragraph appears in two records of the same file."
    docs = [
        document(shared, source="/data/r.jsonl", doc_id="r1"),
        document("Record two says something else entirely.", source="/data/r.jsonl", doc_id="r2"),
        document(shared, source="/data/r.jsonl", doc_id="r3"),
    ]
    chunks = Chunker(200, 0).split_all(docs)
    assert [c.doc_id for c in chunks] == ["r1", "r2", "r3"]
    assert len({c.id for c in chunks}) == len(chunks)


def test_repeated_unit_with_same_text_is_kept_once() -> None:
    shared = "A record duplicated verbatim, id and all."
    docs = [document(shared, source="/data/r.jsonl", doc_id="r1")] * 2
    assert [c.doc_id for c in Chunker(200, 0).split_all(docs)] == ["r1"]


def test_duplicate_paragraphs_deduplicated_within_a_document() -> None:
    para = "The same paragraph, pasted twice by mistake."
    text = f"{para}\n\nA different paragraph in between.\n\n{para}"
    chunks = Chunker(50, 0).split(document(text))
    assert [c.text for c in chunks] == [para, "A different paragraph in between."]
    assert [c.position for c in chunks] == [0, 1]


def test_chunks_end_at_sentence_ends() -> None:
    doc = document(_ENGLISH)
    chunks = Chunker(200, 0).split(doc)
    assert len(chunks) >= 10
    ends = [c.text.endswith(".") for c in chunks]
    assert sum(ends) >= 0.9 * len(chunks)
    starts = [c.text.startswith("Sentence number") for c in chunks]
    assert sum(starts) >= 0.9 * len(chunks)


def test_empty_document_gives_no_chunks() -> None:
    assert Chunker(100, 10).split(document("")) == []
    assert Chunker(100, 10).split_all([]) == []


# -- bounded work: long documents are cut into pieces first (F2) ----------------------------


def test_pieces_cover_the_text_in_order_and_prefer_good_boundaries() -> None:
    from crag.ingest.chunking import pieces

    text = ("para one. " * 30 + "\n\n") * 40 + "word " * 3000 + "x" * 5000
    parts = list(pieces(text, 1000))
    assert "".join(p for _, p in parts) == text
    assert all(text[o : o + len(p)] == p for o, p in parts)
    assert all(len(p) <= 1000 for _, p in parts)
    assert parts[0][1].endswith("\n\n")  # a paragraph break was in reach
    assert any(p.endswith("word ") for _, p in parts)  # no break but spaces: cut at a space
    assert len(parts[-1][1]) <= 1000  # no space at all: cut at the size


def test_short_documents_are_split_exactly_as_before() -> None:
    from semantic_text_splitter import TextSplitter

    text = _ENGLISH[:7000]
    assert len(text) < Chunker().piece_chars
    direct = TextSplitter(500, overlap=50, trim=True).chunk_indices(text)
    ours = Chunker().split(Document(source="s", doc_id="d", text=text))
    assert [(c.start, c.text) for c in ours] == [(s, t) for s, t in direct]


@pytest.mark.parametrize("kind", ["one line of words", "one word a line", "no spaces"])
def test_long_unpunctuated_text_is_chunked_with_exact_offsets(kind: str) -> None:
    words = [f"w{i % 97}" for i in range(60_000)]
    text = {
        "one line of words": " ".join(words),
        "one word a line": "\n".join(words),
        "no spaces": "".join(words),
    }[kind]
    chunker = Chunker(200, 20)
    chunks = chunker.split(Document(source="s", doc_id="d", text=text))
    assert all(len(c.text) <= 200 for c in chunks)
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert chunks[-1].end >= len(text.rstrip()) - 200

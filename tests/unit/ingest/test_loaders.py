"""Loaders: every supported format through `load_file`/`load_bytes`, and every refusal.

All inputs are small files written by the tests into `tmp_path`.
"""

from __future__ import annotations

import codecs
import gzip
import json
import logging
from pathlib import Path

import pytest
from tests.support.pdfs import pdf_pages

from crag.errors import LoaderError, UnsupportedFileError
from crag.ingest.chunking import Chunker
from crag.ingest.loaders import load_bytes, load_file

# --------------------------------------------------------------------------- helpers


def _write(path: Path, data: str | bytes) -> Path:
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


def _squad(version: str) -> dict:
    qa_v1 = {
        "id": "q1",
        "question": "Where is the strait?",
        "answers": [{"text": "Istanbul", "answer_start": 40}],
    }
    qas_second = [
        {
            "id": "q2",
            "question": "How many continents?",
            "answers": [{"text": "two", "answer_start": 10}],
        }
    ]
    if version == "v2.0":
        qas_second.append(
            {
                "id": "q3",
                "question": "Who built the moon?",
                "answers": [],
                "plausible_answers": [{"text": "nobody", "answer_start": 0}],
                "is_impossible": True,
            }
        )
    return {
        "version": version,
        "data": [
            {
                "title": "Bosphorus_Strait",
                "paragraphs": [
                    {
                        "context": "The Bosphorus strait runs through Istanbul.",
                        "qas": [qa_v1],
                    },
                    {
                        "context": "It joins two continents, Europe and Asia.",
                        "qas": qas_second,
                    },
                ],
            },
            {
                "title": "Black_Sea",
                "paragraphs": [
                    {"context": "The Black Sea lies north of Turkey.", "qas": []},
                ],
            },
        ],
    }


def make_pdf(text: str = "Hello PDF world") -> bytes:
    """A minimal valid one-page PDF (Helvetica, one text line) with a correct xref table."""
    return pdf_pages([[text]])


@pytest.fixture(autouse=True)
def _quiet_pypdf():
    # pypdf logs every repair attempt on corrupt input; keep test output readable.
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    yield
    logger.setLevel(level)


# --------------------------------------------------------------------------- SQuAD JSON


@pytest.mark.parametrize("version", ["1.1", "v2.0"])
def test_squad_one_document_per_paragraph(tmp_path: Path, version: str) -> None:
    path = _write(tmp_path / "squad.json", json.dumps(_squad(version)))
    result = load_file(path)
    docs = result.documents
    assert [d.doc_id for d in docs] == ["Bosphorus Strait#0", "Bosphorus Strait#1", "Black Sea#0"]
    assert [d.title for d in docs] == ["Bosphorus Strait", "Bosphorus Strait", "Black Sea"]
    assert docs[0].text == "The Bosphorus strait runs through Istanbul."
    assert docs[1].text == "It joins two continents, Europe and Asia."
    assert docs[2].metadata == {"article": 1, "paragraph": 0}
    assert all(d.source == str(path) for d in docs)
    assert result.warnings == []


def test_squad_malformed_json(tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.json", '{"data": [\n  {"title": "x",\n  oops}\n]}')
    with pytest.raises(LoaderError) as info:
        load_file(path)
    message = str(info.value)
    assert str(path) in message
    assert "malformed JSON at line 3" in message
    assert info.value.path == str(path)


def test_squad_object_without_data(tmp_path: Path) -> None:
    path = _write(tmp_path / "other.json", json.dumps({"version": "1.1", "articles": []}))
    with pytest.raises(LoaderError, match="not SQuAD"):
        load_file(path)


def test_squad_list_at_top_level_is_not_squad(tmp_path: Path) -> None:
    path = _write(tmp_path / "list.json", json.dumps([{"title": "x"}]))
    with pytest.raises(LoaderError, match="not SQuAD"):
        load_file(path)


def test_squad_paragraph_without_context_is_warned_and_skipped(tmp_path: Path) -> None:
    data = {
        "data": [
            {"title": "A", "paragraphs": [{"context": "  "}, {"context": "Kept text."}]},
            {"title": "B"},
        ]
    }
    path = _write(tmp_path / "partial.json", json.dumps(data))
    result = load_file(path)
    assert [d.doc_id for d in result.documents] == ["A#1"]
    assert any("paragraphs[0] has no context" in w for w in result.warnings)
    assert any("data[1] has no paragraphs list" in w for w in result.warnings)


def test_squad_without_any_context_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "hollow.json", json.dumps({"data": [{"paragraphs": []}]}))
    with pytest.raises(LoaderError, match="no paragraph with a context"):
        load_file(path)


def test_squad_gzipped(tmp_path: Path) -> None:
    raw = json.dumps(_squad("v2.0")).encode("utf-8")
    path = _write(tmp_path / "squad.json.gz", gzip.compress(raw))
    docs = load_file(path).documents
    assert [d.doc_id for d in docs] == ["Bosphorus Strait#0", "Bosphorus Strait#1", "Black Sea#0"]


def test_corrupt_gzip(tmp_path: Path) -> None:
    path = _write(tmp_path / "squad.json.gz", b"this is not gzip data at all")
    with pytest.raises(LoaderError, match="corrupt gzip"):
        load_file(path)


def test_truncated_gzip(tmp_path: Path) -> None:
    packed = gzip.compress(json.dumps(_squad("1.1")).encode())
    path = _write(tmp_path / "squad.json.gz", packed[: len(packed) // 2])
    with pytest.raises(LoaderError, match="truncated gzip"):
        load_file(path)


# --------------------------------------------------------------------------- JSONL


def test_jsonl_records(tmp_path: Path) -> None:
    lines = [
        {
            "id": "r1",
            "text": "First record text.",
            "title": "One",
            "url": "https://example.org/1",
            "lang": "en",
            "year": 2024,
            "score": 0.5,
            "public": True,
            "tags": ["a", "b"],
            "extra": {"nested": 1},
            "missing": None,
        },
        {"id": 7, "text": "Second record text."},
        {"text": "Third record has no id."},
    ]
    path = _write(tmp_path / "recs.jsonl", "\n".join(json.dumps(r) for r in lines) + "\n")
    result = load_file(path)
    docs = result.documents
    assert [d.doc_id for d in docs] == ["r1", "7", "line3"]
    first = docs[0]
    assert first.text == "First record text."
    assert first.title == "One"
    assert first.url == "https://example.org/1"
    assert first.metadata == {"lang": "en", "year": 2024, "score": 0.5, "public": True}
    assert docs[1].title == ""
    assert docs[1].url == ""
    assert result.warnings == []


def test_ndjson_suffix(tmp_path: Path) -> None:
    path = _write(tmp_path / "recs.ndjson", '{"id": "a", "text": "alpha"}\n')
    assert [d.doc_id for d in load_file(path).documents] == ["a"]


def test_jsonl_bad_line_is_skipped_with_warning(tmp_path: Path) -> None:
    lines = [
        '{"id": "a", "text": "alpha"}',
        "",
        '{"id": "b", "text": "beta"',
        '{"id": "c", "text": "gamma"}',
    ]
    text = "\n".join(lines) + "\n"
    path = _write(tmp_path / "mixed.jsonl", text)
    result = load_file(path)
    assert [d.doc_id for d in result.documents] == ["a", "c"]
    assert len(result.warnings) == 1
    assert "line 3" in result.warnings[0]
    assert "malformed JSON" in result.warnings[0]
    assert str(path) in result.warnings[0]


def test_jsonl_non_object_and_missing_text_are_warned(tmp_path: Path) -> None:
    lines = [
        "[1, 2]",
        '{"id": "x", "text": ""}',
        '{"id": "y", "body": "no"}',
        '{"id": "z", "text": "ok"}',
    ]
    text = "\n".join(lines) + "\n"
    path = _write(tmp_path / "odd.jsonl", text)
    result = load_file(path)
    assert [d.doc_id for d in result.documents] == ["z"]
    assert any("line 1 is not a JSON object" in w for w in result.warnings)
    assert any('line 2 has no "text"' in w for w in result.warnings)
    assert any('line 3 has no "text"' in w for w in result.warnings)


def test_jsonl_all_lines_bad(tmp_path: Path) -> None:
    path = _write(tmp_path / "broken.jsonl", "{not json\n[1]\n{also: bad}\n")
    with pytest.raises(LoaderError) as info:
        load_file(path)
    message = str(info.value)
    assert str(path) in message
    assert "no valid JSONL record" in message
    assert "line 1" in message


def test_jsonl_duplicate_ids_warned(tmp_path: Path) -> None:
    text = (
        '{"id": "same", "text": "first"}\n'
        '{"id": "same", "text": "second"}\n'
        '{"id": "other", "text": "third"}\n'
    )
    path = _write(tmp_path / "dups.jsonl", text)
    result = load_file(path)
    assert [(d.doc_id, d.text) for d in result.documents] == [("same", "first"), ("other", "third")]
    assert len(result.warnings) == 1
    assert "line 2" in result.warnings[0]
    assert "'same'" in result.warnings[0]


def test_jsonl_escaped_line_separator_is_fine(tmp_path: Path) -> None:
    records = [{"id": "a", "text": "one\u2028two"}, {"id": "b", "text": "plain"}]
    path = _write(tmp_path / "esc.jsonl", "\n".join(json.dumps(r) for r in records))
    docs = load_file(path).documents
    assert [(d.doc_id, d.text) for d in docs] == [("a", "one\u2028two"), ("b", "plain")]


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"], ids=["LS", "PS", "NEL"])
def test_jsonl_raw_unicode_line_separator_inside_string(tmp_path: Path, separator: str) -> None:
    records = [{"id": "a", "text": f"one{separator}two"}, {"id": "b", "text": "plain"}]
    lines = "\n".join(json.dumps(r, ensure_ascii=False) for r in records)
    path = _write(tmp_path / "raw.jsonl", lines)
    result = load_file(path)
    assert [(d.doc_id, d.text) for d in result.documents] == [
        ("a", f"one{separator}two"),
        ("b", "plain"),
    ]
    assert result.warnings == []


@pytest.mark.parametrize("name", ["deep.json", "deep.jsonl"])
def test_deeply_nested_json_is_loader_error(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path / name, "[" * 100_000 + "]" * 100_000)
    with pytest.raises(LoaderError):
        load_file(path)


# --------------------------------------------------------------------------- PDF


def test_pdf_page_text(tmp_path: Path) -> None:
    path = _write(tmp_path / "hello.pdf", make_pdf())
    result = load_file(path)
    assert len(result.documents) == 1
    doc = result.documents[0]
    assert doc.doc_id == "page 1"
    assert "Hello PDF world" in doc.text
    assert doc.metadata == {"page": 1}
    assert doc.title == "hello"
    assert doc.source == str(path)


def test_pdf_via_load_bytes(tmp_path: Path) -> None:
    result = load_bytes(tmp_path / "mem.pdf", make_pdf("Bytes only"))
    assert "Bytes only" in result.documents[0].text


@pytest.mark.parametrize(
    "data",
    [
        bytes(range(256)) * 8,  # random-looking bytes, no PDF header
        b"%PDF-1.4\n1 0 obj\n<< /Type",  # truncated header
        make_pdf()[:300],  # a real PDF cut in the middle
        b"garbage that merely has a pdf suffix",
    ],
    ids=["noise", "truncated-header", "cut-in-half", "text"],
)
def test_corrupt_pdf(tmp_path: Path, data: bytes) -> None:
    path = _write(tmp_path / "broken.pdf", data)
    with pytest.raises(LoaderError, match="PDF") as info:
        load_file(path)
    assert str(path) in str(info.value)


def test_pdf_without_text(tmp_path: Path) -> None:
    path = _write(tmp_path / "blank.pdf", make_pdf(""))
    with pytest.raises(LoaderError, match="PDF has no extractable text"):
        load_file(path)


def test_pdf_with_number_as_trailer_is_loader_error(tmp_path: Path) -> None:
    data = make_pdf().replace(b"trailer\n<< /Size 6 /Root 1 0 R >>", b"trailer\n5")
    path = _write(tmp_path / "trailer.pdf", data)
    with pytest.raises(LoaderError, match="PDF"):
        load_file(path)


def test_pdf_with_broken_catalog_and_pages_is_loader_error(tmp_path: Path) -> None:
    data = (
        make_pdf()
        .replace(b"<< /Type /Catalog", b"<< /Ty\xc1S /Catalog")
        .replace(b"<< /Type /Pages", b"<\xc8 /Type /Pages")
    )
    path = _write(tmp_path / "loop.pdf", data)
    with pytest.raises(LoaderError, match="PDF"):
        load_file(path)


# --------------------------------------------------------------------------- HTML

_HTML = """<!DOCTYPE html>
<html>
<head>
  <title>Bosphorus Guide</title>
  <script>var trackerSecret = "script text must not be indexed";</script>
  <style>body { color: red; }</style>
</head>
<body>
  <nav><a href="/">Home</a> | <a href="/about">About us</a> | <a href="/shop">Shop</a></nav>
  <article>
    <p>The Bosphorus strait separates Europe from Asia and runs through the middle of
    Istanbul for about thirty kilometres.</p>
    <p>Ferries cross the strait every few minutes, carrying commuters between the two
    continents throughout the day.</p>
  </article>
  <footer>Copyright 2024 Example Inc.</footer>
</body>
</html>
"""


def test_html_main_text(tmp_path: Path) -> None:
    path = _write(tmp_path / "page.html", _HTML)
    result = load_file(path)
    assert len(result.documents) == 1
    doc = result.documents[0]
    text = " ".join(doc.text.split())
    assert "The Bosphorus strait separates Europe from Asia" in text
    assert "Ferries cross the strait every few minutes" in text
    assert "trackerSecret" not in doc.text
    assert "script text must not be indexed" not in doc.text
    assert "color: red" not in doc.text
    assert doc.title == "Bosphorus Guide"
    assert doc.doc_id == "page"


_BOOK_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8">
<title>Tides and Moorings - The Harbour Book</title></head>
<body><div class="menu-bar"><h1 class="menu-title">The Harbour Book</h1></div>
<main><h2 id="tides">Tides and Moorings</h2>
<p>Boats of the harbour are moored at the north pier,
where the water is deep enough for the ferries that cross
the strait every few minutes.</p>
<h3>Tides</h3><p>The tide turns twice a day, and the harbour master posts
the times on the board by the gate.</p></main></body></html>"""


def test_html_paragraph_wraps_are_spaces_and_chunks_start_at_headings(tmp_path: Path) -> None:
    doc = load_file(_write(tmp_path / "tides.html", _BOOK_PAGE)).documents[0]
    # the line wraps of the page's source are spaces on the rendered page
    assert "moored at the north pier, where the water is deep enough for the ferries" in doc.text
    chunks = Chunker(200, 0).split(doc)
    assert [c.text.split("\n")[0] for c in chunks] == ["## Tides and Moorings", "### Tides"]


def test_htm_suffix(tmp_path: Path) -> None:
    path = _write(tmp_path / "page.HTM", _HTML)
    assert "Ferries cross" in load_file(path).documents[0].text


def test_html_without_text(tmp_path: Path) -> None:
    html = "<html><head><title>Empty</title><script>var a = 1;</script></head><body></body></html>"
    path = _write(tmp_path / "empty.html", html)
    with pytest.raises(LoaderError, match="no extractable main text"):
        load_file(path)


# --------------------------------------------------------------------------- Markdown and text


def test_markdown_title_from_first_heading(tmp_path: Path) -> None:
    text = "Some preamble line.\n\n## Not this one\n\n# Real Title #\n\nBody text here.\n"
    path = _write(tmp_path / "notes.md", text)
    doc = load_file(path).documents[0]
    assert doc.title == "Real Title"
    assert doc.format == "markdown"
    assert doc.text == text


def test_markdown_front_matter_titles_the_page(tmp_path: Path) -> None:
    # npm's docs, as installed: YAML front matter, and a "# comment" in a fenced example
    # before any heading (the page was titled ".travis.yml" by it)
    text = (
        "---\ntitle: npm-ci\nsection: 1\ndescription: Clean install a project\n---\n\n"
        "### Synopsis\n\n```bash\nnpm ci\n```\n\n```yaml\n# .travis.yml\ninstall:\n"
        "- npm ci\n```\n\n### Description\n\nThis command is similar to npm install.\n"
    )
    doc = load_file(_write(tmp_path / "npm-ci.md", text)).documents[0]
    assert doc.title == "npm-ci"
    assert doc.text.startswith("Clean install a project\n\n### Synopsis")
    assert "section: 1" not in doc.text and "title:" not in doc.text
    chunks = Chunker(chunk_size=60, chunk_overlap=0).split(doc)
    assert chunks[0].text.startswith("Clean install a project")
    assert not any("title" in str(c.metadata) for c in chunks)


def test_markdown_title_skips_fenced_comments(tmp_path: Path) -> None:
    text = "```sh\n# install it\npip install x\n```\n\nTitle\n=====\n\nBody.\n"
    doc = load_file(_write(tmp_path / "guide.md", text)).documents[0]
    assert doc.title == "Title"
    text = "```sh\n# install it\npip install x\n```\n\nNo heading at all.\n"
    assert load_file(_write(tmp_path / "guide.md", text)).documents[0].title == "guide"


def test_markdown_front_matter_that_does_not_parse_is_read_as_text(tmp_path: Path) -> None:
    text = "---\ntitle: [unclosed\n---\n\n# Heading\n\nBody.\n"
    result = load_file(_write(tmp_path / "page.md", text))
    assert result.documents[0].title == "Heading"
    assert "title: [unclosed" in result.documents[0].text
    assert any("front matter is not a YAML mapping" in w for w in result.warnings)


def test_markdown_without_heading_uses_stem(tmp_path: Path) -> None:
    path = _write(tmp_path / "notes.markdown", "Just a paragraph, no heading.\n")
    doc = load_file(path).documents[0]
    assert doc.title == "notes"
    assert doc.format == "markdown"
    # a README says what kind of document it is; its folder says what it is about
    path = _write(tmp_path / "readme.markdown", "Just a paragraph, no heading.\n")
    assert load_file(path).documents[0].title == f"{tmp_path.name} readme"


@pytest.mark.parametrize("suffix", [".txt", ".text", ".rst"])
def test_plain_text(tmp_path: Path, suffix: str) -> None:
    path = _write(tmp_path / f"my notes{suffix}", "# not a heading for text files\nhello\n")
    doc = load_file(path).documents[0]
    assert doc.title == "my notes"
    assert doc.format == "text"
    assert doc.doc_id == "text"
    # plain text keeps its lines; in reStructuredText the two are one paragraph
    joined = "# not a heading for text files hello\n"
    assert doc.text == (joined if suffix == ".rst" else "# not a heading for text files\nhello\n")


# --------------------------------------------------------------------------- encodings

_TURKISH = (
    "Bu şehirde çok güzel bir akşam geçirdik. Işıklar yanıyordu ve İstanbul'un sokakları "
    "kalabalıktı. Çocuklar parkta oynuyor, yaşlılar çay içiyordu. Öğleden sonra güneş "
    "batarken boğazın kıyısında yürüdük.\n"
)
_FRENCH = (
    "Le café était fermé. Nous avons marché jusqu'à la rivière, où l'été semblait éternel. "
    "Les élèves préféraient la forêt, près du château, où l'on entendait les oiseaux chanter.\n"
)


@pytest.mark.parametrize("content", [b"", b"   \n\t \r\n  "], ids=["empty", "whitespace"])
def test_empty_file(tmp_path: Path, content: bytes) -> None:
    path = _write(tmp_path / "empty.txt", content)
    with pytest.raises(LoaderError, match="empty file"):
        load_file(path)


def test_binary_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "blob.txt", b"ELF\x00\x01\x02\x03binary\x00data" * 10)
    with pytest.raises(LoaderError, match="binary"):
        load_file(path)


def test_cp1254_turkish_detected(tmp_path: Path) -> None:
    path = _write(tmp_path / "tr.txt", _TURKISH.encode("cp1254"))
    result = load_file(path)
    text = result.documents[0].text
    assert "şehirde" in text
    assert "İstanbul'un" in text
    assert "ı" in text
    assert text == _TURKISH
    assert len(result.warnings) == 1
    assert "not UTF-8" in result.warnings[0]
    assert str(path) in result.warnings[0]


def test_latin1_french_detected(tmp_path: Path) -> None:
    path = _write(tmp_path / "fr.md", _FRENCH.encode("latin-1"))
    result = load_file(path)
    assert "café était fermé" in result.documents[0].text
    assert "é" in result.documents[0].text
    assert any("not UTF-8" in w for w in result.warnings)


def test_legacy_encoding_refused_without_detection(tmp_path: Path) -> None:
    path = _write(tmp_path / "tr.txt", _TURKISH.encode("cp1254"))
    with pytest.raises(LoaderError, match="not valid UTF-8"):
        load_file(path, detect_encoding=False)


def test_utf16_with_bom(tmp_path: Path) -> None:
    text = "Merhaba dünya, İstanbul'da güzel bir gün.\n"
    for encoding in ("utf-16", "utf-16-le", "utf-16-be"):
        bom = {
            "utf-16": b"",
            "utf-16-le": codecs.BOM_UTF16_LE,
            "utf-16-be": codecs.BOM_UTF16_BE,
        }[encoding]
        path = _write(tmp_path / f"{encoding}.txt", bom + text.encode(encoding))
        result = load_file(path)
        assert result.documents[0].text == text, encoding
        assert result.warnings == []


@pytest.mark.parametrize(
    "data",
    [
        codecs.BOM_UTF16_LE + "odd".encode("utf-16-le") + b"x",  # truncated: odd byte count
        codecs.BOM_UTF16_LE + b"\x00\xd8a\x00",  # lone high surrogate
    ],
    ids=["truncated", "lone-surrogate"],
)
def test_invalid_utf16_is_loader_error(tmp_path: Path, data: bytes) -> None:
    path = _write(tmp_path / "bad16.txt", data)
    with pytest.raises(LoaderError, match="UTF-16"):
        load_file(path)


def test_utf32_is_refused_as_binary(tmp_path: Path) -> None:
    path = _write(tmp_path / "u32.txt", codecs.BOM_UTF32_LE + "hello world".encode("utf-32-le"))
    with pytest.raises(LoaderError, match="binary"):
        load_file(path)


def test_utf8_bom_is_stripped(tmp_path: Path) -> None:
    path = _write(tmp_path / "bom.md", codecs.BOM_UTF8 + "# Başlık\n\nmetin\n".encode())
    doc = load_file(path).documents[0]
    assert not doc.text.startswith("\ufeff")
    assert "\ufeff" not in doc.text
    assert doc.title == "Başlık"


def test_utf8_bom_squad(tmp_path: Path) -> None:
    raw = codecs.BOM_UTF8 + json.dumps(_squad("1.1")).encode()
    path = _write(tmp_path / "bom.json", raw)
    assert len(load_file(path).documents) == 3


# --------------------------------------------------------------------------- file refusals


def test_unsupported_suffix(tmp_path: Path) -> None:
    path = _write(tmp_path / "data.xyz", "some text")
    with pytest.raises(UnsupportedFileError) as info:
        load_file(path)
    assert isinstance(info.value, LoaderError)
    assert ".xyz" in str(info.value)
    assert ".pdf" in str(info.value)  # the message lists what is supported


def test_gz_without_inner_suffix_is_unsupported(tmp_path: Path) -> None:
    path = _write(tmp_path / "archive.gz", gzip.compress(b"hello"))
    with pytest.raises(UnsupportedFileError):
        load_file(path)


def test_missing_path(tmp_path: Path) -> None:
    path = tmp_path / "nope.txt"
    with pytest.raises(LoaderError, match="no such file") as info:
        load_file(path)
    assert info.value.path == str(path)


def test_directory(tmp_path: Path) -> None:
    folder = tmp_path / "folder.txt"
    folder.mkdir()
    with pytest.raises(LoaderError, match="not a regular file"):
        load_file(folder)


def test_max_bytes(tmp_path: Path) -> None:
    path = _write(tmp_path / "big.txt", "x" * 1000)
    with pytest.raises(LoaderError, match="max_file_mb"):
        load_file(path, max_bytes=999)
    assert load_file(path, max_bytes=1000).documents[0].text == "x" * 1000


def test_load_bytes_matches_load_file(tmp_path: Path) -> None:
    data = b'{"id": "a", "text": "alpha"}\n'
    path = _write(tmp_path / "same.jsonl", data)
    assert load_bytes(path, data).documents == load_file(path).documents


# --------------------------------------------------------------------------- terminal text


def test_text_made_for_a_terminal_is_read_without_its_codes(tmp_path: Path) -> None:
    # grotty's output (man-db-manual.txt.gz) and a CI log in colour were refused as binary
    page = "\x1b[1mman-db\x1b[0m - the \x1b[4mmanual\x1b[24m pager\n" * 20
    log = "\x1b]0;build\x07\x1b[32mPASS\x1b[m tests/a.py\n\x1b[31;1mFAIL\x1b[0m b.py\n" * 20
    bold = "B\bBo\bol\bld\bd and _\bu_\bn_\bd_\be_\br\n" * 20
    assert (
        load_file(_write(tmp_path / "m.txt.gz", gzip.compress(page.encode())))
        .documents[0]
        .text.startswith("man-db - the manual pager\n")
    )
    assert (
        "PASS tests/a.py\nFAIL b.py"
        in load_file(_write(tmp_path / "ci.txt", log)).documents[0].text
    )
    assert (
        load_file(_write(tmp_path / "b.txt", bold)).documents[0].text.startswith("Bold and under\n")
    )
    # other control characters are still binary
    with pytest.raises(LoaderError, match="binary"):
        load_file(_write(tmp_path / "x.txt", "\x01\x02\x03 data \x04\x05\x06" * 40))


def test_a_rotated_changelog_named_like_a_page_is_text(tmp_path: Path) -> None:
    log = "tar (1.30-1) unstable; urgency=low\n\n  * New upstream release.\n"
    (tmp_path / "tar").mkdir()
    doc = load_file(_write(tmp_path / "tar" / "changelog.1.gz", gzip.compress(log.encode())))
    assert doc.documents[0].title == "tar changelog.1" and "New upstream" in doc.documents[0].text
    with pytest.raises(UnsupportedFileError, match=r"no \.TH"):  # not a conventional name
        load_file(_write(tmp_path / "syslog.1", "Nov 27 10:00 host cron[1]: job\n"))


# ------------------------------------------------------------------ mixed and sparse legacy text


def test_utf8_with_a_few_latin1_bytes_keeps_both(tmp_path: Path) -> None:
    # a changelog whose older entries were written in latin-1 (libxslt's, libmp3lame's)
    data = (
        "  * Patch from Rog\u00e9rio Brito and Tomasz K\u0142oczko\n".encode()
        + "  * Thanks to Dag-Erling Sm\u00f8rgrav and Miguel Mu\u00f1oz\n".encode("latin-1")
    ) * 30
    result = load_file(_write(tmp_path / "changelog", data))
    text = result.documents[0].text
    assert "Rog\u00e9rio" in text and "K\u0142oczko" in text
    assert "Sm\u00f8rgrav" in text and "Mu\u00f1oz" in text
    assert "UTF-8 with 60 byte(s) of another encoding" in result.warnings[0]


def test_a_few_western_names_in_english_are_not_read_as_another_script(tmp_path: Path) -> None:
    # charset-normalizer read make's NEWS as big5 (which ate the "m" of "K\u00e4mpf"), and tied
    # cp1250 with cp1252 on "Sm\u00f8rgrav" ("Sm\u0159rgrav")
    english = "The port to VMS was done by Klaus K\u00e4mpf and reviewed by others. " * 40
    names = "Fixes from Dag-Erling Sm\u00f8rgrav, Lars Skj\u00e6rlund and Miguel Mu\u00f1oz.\n"
    for text in (english, "Release notes of many kinds for this project.\n" * 60 + names):
        result = load_file(_write(tmp_path / "NEWS", text.encode("latin-1")))
        assert result.documents[0].text == text

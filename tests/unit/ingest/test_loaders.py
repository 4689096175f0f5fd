"""Loaders: PDF, HTML, Markdown and text through `load_file`/`load_bytes`, and every refusal
of a file (SQuAD and JSONL: test_json_loaders.py; encodings: test_encodings.py).

All inputs are small files written by the tests into `tmp_path`.
"""

from __future__ import annotations

import gzip
import logging
from pathlib import Path

import pytest
from tests.support.files import write as _write
from tests.support.pdfs import pdf_pages

from crag.errors import LoaderError, UnsupportedFileError
from crag.ingest.chunking import Chunker
from crag.ingest.loaders import load_bytes, load_file


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

"""PDF pages without their furniture, with the outline's sections (crag.ingest.pdf)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.pdfs import pdf_pages

from crag.ingest.chunking import Chunker
from crag.ingest.loaders import LoadResult, load_file
from crag.ingest.pdf import furniture
from crag.types import Heading

BODY = "The ferry leaves the harbour at dawn and returns before the evening tide."


@pytest.fixture(autouse=True)
def _quiet_pypdf() -> Iterator[None]:
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    yield
    logger.setLevel(level)


def _load(tmp_path: Path, data: bytes, name: str = "manual.pdf") -> LoadResult:
    path = tmp_path / name
    path.write_bytes(data)
    return load_file(path)


# --------------------------------------------------------------------------- furniture


def test_running_heads_and_page_numbers_are_removed() -> None:
    bodies = [
        ["Ferries leave at dawn.", "Tickets cost 4 euros."],
        ["Storms close the harbour.", "Fog delays the ferries 2 days a year."],
        ["The pier is 120 metres long.", "Fishing is allowed."],
    ]
    pages = [["Harbour Manual", *body, str(n)] for n, body in enumerate(bodies, start=1)]
    cleaned = furniture(["\n".join(p) for p in pages])
    assert cleaned == ["\n".join(body) for body in bodies]


def test_a_running_head_with_its_page_number_on_two_pages_is_removed() -> None:
    pages = [
        "Contents\nIntroduction to boats\nfirst page body",
        "Chapter 2: Crossings 3\nTimes of the crossings.\nstill chapter two",
        "Chapter 2: Crossings 4\nPrices of the crossings.\nend of chapter two",
    ]
    cleaned = furniture(pages)
    assert cleaned[0] == pages[0]
    assert cleaned[1] == "Times of the crossings.\nstill chapter two"
    assert cleaned[2] == "Prices of the crossings.\nend of chapter two"


def test_body_lines_and_short_documents_are_kept() -> None:
    # the same first line on only two pages, word for word, is text (a repeated table
    # header, a quotation), not furniture; a middle line is never furniture
    pages = [
        "Tide table\nmorning\nand noon",
        "Tide table\nevening\nand dusk",
        "Notes\non tides\nTide table\nnight\nand dawn",
    ]
    assert furniture(pages) == pages
    # a long line that differs only in its numbers is text, though it opens three pages
    rows = [
        f"In {1990 + n} the ferry carried {n * 1000} passengers across the bay, in {n} boats"
        " of the harbour company, at a fare of 4 euros a crossing."
        for n in (1, 2, 3)
    ]
    long = [f"{row}\nbody {word}\nmore {word}" for row, word in zip(rows, "abc", strict=True)]
    assert furniture(long) == long
    two = ["Head\nbody one\n1", "Head\nbody two\n2"]
    assert furniture(two) == two  # too few pages to tell furniture from text


def test_pdf_pages_lose_their_furniture(tmp_path: Path) -> None:
    bodies = ["Ferries leave at dawn.", "Storms close the harbour.", "Fog delays the ferries."]
    pages = [["Harbour Manual", body, str(n)] for n, body in enumerate(bodies, start=1)]
    result = _load(tmp_path, pdf_pages(pages))
    assert [d.text for d in result.documents] == bodies
    assert [d.doc_id for d in result.documents] == ["page 1", "page 2", "page 3"]


# --------------------------------------------------------------------------- outline


def _manual() -> bytes:
    pages = [
        ["1 Boats", "Boats of the harbour are small.", "1.1 Ferries", "Ferries carry cars."],
        ["Ferries leave at dawn; tickets cost four euros.", "Timetables hang at the pier."],
        ["2 Weather", "Storms close the harbour.", "2.1 Fog", "Fog delays the ferries."],
    ]
    outline = [(1, "1 Boats", 0), (2, "Ferries", 0), (1, "2 Weather", 2), (2, "2.1 Fog", 2)]
    return pdf_pages(pages, outline, title="Harbour Manual")


def test_outline_entries_are_placed_where_they_stand(tmp_path: Path) -> None:
    docs = _load(tmp_path, _manual()).documents
    first, second, third = (d.headings for d in docs)
    text = docs[0].text
    # "Ferries" is found after its section number, at the start of its line
    assert first == (
        Heading(0, 1, "1 Boats"),
        Heading(text.index("1.1 Ferries"), 2, "Ferries"),
    )
    # a page without entries carries the sections open at its start
    assert second == (Heading(-1, 1, "1 Boats"), Heading(-1, 2, "Ferries"))
    # a new top-level section closes the ones below the old one
    assert third[:2] == (Heading(-1, 1, "1 Boats"), Heading(-1, 2, "Ferries"))
    assert [h.text for h in third[2:]] == ["2 Weather", "2.1 Fog"]
    assert docs[0].title == "Harbour Manual"


def test_chunks_carry_the_section_they_start_in(tmp_path: Path) -> None:
    docs = _load(tmp_path, _manual()).documents
    chunks = Chunker(chunk_size=40, chunk_overlap=0).split_all(docs)
    heading = {c.text.split("\n")[0]: c.metadata.get("heading") for c in chunks}
    # carried over from the page before
    assert heading["Ferries leave at dawn; tickets cost four"] == "1 Boats › Ferries"
    assert heading["euros."] == "1 Boats › Ferries"
    # a chunk opening with its heading names that section itself: the path is the ones above
    assert heading["1.1 Ferries"] == "1 Boats"
    assert heading["2.1 Fog"] == "2 Weather"
    assert heading["2 Weather"] is None


def test_an_entry_missing_from_its_page_opens_with_the_page(tmp_path: Path) -> None:
    pages = [["Opening words of the guide."], ["Text of the second page."]]
    data = pdf_pages(pages, [(1, "Preface", 0), (1, "Appendix Z", 1)])
    docs = _load(tmp_path, data).documents
    assert docs[1].headings == (Heading(-1, 1, "Preface"), Heading(-1, 1, "Appendix Z"))
    chunks = Chunker(chunk_size=200, chunk_overlap=0).split_all(docs)
    assert [c.metadata.get("heading") for c in chunks] == ["Preface", "Appendix Z"]


def test_an_outline_title_is_plain_text(tmp_path: Path) -> None:
    pages = [["__NOGLOBS__ and *.diff", "The pattern __NOGLOBS__ discards older globs."]]
    docs = _load(tmp_path, pdf_pages(pages, [(1, "__NOGLOBS__ and *.diff", 0)])).documents
    chunks = Chunker(chunk_size=20, chunk_overlap=0).split_all(docs)
    assert {c.metadata.get("heading") for c in chunks[1:]} == {"__NOGLOBS__ and *.diff"}


def _sized() -> list[list[str | tuple[str, float]]]:
    return [
        [("Harbour Manual", 24), ("1 Boats", 16), "Boats of the harbour are small.",
         ("1.1 Ferries", 13.5), "Ferries carry cars and leave at dawn."],
        ["Tickets cost four euros on every crossing of the bay.",
         "Timetables hang at the pier next to the harbour office."],
        [("2 Weather", 16), "Storms close the harbour in winter.",
         "Fog delays the ferries in the autumn months."],
    ]  # fmt: skip


def test_a_pdf_without_outline_takes_its_sections_from_type_size(tmp_path: Path) -> None:
    docs = _load(tmp_path, pdf_pages(_sized())).documents
    assert docs[0].title == "Harbour Manual"  # the first page's largest heading
    assert [(h.level, h.text) for h in docs[0].headings] == [
        (1, "Harbour Manual"), (2, "1 Boats"), (3, "1.1 Ferries")
    ]  # fmt: skip
    chunks = Chunker(chunk_size=60, chunk_overlap=0).split_all(docs)
    heading = {c.text.splitlines()[0]: c.metadata.get("heading") for c in chunks}
    assert (
        heading["Tickets cost four euros on every crossing of the bay."] == "1 Boats › 1.1 Ferries"
    )
    # the heading stays with the text under it, and opens with its own heading: under the
    # title only
    weather = next(c for c in chunks if c.text.startswith("2 Weather"))
    assert "Fog delays the ferries in the autumn months." in weather.text
    assert heading["2 Weather"] is None
    # a title set in its metadata stays the title
    titled = _load(tmp_path, pdf_pages(_sized(), title="Port Guide"), "titled.pdf").documents
    assert titled[0].title == "Port Guide"


def test_large_type_that_is_layout_is_no_heading(tmp_path: Path) -> None:
    # a running head set large on every page, and a slide deck where most text is large
    bodies = ["Ferries leave at dawn.", "Storms close the harbour.", "Fog delays the ferries."]
    head = [[("Harbour Manual", 16), body] for body in bodies]
    docs = _load(tmp_path, pdf_pages(head)).documents
    assert all(d.headings == () for d in docs)
    slides = [[("Ferries leave at dawn", 28), ("Tickets cost four euros", 20), "small print"]]
    docs = _load(tmp_path, pdf_pages(slides), "slides.pdf").documents
    assert docs[0].headings == ()


def test_a_pdf_without_outline_has_no_sections(tmp_path: Path) -> None:
    docs = _load(tmp_path, pdf_pages([[BODY]])).documents
    assert docs[0].headings == ()
    assert "heading" not in Chunker().split_all(docs)[0].metadata


def test_a_broken_outline_costs_the_sections_not_the_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _manual()
    # the catalog's outline pointed at the catalog itself: pypdf reads no entries
    broken = data.replace(b"/Outlines", b"/Outlines 1 0 R /X", 1)
    assert broken != data
    result = _load(tmp_path, broken)
    assert [d.doc_id for d in result.documents] == ["page 1", "page 2", "page 3"]
    assert all(d.headings == () for d in result.documents)

    # an outline pypdf fails on while walking it (a reference loop, a bad destination)
    def fail(reader: object) -> list[tuple[int, int, str]]:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr("crag.ingest.pdf._outline", fail)
    result = _load(tmp_path, data, "loop.pdf")
    assert len(result.documents) == 3 and all(d.headings == () for d in result.documents)
    assert result.warnings == [
        f"{tmp_path / 'loop.pdf'}: outline unreadable (RecursionError); no sections"
    ]

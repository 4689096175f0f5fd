"""DOCX, PPTX, XLSX, CSV and EPUB loaders: the citable unit of each fact, tables as header rows,
and the parts a package needs read, no more. The tests build their own files; bad files are
in `test_office_faults.py`."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from tests.support.office_files import (
    XHTML,
    epub_bytes,
    make_csv,
    make_docx,
    make_epub,
    make_pptx,
    make_xlsx,
)

from crag.ingest.chunking import Chunker
from crag.ingest.loaders import is_supported, load_file
from crag.ingest.sheets import ROWS_PER_UNIT


def unit_of(docs, needle: str) -> str:
    """The doc_id of the one unit whose text holds `needle`."""
    found = [d.doc_id for d in docs if needle in d.text]
    assert len(found) == 1, (needle, found)
    return found[0]


# --------------------------------------------------------------------------- DOCX


def test_docx_one_unit_per_heading_section_with_table_rows(tmp_path: Path) -> None:
    docs = load_file(make_docx(tmp_path / "report.docx")).documents
    assert {d.title for d in docs} == {"Harbour Annual Report"}
    assert unit_of(docs, "port authority") == "(start)"
    assert unit_of(docs, "calendar year 2024") == "Introduction › Scope"
    assert unit_of(docs, "48210") == "Results › Cargo by terminal"
    table = next(d for d in docs if "48210" in d.text).text
    assert "Terminal: North Pier; Cargo: grain; Tonnes: 48210" in table.splitlines()
    assert "Terminal: Kelp Dock; Cargo: timber; Tonnes: 9113" in table.splitlines()
    # a style based on Heading 2 opens a section; a repeated heading gets its own name
    assert unit_of(docs, "eastern basin") == "Results › Outlook"
    assert unit_of(docs, "late figures") == "Results (2)"
    # the heading path leads the text, so a chunk of the section says where it is
    assert next(d for d in docs if "eastern basin" in d.text).text.startswith("Results › Outlook")
    # and every chunk of it carries the path, which the reranker and reader read (crag.titles)
    assert next(d for d in docs if "48210" in d.text).metadata["heading"] == (
        "Results › Cargo by terminal"
    )
    assert "heading" not in next(d for d in docs if "port authority" in d.text).metadata


def test_docx_chunks_cite_the_heading(tmp_path: Path) -> None:
    docs = load_file(make_docx(tmp_path / "report.docx")).documents
    chunks = Chunker(200, 0).split_all(docs)
    hit = next(c for c in chunks if "Kelp Dock" in c.text)
    assert "Results › Cargo by terminal" in hit.cite()
    assert len({c.id for c in chunks}) == len(chunks)


# --------------------------------------------------------------------------- PPTX


def test_pptx_one_unit_per_slide_with_table_and_notes(tmp_path: Path) -> None:
    docs = load_file(make_pptx(tmp_path / "review.pptx")).documents
    assert [d.metadata["slide"] for d in docs] == [1, 2, 3]  # the blank slide 4 has no unit
    assert {d.title for d in docs} == {"Quarterly Review"}
    assert unit_of(docs, "Nordics") == "slide 2: Sales by region"
    assert "Region: Iberia; Q3 revenue: 1.7 MEUR" in docs[1].text.splitlines()
    assert unit_of(docs, "Tampere") == "slide 3: Hiring"
    assert "Notes: Mention the new office in Tampere." in docs[2].text
    assert docs[0].text.splitlines() == ["Agenda", "Sales", "Hiring", "Risks"]


# --------------------------------------------------------------------------- XLSX / CSV


def test_xlsx_rows_with_header_in_units_named_by_sheet_and_rows(tmp_path: Path) -> None:
    docs = load_file(make_xlsx(tmp_path / "fleet.xlsx")).documents
    assert ROWS_PER_UNIT == 40
    assert [d.doc_id for d in docs] == ["Vessels rows 2-41", "Vessels rows 42-48", "Crew row 4"]
    assert {d.title for d in docs} == {"Fleet register"}
    lines = docs[0].text.splitlines()
    assert lines[0] == "Vessels rows 2-41 (columns: Vessel, Built, Length m, Home port)"
    assert lines[1] == "Vessel: Vessel 1; Built: 1991-02-01; Length m: 21.5; Home port: Bergen"
    # row 41 is the 40th vessel; the blank row 47 is skipped but counted
    assert unit_of(docs, "Vessel 40;") == "Vessels rows 2-41"
    assert unit_of(docs, "Sea Otter") == "Vessels rows 42-48"
    assert "Vessel: Sea Otter; Built: 2011-05-04; Length m: 31; Home port: Tromsø" in docs[1].text
    # a header that starts in B3 after blank rows and an empty column
    assert docs[2].text.splitlines() == [
        "Crew row 4 (columns: Name, Role)",
        "Name: Ingrid Dahl; Role: captain",
    ]
    assert docs[2].metadata == {"sheet": "Crew", "first_row": 4, "last_row": 4}


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
def test_csv_rows_with_header(tmp_path: Path, delimiter: str) -> None:
    docs = load_file(make_csv(tmp_path / "cities.csv", delimiter)).documents
    assert [d.doc_id for d in docs] == ["rows 2-3"]
    assert "City: Porto, old town; Country: Portugal; Population: 231800" in docs[0].text


def test_csv_many_rows_are_split_into_units(tmp_path: Path) -> None:
    path = tmp_path / "n.csv"
    path.write_text("n,square\n" + "".join(f"{i},{i * i}\n" for i in range(1, 101)))
    docs = load_file(path).documents
    assert [d.doc_id for d in docs] == ["rows 2-41", "rows 42-81", "rows 82-101"]
    assert unit_of(docs, "square: 4900") == "rows 42-81"  # n=70 is record 71


def test_tsv_header_only_is_one_unit(tmp_path: Path) -> None:
    path = tmp_path / "t.tsv"
    path.write_text("a\tb\n")
    assert [d.doc_id for d in load_file(path).documents] == ["header"]


# --------------------------------------------------------------------------- EPUB


def test_epub_one_unit_per_chapter(tmp_path: Path) -> None:
    result = load_file(make_epub(tmp_path / "lights.epub"))
    docs = result.documents
    assert [d.doc_id for d in docs] == ["chapter 1: The First Lamp", "chapter 2: Keepers"]
    assert {d.title for d in docs} == {"Lighthouses of the North"}
    assert "The first lighthouse on the coast was lit in 1697." in docs[0].text.splitlines()
    assert "color" not in docs[0].text  # style and head are not text
    assert "Keeper: Ole Berg; Years: 1901-1934" in docs[1].text.splitlines()
    assert any("'gone' is missing" in w for w in result.warnings)


def test_epub_chunks_carry_the_chapters_inner_sections(tmp_path: Path) -> None:
    chapter = XHTML.format(
        title="Three",
        body="<h1>Lamps</h1><p>Lamps burned oil.</p>"
        "<section><h2>Fuel <em>and</em> wicks</h2><p>Paraffin replaced whale oil in 1860.</p>"
        "<h3>Wicks</h3><p>A wick was trimmed every four hours.</p></section>"
        "<h2>Lenses</h2><p>Fresnel lenses came in 1823.</p>",
    )
    path = tmp_path / "lamps.epub"
    path.write_bytes(epub_bytes({"OEBPS/text/ch2.xhtml": chapter}))
    doc = load_file(path).documents[1]
    assert doc.doc_id == "chapter 2: Lamps"
    assert [(h.level, h.text) for h in doc.headings] == [
        (1, "Lamps"), (2, "Fuel and wicks"), (3, "Wicks"), (2, "Lenses")
    ]  # fmt: skip
    assert all(doc.text[h.offset :].startswith(h.text) for h in doc.headings)
    chunks = Chunker(chunk_size=40, chunk_overlap=0).split(doc)
    heading = {c.text.splitlines()[0]: c.metadata.get("heading") for c in chunks}
    # a heading stays with the text under it (never a chunk of its own), and a chunk that
    # opens with its section's heading names it itself: the path is the ones above
    wicks = next(c for c in chunks if c.text.startswith("Wicks"))
    assert "A wick was trimmed every four hours." in wicks.text
    assert heading["Wicks"] == "Lamps › Fuel and wicks"
    assert heading["Lenses"] == "Lamps"
    assert not any(c.text.strip() in ("Wicks", "Lenses", "Fuel and wicks") for c in chunks)


def test_epub_font_obfuscation_is_not_drm(tmp_path: Path) -> None:
    enc = (
        '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
        '<enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/>'
        '<enc:CipherData><enc:CipherReference URI="OEBPS/font.otf"/></enc:CipherData>'
        "</enc:EncryptedData></encryption>"
    )
    path = tmp_path / "f.epub"
    path.write_bytes(epub_bytes({"META-INF/encryption.xml": enc}))
    assert len(load_file(path).documents) == 2


def test_new_suffixes_are_supported() -> None:
    for name in ["a.docx", "a.pptx", "a.xlsx", "a.xlsm", "a.csv", "a.tsv", "a.epub", "a.csv.gz"]:
        assert is_supported(Path(name)), name


def test_a_zip_is_not_read_past_a_member_it_does_not_need(tmp_path: Path) -> None:
    """A package with an extra member (a picture, a macro) loads: only the parts are read."""
    data = make_docx(tmp_path / "r.docx").read_bytes()
    buf = io.BytesIO(data)
    with zipfile.ZipFile(buf, "a") as z:
        z.writestr("word/media/extra.bin", b"\0" * 1000)
    path = tmp_path / "extra.docx"
    path.write_bytes(buf.getvalue())
    assert len(load_file(path).documents) == 7

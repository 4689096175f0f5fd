"""DOCX, PPTX, XLSX, CSV and EPUB loaders: the citable unit of each fact, tables as header rows,
and a clear per-file error for every kind of bad file. The tests build their own files."""

from __future__ import annotations

import io
import random
import zipfile
from pathlib import Path

import pytest
from tests.support.office_files import (
    OPF,
    XHTML,
    encrypted_office,
    epub_bytes,
    legacy_office,
    make_csv,
    make_docx,
    make_epub,
    make_pptx,
    make_xlsx,
    zip_with,
)

from crag.errors import LoaderError
from crag.ingest.chunking import Chunker
from crag.ingest.loaders import is_supported, load_bytes, load_file
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


# --------------------------------------------------------------------------- bad files

SUFFIXES = [".docx", ".pptx", ".xlsx", ".epub"]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_not_a_zip_is_named(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"bad{suffix}"
    path.write_bytes(b"this is plain text, not a package\n")
    with pytest.raises(LoaderError) as err:
        load_file(path)
    assert err.value.path == str(path)
    assert "corrupt or not a ZIP" in err.value.reason


@pytest.mark.parametrize(
    "suffix,make", [(".docx", make_docx), (".pptx", make_pptx), (".xlsx", make_xlsx)]
)
def test_truncated_office_file(tmp_path: Path, suffix: str, make) -> None:
    data = make(tmp_path / f"good{suffix}").read_bytes()
    path = tmp_path / f"cut{suffix}"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(LoaderError, match="corrupt or not a ZIP"):
        load_file(path)


@pytest.mark.parametrize("suffix", [".docx", ".pptx", ".xlsx"])
def test_password_protected_and_legacy_office(tmp_path: Path, suffix: str) -> None:
    enc = tmp_path / f"secret{suffix}"
    enc.write_bytes(encrypted_office())
    with pytest.raises(LoaderError, match="password-protected"):
        load_file(enc)
    old = tmp_path / f"old{suffix}"
    old.write_bytes(legacy_office())
    with pytest.raises(LoaderError, match="legacy binary Office file"):
        load_file(old)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_wrong_content_inside_a_zip(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"other{suffix}"
    path.write_bytes(zip_with({"hello.txt": "just a zip"}))
    with pytest.raises(LoaderError) as err:
        load_file(path)
    assert err.value.path == str(path)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_encrypted_zip_members(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"locked{suffix}"
    path.write_bytes(zip_with({"a.xml": "x"}, encrypt_flag=True))
    with pytest.raises(LoaderError, match="encrypted ZIP"):
        load_file(path)


def test_package_unpacking_past_the_limit_is_refused(tmp_path: Path) -> None:
    data = make_xlsx(tmp_path / "big.xlsx").read_bytes()
    with pytest.raises(LoaderError, match=r"unpacks to .* above ingest\.max_file_mb"):
        load_bytes(Path("big.xlsx"), data, max_bytes=len(data))


def test_office_files_without_text(tmp_path: Path) -> None:
    import docx
    from openpyxl import Workbook
    from pptx import Presentation

    docx.Document().save(tmp_path / "empty.docx")
    Workbook().save(tmp_path / "empty.xlsx")
    deck = Presentation()
    deck.slides.add_slide(deck.slide_layouts[6])
    deck.save(tmp_path / "empty.pptx")
    for name, reason in [
        ("empty.docx", "DOCX holds no text"),
        ("empty.xlsx", "XLSX holds no cell"),
        ("empty.pptx", "PPTX holds no text"),
    ]:
        with pytest.raises(LoaderError, match=reason):
            load_file(tmp_path / name)


def test_epub_errors(tmp_path: Path) -> None:
    cases = {
        "nocontainer.epub": (epub_bytes(skip=("META-INF/container.xml",)), "container.xml"),
        "badopf.epub": (epub_bytes({"OEBPS/content.opf": "<package><oops"}), "not well-formed"),
        "nospine.epub": (
            epub_bytes({"OEBPS/content.opf": OPF.split("<spine>")[0] + "</package>"}),
            "no spine",
        ),
        "drm.epub": (
            epub_bytes(
                {
                    "META-INF/encryption.xml": (
                        '<encryption xmlns:enc="http://www.w3.org/2001/04/xmlenc#">'
                        "<enc:EncryptedData><enc:EncryptionMethod "
                        'Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>'
                        '<enc:CipherData><enc:CipherReference URI="OEBPS/text/ch2.xhtml"/>'
                        "</enc:CipherData></enc:EncryptedData></encryption>"
                    )
                }
            ),
            "DRM-protected EPUB",
        ),
        "empty.epub": (
            epub_bytes(
                skip=("OEBPS/text/chapter 1.xhtml", "OEBPS/text/ch2.xhtml"),
            ),
            "no chapter with text",
        ),
    }
    for name, (data, reason) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(LoaderError, match=reason) as err:
            load_file(path)
        assert err.value.path == str(path)


def test_malformed_csv_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "huge.csv"
    path.write_text("a,b\n1,2\n3," + "x" * 200_000 + "\n")
    with pytest.raises(LoaderError, match="malformed CSV at line 3"):
        load_file(path)


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


@pytest.mark.parametrize(
    "suffix,make",
    [(".docx", make_docx), (".pptx", make_pptx), (".xlsx", make_xlsx), (".epub", make_epub)],
)
def test_damaged_bytes_load_or_fail_with_a_loader_error(tmp_path: Path, suffix: str, make) -> None:
    """Bytes flipped anywhere (headers, compressed data, XML): documents or a LoaderError,
    never another exception (a late zipfile NotImplementedError once escaped)."""
    good = make(tmp_path / f"good{suffix}").read_bytes()
    rng = random.Random(7)
    for _ in range(15):
        data = bytearray(good)
        for _ in range(rng.randint(1, 20)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            load_bytes(Path(f"damaged{suffix}"), bytes(data), max_bytes=10**7)
        except LoaderError as exc:
            assert exc.path == f"damaged{suffix}"

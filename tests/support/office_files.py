"""Small DOCX, PPTX, XLSX, CSV and EPUB files built with the same libraries users' tools write
them with (python-docx, python-pptx, openpyxl; EPUB by hand with zipfile), good and broken."""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from pathlib import Path


def make_docx(path: Path) -> Path:
    import docx
    from docx.enum.style import WD_STYLE_TYPE

    d = docx.Document()
    d.core_properties.title = "Harbour Annual Report"
    d.add_paragraph("Prepared by the port authority for the board.")
    d.add_heading("Introduction", level=1)
    d.add_paragraph("The harbour handled more ships than ever before.")
    d.add_heading("Scope", level=2)
    d.add_paragraph("This report covers the calendar year 2024.")
    d.add_heading("Results", level=1)
    d.add_paragraph("Results in brief: a record year.")
    d.add_heading("Cargo by terminal", level=2)
    d.add_paragraph("Tonnage per terminal:")
    table = d.add_table(rows=3, cols=3)
    for r, row in enumerate(
        [
            ("Terminal", "Cargo", "Tonnes"),
            ("North Pier", "grain", "48210"),
            ("Kelp Dock", "timber", "9113"),
        ]
    ):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    # a custom heading style based on Heading 2 still opens a section
    custom = d.styles.add_style("Board Heading", WD_STYLE_TYPE.PARAGRAPH)
    custom.base_style = d.styles["Heading 2"]
    d.add_paragraph("Outlook", style="Board Heading")
    d.add_paragraph("Dredging of the eastern basin begins in spring.")
    d.add_heading("Results", level=1)  # a repeated heading gets a distinct unit name
    d.add_paragraph("An appendix with late figures.")
    d.save(path)
    return path


def make_pptx(path: Path) -> Path:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    deck.core_properties.title = "Quarterly Review"
    s1 = deck.slides.add_slide(deck.slide_layouts[1])
    s1.shapes.title.text = "Agenda"
    s1.placeholders[1].text = "Sales\nHiring\nRisks"
    s2 = deck.slides.add_slide(deck.slide_layouts[5])
    s2.shapes.title.text = "Sales by region"
    rows = [("Region", "Q3 revenue"), ("Nordics", "4.2 MEUR"), ("Iberia", "1.7 MEUR")]
    shape = s2.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            shape.table.cell(r, c).text = value
    s3 = deck.slides.add_slide(deck.slide_layouts[1])
    s3.shapes.title.text = "Hiring"
    s3.placeholders[1].text = "Twelve engineers joined."
    s3.notes_slide.notes_text_frame.text = "Mention the new office in Tampere."
    deck.slides.add_slide(deck.slide_layouts[6])  # a blank slide: no unit
    deck.save(path)
    return path


def make_xlsx(path: Path, rows: int = 45) -> Path:
    from openpyxl import Workbook

    book = Workbook()
    book.properties.title = "Fleet register"
    sheet = book.active
    sheet.title = "Vessels"
    sheet.append(["Vessel", "Built", "Length m", "Home port"])
    for i in range(1, rows + 1):
        sheet.append([f"Vessel {i}", dt.date(1990 + i % 30, 1 + i % 12, 1), 20.5 + i, "Bergen"])
    sheet.append([])
    sheet.append(["Sea Otter", dt.datetime(2011, 5, 4), 31, "Tromsø"])
    crew = book.create_sheet("Crew")
    crew["B3"] = "Name"
    crew["C3"] = "Role"
    crew["B4"] = "Ingrid Dahl"
    crew["C4"] = "captain"
    book.create_sheet("Empty")
    book.save(path)
    return path


def make_csv(path: Path, delimiter: str = ",") -> Path:
    rows = [("City", "Country", "Population"), ("Lyon", "France", "522969")]
    rows.append(("Porto, old town", "Portugal", "231800"))
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, delimiter=delimiter).writerows(rows)
    return path


CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf"
    media-type="application/oebps-package+xml"/></rootfiles>
</container>"""

OPF = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:uuid:1</dc:identifier><dc:title>Lighthouses of the North</dc:title>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="c1" href="text/chapter%201.xhtml" media-type="application/xhtml+xml"/>
    <item id="c2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/>
    <item id="gone" href="text/missing.xhtml" media-type="application/xhtml+xml"/>
  </manifest>
  <spine><itemref idref="c1"/><itemref idref="c2"/><itemref idref="gone"/></spine>
</package>"""

XHTML = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}</title>
<style>p {{ color: red; }}</style></head><body>{body}</body></html>"""

CHAPTERS = {
    "OEBPS/text/chapter 1.xhtml": XHTML.format(
        title="One",
        body="<h1>The First Lamp</h1><p>The first lighthouse on the coast was lit in "
        "<em>1697</em>.</p><p>It burned coal.</p>",
    ),
    "OEBPS/text/ch2.xhtml": XHTML.format(
        title="Two",
        body="<h2>Keepers</h2><p>Keepers lived on the rock.</p><table>"
        "<tr><th>Keeper</th><th>Years</th></tr><tr><td>Ole Berg</td><td>1901-1934</td></tr>"
        "</table>",
    ),
    "OEBPS/nav.xhtml": XHTML.format(title="Contents", body="<nav><ol><li>x</li></ol></nav>"),
}


def epub_bytes(extra: dict[str, str] | None = None, skip: tuple[str, ...] = ()) -> bytes:
    members = {"META-INF/container.xml": CONTAINER, "OEBPS/content.opf": OPF, **CHAPTERS}
    members.update(extra or {})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        for name, text in members.items():
            if name not in skip:
                z.writestr(name, text)
    return buf.getvalue()


def make_epub(path: Path) -> Path:
    path.write_bytes(epub_bytes())
    return path


# --------------------------------------------------------------------------- broken files

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def encrypted_office() -> bytes:
    """What Office writes for a password-protected file: an OLE file with an EncryptedPackage."""
    return OLE_MAGIC + b"\0" * 120 + "EncryptedPackage".encode("utf-16-le") + b"\0" * 400


def legacy_office() -> bytes:
    return OLE_MAGIC + b"\0" * 120 + "WordDocument".encode("utf-16-le") + b"\0" * 400


def zip_with(members: dict[str, str], encrypt_flag: bool = False) -> bytes:
    """A ZIP of `members`; `encrypt_flag` marks every member encrypted (zipfile cannot write
    encrypted members, so the flag bit is set in the local and central headers afterwards)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)
    data = bytearray(buf.getvalue())
    if encrypt_flag:
        for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
            at = data.find(signature)
            while at >= 0:
                data[at + offset] |= 0x1
                at = data.find(signature, at + 4)
    return bytes(data)

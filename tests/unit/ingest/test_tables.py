"""Tables in DOCX, PPTX and EPUB files: a row is labelled by the first row only where the file
marks that row as the header; otherwise its cells are read as they stand."""

from __future__ import annotations

from pathlib import Path

from lxml import etree
from tests.support.office_files import XHTML, epub_bytes

from crag.ingest.loaders import load_file
from crag.ingest.tables import html_table_lines, table_lines

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
KEY_VALUES = [("Owner", "Alice"), ("Due", "14 December"), ("Budget", "12,000 EUR")]


def _docx(path: Path, rows, look: dict[str, str] | None = None, *, bold=False, repeat=False):
    import docx

    d = docx.Document()
    d.add_paragraph("Project card.")
    table = d.add_table(rows=len(rows), cols=len(rows[0]))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.cell(r, c).paragraphs[0].add_run(value).bold = bold and r == 0
    tbl_look = table._tbl.find(f"{W}tblPr/{W}tblLook")
    if look is not None:
        for name in list(tbl_look.attrib):
            del tbl_look.attrib[name]
        for name, value in look.items():
            tbl_look.set(f"{W}{name}", value)
    if repeat:
        table.rows[0]._tr.get_or_add_trPr().append(etree.Element(f"{W}tblHeader"))
    d.save(path)
    return [line for doc in load_file(path).documents for line in doc.text.splitlines()]


def test_docx_table_without_a_header_row_reads_its_cells(tmp_path: Path) -> None:
    lines = _docx(tmp_path / "card.docx", KEY_VALUES, {"firstRow": "0", "val": "0000"})
    assert "Owner; Alice" in lines
    assert "Due; 14 December" in lines
    assert not any("Owner: Due" in line for line in lines)  # the old reading: wrong labels


def test_docx_header_row_by_default_by_repeat_or_in_bold(tmp_path: Path) -> None:
    rows = [("Terminal", "Tonnes"), ("North Pier", "48210")]
    # Word's and python-docx's default: the "Header Row" option on
    assert "Terminal: North Pier; Tonnes: 48210" in _docx(tmp_path / "a.docx", rows)
    # a bit mask alone (Word 2007's way) says nothing of a header: the first row stays one
    assert "Terminal: North Pier; Tonnes: 48210" in _docx(
        tmp_path / "d.docx", rows, {"val": "0600"}
    )
    off = {"firstRow": "0"}
    assert "Terminal: North Pier; Tonnes: 48210" in _docx(tmp_path / "b.docx", rows, off, bold=True)
    assert "Terminal: North Pier; Tonnes: 48210" in _docx(
        tmp_path / "c.docx", rows, off, repeat=True
    )


def test_pptx_table_without_the_header_row_option(tmp_path: Path) -> None:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Project card"
    for top, first_row in ((1, False), (4, True)):
        shape = slide.shapes.add_table(2, 2, Inches(1), Inches(top), Inches(6), Inches(1))
        shape.table.first_row = first_row
        for r, row in enumerate([("Owner", "Alice"), ("Due", "14 December")]):
            for c, value in enumerate(row):
                shape.table.cell(r, c).text = value
    deck.save(tmp_path / "card.pptx")
    lines = load_file(tmp_path / "card.pptx").documents[0].text.splitlines()
    assert lines.count("Owner; Alice") == 1 and lines.count("Due; 14 December") == 1
    assert lines.count("Owner: Due; Alice: 14 December") == 1  # the table that has a header


def _html(body: str) -> list[str]:
    table = etree.fromstring(body)
    return html_table_lines(table, lambda tag: tag if isinstance(tag, str) else "")


def test_html_header_only_where_marked() -> None:
    assert _html("<table><tr><td>Owner</td><td>Alice</td></tr><tr><td>Due</td><td>May</td></tr>"
                 "</table>") == ["Owner; Alice", "Due; May"]  # fmt: skip
    marked = [
        "<table><thead><tr><td>Name</td><td>Age</td></tr></thead><tr><td>Ann</td><td>4</td></tr>",
        "<table><tr><th>Name</th><th>Age</th></tr><tr><td>Ann</td><td>4</td></tr>",
        "<table><tr><td><b>Name</b></td><td><strong>Age</strong></td></tr><tr><td>Ann</td>"
        "<td>4</td></tr>",
    ]
    for body in marked:
        assert _html(body + "</table>") == ["Name: Ann; Age: 4"], body
    # a cell only partly bold is no header
    assert _html("<table><tr><td><b>Name</b> (given)</td></tr><tr><td>Ann</td></tr></table>") == [
        "Name (given)",
        "Ann",
    ]


def test_html_row_headers_label_their_rows() -> None:
    lines = _html("<table><tr><th>Owner</th><td>Alice</td></tr><tr><th>Due</th><td>May</td>"
                  "<td>(firm)</td></tr><tr><th>Notes</th></tr></table>")  # fmt: skip
    assert lines == ["Owner: Alice", "Due: May; (firm)", "Notes"]


def test_one_row_and_empty_rows() -> None:
    assert table_lines([["a", "b"]], header=True) == ["a; b"]
    assert table_lines([["", ""], ["x", ""], ["", "y"]], header=False) == ["x", "y"]
    assert table_lines([], header=True) == []


def test_epub_question_and_answer_table_reads_row_by_row(tmp_path: Path) -> None:
    """A DocBook FAQ as pandoc puts it in an EPUB: number and question, then the answer."""
    faq = XHTML.format(
        title="FAQ",
        body="<h1>FAQ</h1><table><tr><td>1.1.</td><td>Where does the name come from?</td></tr>"
        "<tr><td/><td>From Nordic mythology.</td></tr><tr><td>1.2.</td><td>Is it free?</td></tr>"
        "<tr><td/><td>Yes, under the GPL.</td></tr></table>",
    )
    path = tmp_path / "faq.epub"
    path.write_bytes(epub_bytes({"OEBPS/text/ch2.xhtml": faq}))
    lines = load_file(path).documents[1].text.splitlines()
    assert lines[-4:] == [
        "1.1.; Where does the name come from?",
        "From Nordic mythology.",
        "1.2.; Is it free?",
        "Yes, under the GPL.",
    ]

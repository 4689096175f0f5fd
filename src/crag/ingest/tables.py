"""A table in a Word, PowerPoint or EPUB file as lines of text, its cells labelled by a header
row only where the table has one.

The loaders used to take every table's first row for its header. Where it was not one, the
labels were wrong, which is worse than none: a Word key-value table ("Owner | Alice",
"Due | 14 December") read "Owner: Due; Alice: 14 December", and a question-and-answer table
(Valgrind's FAQ, converted to DOCX or EPUB) read "1. Background: 1.2.; column 2: Where does
the name come from?" on every row. So the first row names the columns only where the file
says it does:

- DOCX: the row repeats as a header on each page (`w:tblHeader`), or Word's "Header Row" table
  style option is not switched off (`w:tblLook firstRow="0"`; on is Word's and python-docx's
  default, so an unmarked table keeps its header, as before), or every cell of the row is set
  in bold.
- PPTX: PowerPoint's "Header Row" option (`a:tblPr firstRow`, on for a new table), or bold.
- EPUB (XHTML): the row stands in `<thead>` or is all `<th>` cells, or every cell is bold
  (`<b>`, `<strong>`). A row that starts with a `<th>` and goes on in `<td>`s labels itself
  ("Owner: Alice"), as HTML's row headers do.

Without a header, a row is its cells joined by "; ". Spreadsheets and CSV files are not read
here: their first row is a header by convention (`crag.ingest.sheets`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from crag.ingest.package import header_names, row_line

__all__ = ["docx_has_header", "html_table_lines", "pptx_has_header", "table_lines"]

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_OFF = {"0", "false", "off"}
_BOLD = {"b", "strong"}


def table_lines(rows: Sequence[Sequence[str]], *, header: bool) -> list[str]:
    """A line per row: "column: value; ..." under a header row, else the cells joined by "; "
    (a one-row table has nothing for a header to label)."""
    rows = [r for r in rows if any(c.strip() for c in r)]
    if header and len(rows) > 1:
        names = header_names(rows[0])
        return [line for r in rows[1:] if (line := row_line(names, r))]
    return [_plain(r) for r in rows]


def _plain(cells: Sequence[str]) -> str:
    return "; ".join(c for c in cells if c.strip())


# --------------------------------------------------------------------------- DOCX


def docx_has_header(table: Any) -> bool:
    """Whether a python-docx table's first row is its header (see the module docstring)."""
    tbl = table._tbl
    first = tbl.find(f"{_W}tr")
    if first is None:
        return False
    repeat = first.find(f"{_W}trPr/{_W}tblHeader")
    if repeat is not None and repeat.get(f"{_W}val", "1").lower() not in _OFF:
        return True
    if not _header_option_off(tbl.find(f"{_W}tblPr/{_W}tblLook")):
        return True
    return _all_bold(_runs(first, _W, blanks=False), _docx_bold)


def _header_option_off(look: Any) -> bool:
    """Whether `w:tblLook` switches the header row off: `firstRow="0"`, as Word 2010 and later,
    LibreOffice and pandoc write it. The bit mask alone (`w:val`, all Word 2007 wrote) is not
    read as a header's absence: writers also set it on tables that have no style to format a
    header row, whose first row is a header as often as not; such a table reads as before."""
    if look is None:
        return False
    first = look.get(f"{_W}firstRow")
    return first is not None and first.lower() in _OFF


def _runs(row: Any, ns: str, *, blanks: bool) -> list[Any]:
    """The runs of a DOCX (`w:`) or DrawingML (`a:`) table row that hold text; `blanks`: a
    run of spaces only counts too (as PPTX's check always read it)."""
    out = []
    for run in row.iter(f"{ns}r"):
        text = "".join(t.text or "" for t in run.iter(f"{ns}t"))
        if text if blanks else text.strip():
            out.append(run)
    return out


def _all_bold(runs: list[Any], bold: Callable[[Any], bool]) -> bool:
    """Whether there are runs and every one is bold by `bold(run)` (directly, not through a
    style)."""
    return bool(runs) and all(bold(run) for run in runs)


def _docx_bold(run: Any) -> bool:
    b = run.find(f"{_W}rPr/{_W}b")
    return b is not None and b.get(f"{_W}val", "1").lower() not in _OFF


# --------------------------------------------------------------------------- PPTX


def _pptx_bold(run: Any) -> bool:
    props = run.find(f"{_A}rPr")
    return props is not None and props.get("b") in ("1", "true")


def pptx_has_header(table: Any) -> bool:
    """Whether a python-pptx table's first row is its header: the "Header Row" option, or a
    first row in bold."""
    if table.first_row:
        return True
    first = table._tbl.find(f"{_A}tr")
    if first is None:
        return False
    return _all_bold(_runs(first, _A, blanks=True), _pptx_bold)


# --------------------------------------------------------------------------- XHTML


def html_table_lines(table: Any, local: Any) -> list[str]:
    """Lines of an lxml (X)HTML `<table>`; `local(tag)` gives an element's name without its
    namespace. Rows of nested tables are read where they stand, as the loaders did."""
    rows = [tr for tr in table.iter() if local(tr.tag) == "tr"]
    cells = [[c for c in tr if local(c.tag) in ("td", "th")] for tr in rows]
    texts = [[_html_text(c) for c in row] for row in cells]
    keep = [i for i, row in enumerate(texts) if any(row)]
    if not keep:
        return []
    first = keep[0]
    if len(keep) > 1 and _html_header(rows[first], cells[first], texts[first], local):
        return table_lines([texts[i] for i in keep], header=True)
    lines = []
    for i in keep:
        kinds = [local(c.tag) for c in cells[i]]
        rest = [t for t in texts[i][1:] if t]
        if kinds[0] == "th" and "td" in kinds[1:] and texts[i][0] and rest:
            lines.append(f"{texts[i][0]}: {'; '.join(rest)}")  # a row header labels its row
        else:
            lines.append(_plain(texts[i]))
    return lines


def _html_text(cell: Any) -> str:
    return " ".join("".join(cell.itertext()).split())


def _html_header(row: Any, cells: list[Any], texts: list[str], local: Any) -> bool:
    """Whether a row (its `cells` and their `texts`) is the table's header."""
    parent = row.getparent()
    if parent is not None and local(parent.tag) == "thead":
        return True
    filled = [(c, t) for c, t in zip(cells, texts, strict=True) if t]
    if filled and all(local(c.tag) == "th" for c, _ in filled):
        return True
    return bool(filled) and all(_html_bold(c, t, local) for c, t in filled)


def _html_bold(cell: Any, text: str, local: Any) -> bool:
    """Whether all of a cell's `text` stands inside `<b>` or `<strong>`."""
    bold = []
    for e in cell.iter():
        if local(e.tag) in _BOLD and not any(local(a.tag) in _BOLD for a in e.iterancestors()):
            bold.append("".join(e.itertext()))
    return " ".join("".join(bold).split()) == text

"""Real PDF files for loader tests: pages of text lines (Helvetica, one line after the other,
as a typesetter lays out a page) and an outline (bookmarks) written by pypdf."""

from __future__ import annotations

import io
from collections.abc import Sequence


def _escape(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


Line = str | tuple[str, float] | list[tuple[str, float]]


def _shown(line: Line) -> str:
    """One line of a page: its text at 11 pt, or at the size given with it, or runs of text
    at their sizes one after the other (a footnote's mark set small after a word)."""
    if isinstance(line, list):
        return " ".join(f"/F1 {size:g} Tf ({_escape(text)}) Tj" for text, size in line)
    text, size = (line, 11.0) if isinstance(line, str) else line
    return f"/F1 {size:g} Tf ({_escape(text)}) Tj"


def pdf_pages(
    pages: Sequence[Sequence[Line]],
    outline: Sequence[tuple[int, str, int]] = (),
    title: str | None = None,
) -> bytes:
    """A PDF whose page i shows the lines `pages[i]` top to bottom (a line is its text at
    11 pt, a (text, size) pair, or a list of such runs); `outline` holds
    (level, title, page index) entries in order, level 1 at the top (a level-2 entry nests
    under the last level-1 one)."""
    from pypdf import PdfReader, PdfWriter

    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    font = 3 + 2 * len(pages)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode(),
    ]
    for i, lines in enumerate(pages):
        shown = " T* ".join(_shown(line) for line in lines)
        stream = f"BT 14 TL 72 740 Td {shown} ET".encode("latin-1")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1)
    out += b"startxref\n%d\n%%%%EOF\n" % xref_at
    if not outline and title is None:
        return bytes(out)
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(bytes(out))))
    parents: dict[int, object] = {}
    for level, name, page in outline:
        parent = parents.get(level - 1) if level > 1 else None
        parents[level] = writer.add_outline_item(title=name, page_number=page, parent=parent)  # type: ignore[arg-type]
    if title is not None:
        writer.add_metadata({"/Title": title})
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()

"""Word (DOCX) and PowerPoint (PPTX) loaders: one citable unit per heading section / per slide.

Libraries: python-docx and python-pptx. Both are small, pure Python and depend on lxml (already
here through trafilatura); they resolve what a hand-written zipfile + XML reader would get wrong:
heading styles by name and by inheritance (a custom style based on "Heading 2"), paragraphs and
tables in document order, merged table cells, group shapes, tables on slides and speaker notes.
markitdown was not chosen: it pulls in a converter per format (and more) only to flatten the
structure (slide numbers, heading levels) that citations need here.

- DOCX: a unit per heading section, `doc_id` = the heading path ("Results › Revenue"); text
  before the first heading is the unit "(start)". Tables become one line per row, with its
  header where the table has one: "Region: North; Revenue: 1200" (`crag.ingest.tables`).
- PPTX: a unit per slide, `doc_id` = "slide N: title"; shapes in reading order (top, then
  left), tables as above, speaker notes after "Notes:".
"""

from __future__ import annotations

import io
from typing import Any

from crag.errors import LoaderError
from crag.ingest.doc_names import name_title
from crag.ingest.package import open_package
from crag.ingest.tables import docx_has_header, pptx_has_header, table_lines
from crag.titles import shorten
from crag.types import Document

__all__ = ["load_docx", "load_pptx"]

_TITLE_MAX = 80


def _short(text: str) -> str:
    return shorten(" ".join(text.split()), _TITLE_MAX)


def _core_title(package: Any) -> str:
    """The document title from its core properties; "" when absent or unreadable."""
    try:
        return (package.core_properties.title or "").strip()
    except Exception:  # a damaged docProps/core.xml must not cost the whole file
        return ""


def _unique(doc_id: str, seen: dict[str, int]) -> str:
    """`doc_id`, or `doc_id (2)`, ... when an earlier unit of the file has the same name."""
    seen[doc_id] = seen.get(doc_id, 0) + 1
    return doc_id if seen[doc_id] == 1 else f"{doc_id} ({seen[doc_id]})"


# --------------------------------------------------------------------------- DOCX


def _heading_level(style: Any) -> int | None:
    """1 for "Title"/"Heading 1", N for "Heading N", following `base_style` (custom styles)."""
    depth = 0
    while style is not None and depth < 10:
        name = (style.name or "").strip().lower()
        if name == "title":
            return 1
        if name.startswith("heading"):
            rest = name[len("heading") :].strip()
            return int(rest) if rest.isdigit() else 1
        style = style.base_style
        depth += 1
    return None


def _docx_rows(table: Any) -> list[list[str]]:
    rows = []
    for row in table.rows:
        cells, last = [], None
        for cell in row.cells:
            if cell._tc is last:  # a merged cell is returned once per grid column it spans
                continue
            last = cell._tc
            cells.append(" ".join(cell.text.split()))
        rows.append(cells)
    return rows


def load_docx(path: str, data: bytes, limit: int | None = None) -> tuple[list[Document], list[str]]:
    import docx
    from docx.table import Table

    open_package(path, data, "DOCX", limit)
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises KeyError, ValueError, lxml errors, ...
        raise LoaderError(path, f"not a readable DOCX file: {type(exc).__name__}: {exc}") from exc
    title = _core_title(document) or name_title(path)
    sections: list[tuple[list[str], list[str]]] = [([], [])]  # (heading path, lines)
    stack: list[tuple[int, str]] = []
    try:
        for block in document.iter_inner_content():
            if isinstance(block, Table):
                sections[-1][1].extend(
                    table_lines(_docx_rows(block), header=docx_has_header(block))
                )
                continue
            text = block.text.strip()
            if not text:
                continue
            level = _heading_level(block.style)
            if level is None:
                sections[-1][1].append(text)
                continue
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, _short(text)))
            sections.append(([h for _, h in stack], []))
    except Exception as exc:
        raise LoaderError(path, f"corrupt DOCX body: {type(exc).__name__}: {exc}") from exc
    docs: list[Document] = []
    seen: dict[str, int] = {}
    for number, (headings, lines) in enumerate(sections):
        if not lines:
            continue  # a heading directly followed by a subheading: the subsection names it
        heading = " › ".join(headings) or "(start)"
        body = "\n".join([heading, *lines]) if headings else "\n".join(lines)
        docs.append(
            Document(
                source=path,
                doc_id=_unique(heading, seen),
                text=body,
                title=title,
                # the heading path is read with the section's chunks (crag.titles); the
                # text before the first heading has none
                metadata={"section": number, **({"heading": heading} if headings else {})},
            )
        )
    if not docs:
        raise LoaderError(path, "DOCX holds no text")
    return docs, []


# --------------------------------------------------------------------------- PPTX


def _shape_lines(shape: Any) -> list[str]:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
        return [line for s in _reading_order(shape.shapes) for line in _shape_lines(s)]
    if getattr(shape, "has_table", False) and shape.has_table:
        rows = [[" ".join(c.text.split()) for c in r.cells] for r in shape.table.rows]
        return table_lines(rows, header=pptx_has_header(shape.table))
    if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
        return [p for p in (" ".join(par.text.split()) for par in shape.text_frame.paragraphs) if p]
    return []


def _reading_order(shapes: Any) -> list[Any]:
    return sorted(shapes, key=lambda s: (s.top or 0, s.left or 0))


def load_pptx(path: str, data: bytes, limit: int | None = None) -> tuple[list[Document], list[str]]:
    from pptx import Presentation

    open_package(path, data, "PPTX", limit)
    try:
        deck = Presentation(io.BytesIO(data))
    except Exception as exc:
        raise LoaderError(path, f"not a readable PPTX file: {type(exc).__name__}: {exc}") from exc
    title = _core_title(deck) or name_title(path)
    docs: list[Document] = []
    warnings: list[str] = []
    for number, slide in enumerate(deck.slides, start=1):
        try:
            heading_shape = slide.shapes.title
            heading = " ".join(heading_shape.text.split()) if heading_shape is not None else ""
            lines: list[str] = []
            if heading:
                lines.append(heading)
            for shape in _reading_order(slide.shapes):
                if heading_shape is not None and shape.shape_id == heading_shape.shape_id:
                    continue
                lines.extend(_shape_lines(shape))
            if slide.has_notes_slide:
                notes = slide.notes_slide.notes_text_frame
                if notes is not None and notes.text.strip():
                    lines.append("Notes: " + notes.text.strip())
        except Exception as exc:
            warnings.append(f"{path}: slide {number} unreadable ({exc}); skipped")
            continue
        if not lines:
            continue
        doc_id = f"slide {number}: {_short(heading)}" if heading else f"slide {number}"
        meta: dict[str, Any] = {"slide": number}
        if slide._element.get("show") == "0":
            meta["hidden"] = True
        docs.append(
            Document(source=path, doc_id=doc_id, text="\n".join(lines), title=title, metadata=meta)
        )
    if not docs:
        raise LoaderError(path, "PPTX holds no text on any slide")
    return docs, warnings

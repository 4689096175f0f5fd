"""PDF loader: one Document per page, without the page furniture, with the outline's sections.

Why each part:
- One Document per page, so a citation can name the page.
- Running heads and page numbers are removed. pypdf returns them as text: every page of the
  Shared MIME-info spec began "Shared MIME-info Database" and ended with its number, so a
  chunk opening a page read "Shared MIME-info Database The file starts with…", and the
  reader quoted it back; a manual's "Chapter 2: ASN.1 structure handling 3" likewise. A line
  is furniture when it stands within the first or last two lines of a page, is short (a name
  and a number, ≤ 100 characters), and the same line, its digits aside, stands at that edge
  of at least three pages (or of two, its number changed: a running head with the page
  number in it). What pdfplumber-based pipelines and unstructured call header/footer
  removal, done here on pypdf's text.
- Line wraps are undone (`crag.ingest.pdf_lines`): a PDF breaks every line, and the
  splitter cuts at line breaks before it cuts at sentence ends, so chunks ended mid sentence.
- The outline (bookmarks) gives each page the sections it holds, as Markdown headings do
  (`crag.headings`): a PDF's text carries no heading markup, but most manuals and papers made
  by a typesetter carry an outline, each entry pointing at its page. Each entry is found in
  its page's text (its words in order, at a line start if possible) so a chunk knows the
  section it starts in; the sections open at a page's start are carried over from the pages
  before. An outline that cannot be read costs its sections (a warning), never the text. A
  PDF without one gets its sections from the type size of its headings
  (`crag.ingest.pdf_fonts`).
"""

from __future__ import annotations

import io
import re
from collections import Counter
from typing import Any

from crag.errors import LoaderError
from crag.headings import MAX_HEADING
from crag.ingest.doc_names import name_title
from crag.ingest.pdf_flow import accented, carry_sentences, footnotes
from crag.ingest.pdf_fonts import Runs, body_size, headings_by_size
from crag.ingest.pdf_lines import WRAPPED, measure, unwrap
from crag.ingest.pdf_log import pypdf_notes
from crag.titles import shorten
from crag.types import Document, Heading

__all__ = ["furniture", "load_pdf"]

EDGE_LINES = 2  # lines at the top and at the bottom of a page that may be furniture
MAX_FURNITURE = 100  # characters: a running head is a name and a number, not a line of text
MAX_OUTLINE = 5_000  # outline entries read: a table of contents, not a concordance
_DIGITS = re.compile(r"\d+")
_ROMAN = re.compile(r"^[ivxlcdm]{1,6}$")
_NUMBER = r"(?:\d+|[A-Z])(?:\.\d+)*\.?"  # a section number: "3", "3.3.", "A.1"


def _key(line: str) -> str:
    """A line as furniture is compared: digits (page numbers) and a roman page number
    folded, case and spacing ignored."""
    text = " ".join(line.split()).casefold()
    return "#" if _ROMAN.match(text) else _DIGITS.sub("#", text)


def _edges(lines: list[str]) -> tuple[list[int], list[int]]:
    """Indexes of the first and of the last EDGE_LINES non-blank lines of a page."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    return filled[:EDGE_LINES], filled[::-1][:EDGE_LINES]


def furniture(pages: list[str]) -> list[str]:
    """`pages` without their running heads and page numbers (see the module docstring); a
    document of fewer than three pages is returned as it is."""
    if len(pages) < 3:
        return pages
    split = [page.splitlines() for page in pages]
    seen: dict[str, Counter[str]] = {"top": Counter(), "bottom": Counter()}
    raw: dict[tuple[str, str], set[str]] = {}
    for lines in split:
        top, bottom = _edges(lines)
        for edge, indexes in (("top", top), ("bottom", bottom)):
            for key in {_key(lines[i]) for i in indexes}:
                seen[edge][key] += 1
            for i in indexes:
                raw.setdefault((edge, _key(lines[i])), set()).add(lines[i].strip())

    def repeated(edge: str, line: str) -> bool:
        if len(line.strip()) > MAX_FURNITURE:
            return False
        key = _key(line)
        count = seen[edge][key]
        return bool(key) and (count >= 3 or (count == 2 and len(raw[(edge, key)]) == 2))

    out: list[str] = []
    for lines in split:
        drop: set[int] = set()
        top, bottom = _edges(lines)
        for edge, indexes in (("top", top), ("bottom", bottom)):
            for i in indexes:  # from the edge inwards, while the lines are furniture
                if not repeated(edge, lines[i]):
                    break
                drop.add(i)
        out.append("\n".join(line for i, line in enumerate(lines) if i not in drop))
    return out


def _outline(reader: Any) -> list[tuple[int, int, str]]:
    """(page index, level, title) of the outline's entries in reading order."""
    entries: list[tuple[int, int, str]] = []

    def walk(items: Any, level: int) -> None:
        for item in items:
            if len(entries) >= MAX_OUTLINE:
                return
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            title = shorten(" ".join(str(getattr(item, "title", "") or "").split()), MAX_HEADING)
            page = reader.get_destination_page_number(item)
            if title and page is not None and page >= 0:
                entries.append((page, level, title))

    walk(reader.outline, 1)
    return entries


def _find(title: str, text: str, start: int) -> int:
    """Where `title` stands in a page's text from `start` on: its words in order at a line
    start (after a section number the outline may leave out: "3.3 Invoking asn1Decoding"),
    else anywhere; -1 when it is not there."""
    words = [re.escape(w) for w in title.split()]
    if not words:
        return -1
    pattern = r"\s+".join(words)
    for regex in (rf"(?im)^[ \t]*(?:{_NUMBER}[ \t]+)?{pattern}", rf"(?i){pattern}"):
        if m := re.compile(regex).search(text, start):
            return m.start()
    return -1


def _placed(
    entries: list[tuple[int, int, str]], texts: dict[int, str]
) -> dict[int, tuple[Heading, ...]]:
    """The headings of each page: the sections open at its start (offset -1), then its own
    entries where they stand in its text; one not found stands where the entry before it on
    the page does, or opens with the page (-1) when it is the first."""
    by_page: dict[int, list[tuple[int, str]]] = {}
    for page, level, title in entries:
        by_page.setdefault(page, []).append((level, title))
    out: dict[int, tuple[Heading, ...]] = {}
    open_: list[Heading] = []  # the sections open where the last page ended
    for page in sorted(set(texts) | set(by_page)):
        marks = [Heading(-1, h.level, h.text) for h in open_]
        at = -1
        for level, title in by_page.get(page, []):
            found = _find(title, texts.get(page, ""), max(at, 0))
            at = found if found >= 0 else at
            marks.append(Heading(at, level, title))
            open_ = [h for h in open_ if h.level < level] + [Heading(at, level, title)]
        out[page] = tuple(marks)
    return out


def _last_line(text: str) -> str:
    """The last line of `text` that is not blank, stripped ("" if none)."""
    return next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "")


def _flowed(texts: dict[int, str], runs: list[tuple[int, float, str]]) -> dict[int, str]:
    """Each page's text as it reads: furniture removed, its footnotes set apart after a blank
    line, line wraps undone, a sentence cut by a page break whole on the page it starts on,
    accents on their letters (`crag.ingest.pdf_flow`)."""
    order = sorted(texts)
    pages = furniture([texts[i] for i in order])
    on_page: dict[int, list[tuple[int, float, str]]] = {}
    for run in runs:
        on_page.setdefault(run[0], []).append(run)
    body = body_size(runs)
    split = [footnotes(p, on_page.get(i, []), body) for i, p in zip(order, pages, strict=True)]
    width = measure(pages)
    bodies = [accented(unwrap(text, width)) for text, _ in split]
    full = [len(_last_line(text)) >= WRAPPED * width for text, _ in split]
    for start in range(len(order)):  # runs of consecutive pages (an unreadable one breaks it)
        if start == 0 or order[start] != order[start - 1] + 1:
            end = start + 1
            while end < len(order) and order[end] == order[end - 1] + 1:
                end += 1
            bodies[start:end] = carry_sentences(bodies[start:end], full[start:end])
    return {
        i: f"{text}\n\n{accented(unwrap(notes, width))}" if notes else text
        for i, text, (_, notes) in zip(order, bodies, split, strict=True)
    }


def load_pdf(path: str, data: bytes) -> tuple[list[Document], list[str]]:
    """One Document per page with text: furniture removed, outline sections as `headings`."""
    from pypdf import PdfReader

    warnings: list[str] = []
    with pypdf_notes() as notes:
        try:
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted:
                try:
                    if not reader.decrypt(""):
                        raise LoaderError(path, "encrypted PDF (a password is needed)")
                except LoaderError:
                    raise
                except Exception as exc:
                    raise LoaderError(path, f"encrypted PDF cannot be opened: {exc}") from exc
            has_title = bool(reader.metadata and reader.metadata.title)
            meta_title = (reader.metadata.title if reader.metadata else None) or name_title(path)
            try:
                entries = _outline(reader)
            except Exception as exc:  # a damaged outline costs the sections, not the pages
                warnings.append(f"{path}: outline unreadable ({type(exc).__name__}); no sections")
                entries = []
            runs = Runs()  # sizes tell footnotes, and headings where there is no outline
            texts: dict[int, str] = {}
            for index, page in enumerate(reader.pages):
                try:
                    texts[index] = page.extract_text(visitor_text=runs.visitor(index)) or ""
                except Exception as exc:
                    warnings.append(f"{path}: page {index + 1} unreadable ({exc}); skipped")
        except LoaderError:
            raise
        except Exception as exc:  # pypdf raises PyPdfError, AttributeError, RecursionError, ...
            told = f" (pypdf: {'; '.join(notes)})" if notes else ""
            raise LoaderError(path, f"corrupt PDF: {type(exc).__name__}: {exc}{told}") from exc
    warnings.extend(f"{path}: pypdf: {note}" for note in notes)
    texts = _flowed(texts, runs.runs)
    if not entries:
        sized = headings_by_size([r for r in runs.runs if r[0] in texts])
        entries = [(page, level, accented(text)) for page, level, text in sized]
        first = min(texts, default=0)
        if not has_title and (top := [t for p, lv, t in entries if p == first and lv == 1]):
            meta_title = top[0]  # the largest heading of the first page names the document
    headings = _placed(entries, texts) if entries else {}
    docs = [
        Document(
            source=path,
            doc_id=f"page {index + 1}",
            text=text,
            title=str(meta_title),
            metadata={"page": index + 1},
            headings=headings.get(index, ()),
        )
        for index, text in texts.items()
        if text.strip()
    ]
    if not docs:
        raise LoaderError(path, "PDF has no extractable text (scanned? OCR is not supported)")
    return docs, warnings

"""Spreadsheet loaders (XLSX, CSV/TSV): tables as readable text, cited by sheet and row range.

Each data row is one line with its header: "Region: North; Quarter: Q3; Revenue: 1200", so a
chunk holding a row also holds what its numbers mean. Rows are grouped `ROWS_PER_UNIT` to a
unit named by where they are: "Sales rows 2-41" (XLSX: sheet name and sheet row numbers) or
"rows 2-41" (CSV: record numbers, the header being row 1). The first non-empty row of a sheet
is its header.

Libraries: openpyxl (pure Python, one small dependency) in read-only mode, which streams rows
instead of building the whole workbook; formulas are read as the values Excel last computed
(a workbook never opened in Excel has none: such cells are empty). CSV uses the stdlib `csv`
with the delimiter sniffed from the first lines (comma when unsure; tab for `.tsv`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from crag.errors import LoaderError
from crag.ingest.doc_names import name_title
from crag.ingest.package import cell_text, header_names, open_package, row_line
from crag.types import Document

__all__ = ["ROWS_PER_UNIT", "load_csv", "load_tsv", "load_xlsx"]

ROWS_PER_UNIT = 40


def _units(
    path: str,
    title: str,
    rows: Iterable[tuple[int, Sequence[Any]]],
    name: str,
    meta: dict[str, Any],
) -> list[Document]:
    """Documents of up to `ROWS_PER_UNIT` data rows each; the first non-empty row is the header."""
    header: list[str] | None = None
    header_line = ""
    docs: list[Document] = []
    batch: list[tuple[int, str]] = []

    def flush() -> None:
        if not batch:
            return
        first, last = batch[0][0], batch[-1][0]
        span = f"rows {first}-{last}" if first != last else f"row {first}"
        where = f"{name} {span}".strip()
        text = "\n".join([f"{where} ({header_line})", *(line for _, line in batch)])
        docs.append(
            Document(
                source=path,
                doc_id=where,
                text=text,
                title=title,
                metadata={**meta, "first_row": first, "last_row": last},
            )
        )
        batch.clear()

    for number, values in rows:
        if header is None:
            if any(cell_text(v) for v in values):
                cells = _trim(values)
                header = header_names(cells)
                named = [n for n, v in zip(header, cells, strict=True) if cell_text(v)]
                header_line = "columns: " + ", ".join(named)
            continue
        line = row_line(header, values)
        if line:
            batch.append((number, line))
            if len(batch) >= ROWS_PER_UNIT:
                flush()
    flush()
    if header is not None and not docs:  # a header and nothing under it: still citable
        docs.append(
            Document(
                source=path,
                doc_id=f"{name} header".strip(),
                text=header_line,
                title=title,
                metadata=dict(meta),
            )
        )
    return docs


def _trim(values: Sequence[Any]) -> list[Any]:
    values = list(values)
    while values and not cell_text(values[-1]):
        values.pop()
    return values


def load_xlsx(path: str, data: bytes, limit: int | None = None) -> tuple[list[Document], list[str]]:
    from openpyxl import load_workbook

    open_package(path, data, "XLSX", limit)
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises KeyError, InvalidFileException, lxml errors, ...
        raise LoaderError(path, f"not a readable XLSX file: {type(exc).__name__}: {exc}") from exc
    try:
        title = (book.properties.title or "").strip() if book.properties else ""
    except Exception:  # a damaged docProps/core.xml must not cost the whole file
        title = ""
    title = title or name_title(path)
    docs: list[Document] = []
    warnings: list[str] = []
    try:
        for sheet in book.worksheets:
            try:
                rows = enumerate(sheet.iter_rows(min_row=1, values_only=True), start=1)
                found = _units(path, title, rows, sheet.title, {"sheet": sheet.title})
            except Exception as exc:
                warnings.append(f"{path}: sheet {sheet.title!r} unreadable ({exc}); skipped")
                continue
            docs.extend(found)
    finally:
        book.close()
    if not docs:
        raise LoaderError(path, "XLSX holds no cell with a value")
    return docs, warnings


def _read_csv(path: str, text: str, delimiter: str | None) -> tuple[list[Document], list[str]]:
    if not text.strip():
        raise LoaderError(path, "no text")
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|").delimiter
        except csv.Error:
            delimiter = ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)

    def records() -> Iterable[tuple[int, list[str]]]:
        number = 0
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise LoaderError(path, f"malformed CSV at line {reader.line_num}: {exc}") from exc
            number += 1
            yield number, row

    docs = _units(path, name_title(path), records(), "", {})
    if not docs:
        raise LoaderError(path, "CSV holds no row with a value")
    return docs, []


def load_csv(path: str, text: str) -> tuple[list[Document], list[str]]:
    return _read_csv(path, text, "\t" if Path(path).suffix.lower() == ".tsv" else None)


def load_tsv(path: str, text: str) -> tuple[list[Document], list[str]]:
    return _read_csv(path, text, "\t")

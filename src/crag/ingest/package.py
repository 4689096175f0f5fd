"""What the ZIP-based formats (DOCX, PPTX, XLSX, EPUB) share: opening the package safely, and
writing a table row as text a reader (and a retriever) can follow.

`open_package` refuses, naming the file, before any parser sees it:
- an Office file saved with a password: it is not a ZIP at all but an OLE compound file holding
  an `EncryptedPackage` stream (and a legacy binary .doc/.xls/.ppt renamed to the new suffix is
  an OLE file too, told apart by that stream);
- a ZIP whose members are encrypted, or that is not a ZIP (truncated, wrong content);
- a package whose members declare more than `limit` bytes in all (a "zip bomb"): `zipfile`
  never inflates a member past its declared size, so the declared sum bounds the work.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from collections.abc import Sequence
from typing import Any

from crag.errors import LoaderError

__all__ = ["cell_text", "header_names", "open_package", "row_line"]

_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_LEGACY = {"DOCX": ".doc", "PPTX": ".ppt", "XLSX": ".xls", "EPUB": ""}


def open_package(path: str, data: bytes, kind: str, limit: int | None = None) -> zipfile.ZipFile:
    """The ZIP package of a `kind` ("DOCX", "PPTX", "XLSX", "EPUB") file, or a `LoaderError`."""
    if data.startswith(_OLE):
        if "EncryptedPackage".encode("utf-16-le") in data:
            raise LoaderError(
                path, f"password-protected (encrypted) {kind} file; save a copy without a password"
            )
        legacy = _LEGACY.get(kind) or "binary"
        raise LoaderError(
            path,
            f"a legacy binary Office file ({legacy}), not {kind}; save it as {kind} and retry",
        )
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
        infos = package.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
        raise LoaderError(path, f"not a {kind} file (corrupt or not a ZIP package: {exc})") from exc
    if any(info.flag_bits & 0x1 for info in infos):
        raise LoaderError(path, f"encrypted ZIP: {kind} members are password-protected")
    declared = sum(info.file_size for info in infos)
    if limit is not None and declared > limit:
        raise LoaderError(
            path,
            f"{kind} package unpacks to {declared / 1e6:.1f} MB, above "
            f"ingest.max_file_mb={limit / 1e6:g}",
        )
    return package


def cell_text(value: Any) -> str:
    """One cell as text: integral floats without `.0`, dates without a midnight time."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, dt.datetime):
        if (value.hour, value.minute, value.second, value.microsecond) == (0, 0, 0, 0):
            return value.date().isoformat()
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return " ".join(str(value).split())


def header_names(cells: Sequence[Any]) -> list[str]:
    """Column names from a header row; a blank or repeated name becomes `column N`."""
    names: list[str] = []
    seen: set[str] = set()
    for i, cell in enumerate(cells, start=1):
        name = cell_text(cell)
        if not name or name in seen:
            name = f"column {i}"
        seen.add(name)
        names.append(name)
    return names


def row_line(header: Sequence[str], values: Sequence[Any]) -> str:
    """`col: value; col: value` for the non-empty cells of a row (`column N` past the header)."""
    parts = []
    for i, value in enumerate(values):
        text = cell_text(value)
        if text:
            name = header[i] if i < len(header) else f"column {i + 1}"
            parts.append(f"{name}: {text}")
    return "; ".join(parts)

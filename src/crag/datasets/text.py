"""Read a data file as text: `.gz` through gzip, UTF-8 (a BOM allowed), errors that name it."""

from __future__ import annotations

import gzip
from pathlib import Path

from crag.errors import LoaderError

__all__ = ["read_text", "write_if_changed"]


def read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LoaderError(str(path), f"cannot read: {exc.strerror or exc}") from exc
    if path.suffix.lower() == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise LoaderError(str(path), f"not a valid gzip file ({exc})") from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoaderError(str(path), f"not UTF-8 text (byte {exc.start})") from exc


def write_if_changed(target: Path, body: str) -> None:
    """Write `body` to `target` atomically, and only when it differs: an unchanged derived
    knowledge-base file keeps its bytes, so re-ingesting it is a no-op."""
    if target.is_file() and target.read_text(encoding="utf-8") == body:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.write_text(body, encoding="utf-8")
    tmp.replace(target)

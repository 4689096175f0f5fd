"""Uploaded files: a safe source name from the client's file name, and a spool file whose name
the server chooses.

The client's file name is never used as a path. Only its last component survives (after both
`/` and `\\`), with control characters and leading dots removed; it becomes the *source name*
the document is indexed, listed and cited under (re-uploading the same name replaces it, as
re-ingesting a changed file does). The bytes go to `<data_dir>/uploads/<collection>/<random
hex><suffix>`, a name no client input reaches.
"""

from __future__ import annotations

import codecs
import os
import secrets
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from crag.errors import CragError, LoaderError
from crag.ingest.compressed import InflatedTooLarge, compression_of, inflate_file
from crag.ingest.info import without_index_marks
from crag.ingest.loaders import LOADERS, format_of, is_supported, supported_suffixes

__all__ = [
    "TooLarge",
    "UnsupportedUpload",
    "check_gzip",
    "check_upload",
    "source_name",
    "spool_path",
]

MAX_NAME = 200


class UnsupportedUpload(CragError):
    """The file type has no loader (415)."""


class TooLarge(CragError):
    """An upload (or what it decompresses to) is over the configured limit (413)."""


def source_name(filename: str | None, fallback: str = "upload.txt") -> str:
    """The name an uploaded file is indexed under: a bare, printable file name."""
    name = (filename or "").replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C")
    name = name.strip().lstrip(".").strip()
    if len(name) > MAX_NAME:
        stem, dot, ext = name.rpartition(".")
        name = (stem[: MAX_NAME - len(ext) - 1] + dot + ext) if dot else name[:MAX_NAME]
    return name or fallback


def check_supported(name: str) -> None:
    if not is_supported(Path(name)):
        raise UnsupportedUpload(
            f"{name!r}: unsupported file type; supported: "
            + ", ".join(sorted(supported_suffixes()))
            + ", and plain text named README, FAQ, NEWS, copyright …"
            + " (optionally compressed: .gz, .bz2, .xz)"
        )


def spool_path(folder: Path, name: str) -> Path:
    """A fresh file under `folder` named by the server: random hex + the name's suffixes."""
    folder.mkdir(parents=True, exist_ok=True)
    suffixes = "".join(s.lower() for s in Path(name).suffixes[-2:])
    safe = "".join(ch for ch in suffixes if ch.isalnum() or ch == ".")
    path = folder / f"{secrets.token_hex(16)}{safe}"
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)  # never an existing file
    os.close(fd)
    return path


def _blocks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as fh:
        while block := fh.read(1 << 16):
            yield block


HEAD = 1 << 16  # what the text and PDF checks look at


def check_upload(
    path: Path,
    name: str,
    limit_bytes: int,
    *,
    detect_encoding: bool = True,
    encoding: str | None = None,
) -> None:
    """Refuse, at the door, what the bytes already show the job would fail on.

    Reads the spooled file once in bounded steps, inflating every member of a `.gz`, `.bz2`
    or `.xz` as it goes (a bomb is `TooLarge` as soon as its output passes `limit_bytes`,
    whatever member it hides in), and refuses with a reason (`CragError`, 400) a file that is
    empty or blank, a truncated or corrupt archive, binary data named as a text format, and a
    `.pdf` without a PDF header (other binary formats are left to their loader). Parsing
    itself stays in the job. With a forced `encoding` (ingest.encoding) only the size, archive
    and blank checks apply.
    """
    fmt = compression_of(name)
    blocks = inflate_file(path, name, fmt, limit_bytes) if fmt else _blocks(path)
    head = bytearray()
    blank = True
    total = 0
    try:
        for block in blocks:
            total += len(block)
            if len(head) < HEAD:
                head += block[: HEAD - len(head)]
            if blank and block.strip():
                blank = False
    except InflatedTooLarge as exc:
        raise TooLarge(f"{name!r} {exc.reason}") from None
    except LoaderError as exc:
        raise CragError(f"{name!r}: {exc.reason}") from None
    if blank:
        raise CragError(f"{name!r}: empty file (no text to index)")
    data = bytes(head)
    suffix = format_of(name)  # a man page, an Info file and a README are text
    if suffix == ".info":  # but for an Info file's index marks
        data = without_index_marks(data)
    if suffix == ".pdf":
        if b"%PDF-" not in data[:1024]:
            raise CragError(f"{name!r}: not a PDF (no %PDF- header)")
        return
    if suffix not in LOADERS:  # other binary formats (Office, EPUB): their loader judges
        return
    if encoding or data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return
    if b"\0" in data:
        raise CragError(f"{name!r}: binary data (NUL bytes), not text")
    # ESC and backspace are a terminal's formatting, which the loader removes (crag.ingest.decode)
    control = sum(1 for b in data if b < 32 and b not in b"\r\n\t\f\x1b\x08")
    if control > max(5, len(data) // 100):
        raise CragError(f"{name!r}: binary data (control characters), not text")
    if not detect_encoding:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            if total == len(data) or exc.start < len(data) - 4:  # not a character cut by HEAD
                raise CragError(
                    f"{name!r}: not valid UTF-8 (byte {exc.start}) and "
                    "ingest.detect_encoding is off"
                ) from None


def check_gzip(path: Path, name: str, limit_bytes: int) -> None:
    """Kept for callers of the first version: `check_upload` on a compressed name only."""
    if compression_of(name):
        check_upload(path, name, limit_bytes)

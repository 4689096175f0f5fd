"""Uploaded files: a safe source name from the client's file name, and a spool file whose name
the server chooses.

The client's file name is never used as a path. Only its last component survives (after both
`/` and `\\`), with control characters and leading dots removed; it becomes the *source name*
the document is indexed, listed and cited under (re-uploading the same name replaces it, as
re-ingesting a changed file does). The bytes go to `<data_dir>/uploads/<collection>/<random
hex><suffix>`, a name no client input reaches.
"""

from __future__ import annotations

import os
import secrets
import unicodedata
import zlib
from pathlib import Path

from crag.errors import CragError
from crag.ingest.loaders import is_supported, supported_suffixes

__all__ = ["TooLarge", "UnsupportedUpload", "check_gzip", "source_name", "spool_path"]

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
            + " (optionally .gz)"
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


def check_gzip(path: Path, name: str, limit_bytes: int) -> None:
    """Refuse a `.gz` upload that is corrupt or inflates beyond `limit_bytes` (a zip bomb),
    reading it in bounded steps instead of decompressing it whole."""
    if not name.lower().endswith(".gz"):
        return
    inflater = zlib.decompressobj(wbits=31)
    total = 0
    with path.open("rb") as fh:
        try:
            while block := fh.read(1 << 16):
                data = block
                while data:
                    total += len(inflater.decompress(data, 1 << 20))
                    if total > limit_bytes:
                        raise TooLarge(
                            f"{name!r} decompresses to more than {limit_bytes / 1e6:g} MB "
                            "(ingest.max_file_mb)"
                        )
                    data = inflater.unconsumed_tail
                if inflater.eof:
                    break
        except zlib.error as exc:
            raise CragError(f"{name!r}: corrupt gzip data: {exc}") from exc

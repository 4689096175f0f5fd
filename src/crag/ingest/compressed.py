"""Bounded decompression of `.gz`, `.bz2` and `.xz` files: every member, counted while reading.

Why: a compressed file is small on the wire and may be huge inside (a "zip bomb"). Each of
these formats may hold several members (streams) back to back, and the stdlib one-shot
functions (`gzip.decompress`, ...) inflate them all, whole, into memory. Here the output is
produced in steps of at most `STEP` bytes and counted as it comes, so work and memory stop at
the limit, and a file that ends inside a member (truncated) or holds garbage is refused with
a reason instead of silently loading part of it.
"""

from __future__ import annotations

import bz2
import lzma
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from crag.errors import LoaderError

__all__ = [
    "COMPRESSED",
    "InflatedTooLarge",
    "compression_of",
    "decompress",
    "inflate",
    "inflate_file",
]

COMPRESSED = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}
STEP = 1 << 20  # the most output one decompression call may produce
READ = 1 << 16


class InflatedTooLarge(LoaderError):
    """A compressed file decompresses to more than the limit."""


def compression_of(name: str) -> str | None:
    """The compression format named by the file's last suffix, or None."""
    suffix = Path(name).suffix.lower()
    return COMPRESSED.get(suffix)


def _new(fmt: str) -> Any:
    if fmt == "gzip":
        return zlib.decompressobj(wbits=31)
    if fmt == "bzip2":
        return bz2.BZ2Decompressor()
    if fmt == "xz":
        return lzma.LZMADecompressor()
    raise ValueError(f"unknown compression {fmt!r}")


def _drain(d: Any, data: bytes) -> Iterator[bytes]:
    """All output of feeding `data` to the decompressor `d`, at most `STEP` bytes at a time."""
    if isinstance(d, type(zlib.decompressobj())):
        while True:
            out = d.decompress(data, STEP)
            if out:
                yield out
            data = d.unconsumed_tail
            if d.eof or (not data and len(out) < STEP):
                return
    else:
        out = d.decompress(data, STEP)
        if out:
            yield out
        while not d.eof and not d.needs_input:
            out = d.decompress(b"", STEP)
            if out:
                yield out


def inflate(blocks: Iterable[bytes], name: str, fmt: str, limit: int | None) -> Iterator[bytes]:
    """Decompress every member of the `fmt` data arriving in `blocks`, yielding output blocks.

    Raises `InflatedTooLarge` as soon as the output passes `limit` bytes (None: no limit), and
    `LoaderError` for corrupt or truncated data, naming `name`.
    """
    total = 0
    d: Any = None
    fed = False
    try:
        for block in blocks:
            while block:
                if d is None or d.eof:
                    if d is not None and not block.strip(b"\0"):
                        block = b""  # zero padding after the last member (tape blocks)
                        break
                    d = _new(fmt)
                fed = True
                for out in _drain(d, block):
                    total += len(out)
                    if limit is not None and total > limit:
                        raise InflatedTooLarge(
                            name,
                            f"decompresses to more than {limit / 1e6:g} MB (ingest.max_file_mb)",
                        )
                    yield out
                block = d.unused_data if d.eof else b""
    except (zlib.error, OSError, EOFError, lzma.LZMAError) as exc:
        raise LoaderError(name, f"corrupt {fmt} data: {exc}") from exc
    if not fed:
        raise LoaderError(name, f"empty file (no {fmt} data)")
    if not d.eof:
        raise LoaderError(name, f"truncated {fmt} data: the file ends inside a compressed member")


def _read_blocks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as fh:
        while block := fh.read(READ):
            yield block


def inflate_file(path: Path, name: str, fmt: str, limit: int | None) -> Iterator[bytes]:
    """`inflate` over a file read in small blocks."""
    return inflate(_read_blocks(path), name, fmt, limit)


def decompress(data: bytes, name: str, fmt: str, limit: int | None) -> bytes:
    """All of `data` decompressed (every member), refused past `limit` bytes of output."""
    view = memoryview(data)
    blocks = (bytes(view[i : i + READ]) for i in range(0, len(data), READ))
    return b"".join(inflate(blocks, name, fmt, limit))

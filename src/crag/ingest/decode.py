"""Turn a file's bytes into text, or explain why it is not text.

UTF-8 (with or without BOM) and BOM-marked UTF-16 are read as is. Anything else is either
binary (NUL bytes, or no encoding fits) and refused, or a legacy encoding (cp1254 Turkish,
latin-1, ...) that is detected with charset-normalizer and reported as a warning, so a user's
old files are indexed rather than silently dropped.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from crag.errors import LoaderError

__all__ = ["DecodedText", "decode_bytes"]


@dataclass(frozen=True, slots=True)
class DecodedText:
    text: str
    encoding: str
    warning: str | None = None


def _check_text(decoded: DecodedText, path: str) -> DecodedText:
    """Refuse decoded text that is really binary or holds nothing."""
    sample = decoded.text[:20000]
    control = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\r\n\t\f")
    if "\x00" in sample or control > max(5, len(sample) // 100):
        raise LoaderError(path, "binary file (control characters), not text")
    if not decoded.text.strip():
        raise LoaderError(path, "empty file")
    return decoded


def decode_bytes(
    data: bytes, path: str, *, detect: bool = True, encoding: str | None = None
) -> DecodedText:
    """Decode `data` read from `path`; raise `LoaderError` naming the path when it is not text.

    `encoding` (ingest.encoding) forces one codec: no BOM sniffing, no detection; bytes it
    cannot decode are an error naming the byte, not a guess.
    """
    if not data.strip():
        raise LoaderError(path, "empty file")
    if encoding:
        try:
            text = data.decode(encoding)
        except LookupError as exc:
            raise LoaderError(path, f"unknown encoding {encoding!r} (ingest.encoding)") from exc
        except UnicodeDecodeError as exc:
            raise LoaderError(
                path, f"not valid {encoding} at byte {exc.start} (ingest.encoding)"
            ) from exc
        return _check_text(DecodedText(text.removeprefix("\ufeff"), encoding), path)
    for bom in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        if data.startswith(bom):
            try:
                return _check_text(DecodedText(data.decode("utf-16"), "utf-16"), path)
            except UnicodeDecodeError as exc:
                raise LoaderError(path, f"invalid UTF-16: {exc.reason}") from exc
    if b"\x00" in data[:8192]:
        raise LoaderError(path, "binary file (contains NUL bytes), not text")
    try:
        return _check_text(DecodedText(data.decode("utf-8-sig"), "utf-8"), path)
    except UnicodeDecodeError as exc:
        if not detect:
            raise LoaderError(
                path,
                f"not valid UTF-8 (byte {exc.start}); convert it or set "
                "ingest.detect_encoding = true",
            ) from exc
        first_bad = exc.start
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None or best.encoding is None:
        raise LoaderError(path, f"not text: no encoding fits (invalid UTF-8 at byte {first_bad})")
    return _check_text(
        DecodedText(
            str(best),
            best.encoding,
            warning=f"{path}: not UTF-8, decoded as {best.encoding} (detected)",
        ),
        path,
    )

"""Turn a file's bytes into text, or explain why it is not text.

UTF-8 (with or without BOM) and BOM-marked UTF-16 are read as is. Anything else is either
binary (NUL bytes, or no encoding fits) and refused, or a legacy encoding (cp1254 Turkish,
latin-1, ...) that is detected with charset-normalizer and reported as a warning, so a user's
old files are indexed rather than silently dropped.

Text made for a terminal is text too: grotty's output (`man-db-manual.txt.gz` in
/usr/share/doc), build and CI logs in colour, `script` sessions. Its ANSI escape sequences
(ESC [ … m for colour and bold) and backspace overstrikes ("X\bX" for bold, "_\bX" for
underline) are control characters, which refused such a file as binary; they are removed
first, as `less -R` and `col -b` would show the text.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from crag.errors import LoaderError

__all__ = ["DecodedText", "decode_bytes", "without_terminal_codes"]


@dataclass(frozen=True, slots=True)
class DecodedText:
    text: str
    encoding: str
    warning: str | None = None


# ECMA-48 control sequences (CSI: ESC [ parameters intermediates final) and OSC strings (ESC ]
# … BEL or ESC \), then any other two-character escape
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_OVERSTRIKE = re.compile(r"[^\n\x08]\x08(?=[^\n\x08])")  # "X\bX", "_\bX": the second stays


def without_terminal_codes(text: str) -> str:
    """`text` without ANSI escape sequences and backspace overstrikes."""
    if "\x1b" in text:
        text = _ESCAPES.sub("", text)
    if "\x08" in text:
        text = _OVERSTRIKE.sub("", text)
    return text


# Code pages charset-normalizer picks for a Western name or two in a text that is mostly ASCII
# (ed's AUTHORS "Fran\xe7ois" as cp850 or iso8859_10, a changelog as cp775, cp857 or HP's
# roman8), which hardly a file of today is in
_UNLIKELY = ["cp437", "cp775", "cp850", "cp852", "cp857", "cp858", "cp860", "cp861", "cp863",
             "cp865", "hp_roman8", "iso8859_10", "mac_roman", "mac_iceland", "mac_latin2",
             "mac_turkish", "mac_greek"]  # fmt: skip
# Two-byte encodings: a lead byte takes the next byte with it, an ASCII letter too (make's NEWS
# "K\xe4mpf" read as big5 lost its "m"); not where every high byte stands alone
_MULTIBYTE = ["big5", "big5hkscs", "cp932", "cp949", "cp950", "euc_jis_2004", "euc_jisx0213",
              "euc_jp", "euc_kr", "gb18030", "gb2312", "gbk", "hz", "johab", "shift_jis",
              "shift_jis_2004", "shift_jisx0213"]  # fmt: skip
_HIGH_RUN = re.compile(rb"[\x80-\xff]+")
# charset-normalizer ties cp1250, cp1252 and cp1257 on a few names in English text ("Sm\xf8rgrav"
# read as "Sm\u0159rgrav") and settles it alphabetically
_WESTERN = ("cp1252", "latin_1", "iso8859_15")


# a stray byte (decoded by "surrogateescape" as U+DC80 + its value) as its cp1252 character,
# latin-1's where cp1252 has none (0x81, 0x8D, 0x8F, 0x90, 0x9D)
_STRAY_AS_CP1252 = {
    0xDC00 + b: bytes([b]).decode("cp1252", errors="replace").replace("\ufffd", "")
    or bytes([b]).decode("latin-1")
    for b in range(0x80, 0x100)
}


def _likely_utf8(ch: str) -> bool:
    """A character that UTF-8 bytes in a legacy text are unlikely to make by accident: a Latin
    letter or symbol (U+00A0-U+024F) or one of three bytes or more. A cp1254 "\u0130\u2019"
    (0xDD 0x92: a Turkish capital and its apostrophe) is valid UTF-8 too, but U+0752."""
    return "\u00a0" <= ch <= "\u024f" or (ch >= "\u0800" and not "\ud800" <= ch <= "\udfff")


def _utf8_with_strays(data: bytes) -> tuple[str, int] | None:
    """UTF-8 with a few bytes of a legacy encoding, such as a changelog whose older entries
    were written in latin-1 ("Rog\xc3\xa9rio" and "Sm\xf8rgrav" in one file): the text and
    how many bytes were not UTF-8, or None when it holds no UTF-8 to speak of (two likely
    characters, or as many as its stray bytes). Read whole in one detected code page, its
    UTF-8 names came out as "Rog\u0102\u00a9rio"."""
    text = data.decode("utf-8", errors="surrogateescape")
    strays = sum(1 for ch in text if "\udc80" <= ch <= "\udcff")
    valid = sum(1 for ch in text if _likely_utf8(ch))
    if not strays or (valid < 2 and valid < strays):
        return None
    return text.translate(_STRAY_AS_CP1252), strays


def _check_text(decoded: DecodedText, path: str) -> DecodedText:
    """Refuse decoded text that is really binary or holds nothing; text made for a terminal
    is read without its escapes and overstrikes."""
    if "\x1b" in decoded.text or "\x08" in decoded.text:
        decoded = DecodedText(
            without_terminal_codes(decoded.text), decoded.encoding, decoded.warning
        )
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
    mixed = _utf8_with_strays(data)
    if mixed is not None:
        text, strays = mixed
        warning = f"{path}: UTF-8 with {strays} byte(s) of another encoding, read as cp1252"
        return _check_text(DecodedText(text.removeprefix("\ufeff"), "utf-8", warning), path)
    from charset_normalizer import from_bytes

    runs = _HIGH_RUN.findall(data)
    isolated = sum(map(len, runs)) <= 1.5 * len(runs)  # no runs of 2+ bytes: not CJK
    found = from_bytes(data, cp_exclusion=_UNLIKELY + (_MULTIBYTE if isolated else []))
    best = found.best()
    if best is not None:  # a tie is the Western default's, as browsers read undeclared text
        tied = {
            m.encoding: m for m in found if (m.chaos, m.coherence) == (best.chaos, best.coherence)
        }
        best = next((tied[e] for e in _WESTERN if e in tied), best)
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

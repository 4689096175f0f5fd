"""Loaders and text encodings: empty and binary files, legacy and mixed encodings, BOMs, and
text made for a terminal (its codes dropped, not refused as binary).

All inputs are small files written by the tests into `tmp_path`.
"""

from __future__ import annotations

import codecs
import gzip
from pathlib import Path

import pytest
from tests.support.files import write as _write

from crag.errors import LoaderError, UnsupportedFileError
from crag.ingest.loaders import load_file

# --------------------------------------------------------------------------- encodings

_TURKISH = (
    "Bu şehirde çok güzel bir akşam geçirdik. Işıklar yanıyordu ve İstanbul'un sokakları "
    "kalabalıktı. Çocuklar parkta oynuyor, yaşlılar çay içiyordu. Öğleden sonra güneş "
    "batarken boğazın kıyısında yürüdük.\n"
)
_FRENCH = (
    "Le café était fermé. Nous avons marché jusqu'à la rivière, où l'été semblait éternel. "
    "Les élèves préféraient la forêt, près du château, où l'on entendait les oiseaux chanter.\n"
)


@pytest.mark.parametrize("content", [b"", b"   \n\t \r\n  "], ids=["empty", "whitespace"])
def test_empty_file(tmp_path: Path, content: bytes) -> None:
    path = _write(tmp_path / "empty.txt", content)
    with pytest.raises(LoaderError, match="empty file"):
        load_file(path)


def test_binary_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "blob.txt", b"ELF\x00\x01\x02\x03binary\x00data" * 10)
    with pytest.raises(LoaderError, match="binary"):
        load_file(path)


def test_cp1254_turkish_detected(tmp_path: Path) -> None:
    path = _write(tmp_path / "tr.txt", _TURKISH.encode("cp1254"))
    result = load_file(path)
    text = result.documents[0].text
    assert "şehirde" in text
    assert "İstanbul'un" in text
    assert "ı" in text
    assert text == _TURKISH
    assert len(result.warnings) == 1
    assert "not UTF-8" in result.warnings[0]
    assert str(path) in result.warnings[0]


def test_latin1_french_detected(tmp_path: Path) -> None:
    path = _write(tmp_path / "fr.md", _FRENCH.encode("latin-1"))
    result = load_file(path)
    assert "café était fermé" in result.documents[0].text
    assert "é" in result.documents[0].text
    assert any("not UTF-8" in w for w in result.warnings)


def test_legacy_encoding_refused_without_detection(tmp_path: Path) -> None:
    path = _write(tmp_path / "tr.txt", _TURKISH.encode("cp1254"))
    with pytest.raises(LoaderError, match="not valid UTF-8"):
        load_file(path, detect_encoding=False)


def test_utf16_with_bom(tmp_path: Path) -> None:
    text = "Merhaba dünya, İstanbul'da güzel bir gün.\n"
    for encoding in ("utf-16", "utf-16-le", "utf-16-be"):
        bom = {
            "utf-16": b"",
            "utf-16-le": codecs.BOM_UTF16_LE,
            "utf-16-be": codecs.BOM_UTF16_BE,
        }[encoding]
        path = _write(tmp_path / f"{encoding}.txt", bom + text.encode(encoding))
        result = load_file(path)
        assert result.documents[0].text == text, encoding
        assert result.warnings == []


@pytest.mark.parametrize(
    "data",
    [
        codecs.BOM_UTF16_LE + "odd".encode("utf-16-le") + b"x",  # truncated: odd byte count
        codecs.BOM_UTF16_LE + b"\x00\xd8a\x00",  # lone high surrogate
    ],
    ids=["truncated", "lone-surrogate"],
)
def test_invalid_utf16_is_loader_error(tmp_path: Path, data: bytes) -> None:
    path = _write(tmp_path / "bad16.txt", data)
    with pytest.raises(LoaderError, match="UTF-16"):
        load_file(path)


def test_utf32_is_refused_as_binary(tmp_path: Path) -> None:
    path = _write(tmp_path / "u32.txt", codecs.BOM_UTF32_LE + "hello world".encode("utf-32-le"))
    with pytest.raises(LoaderError, match="binary"):
        load_file(path)


def test_utf8_bom_is_stripped(tmp_path: Path) -> None:
    path = _write(tmp_path / "bom.md", codecs.BOM_UTF8 + "# Başlık\n\nmetin\n".encode())
    doc = load_file(path).documents[0]
    assert not doc.text.startswith("\ufeff")
    assert "\ufeff" not in doc.text
    assert doc.title == "Başlık"


# --------------------------------------------------------------------------- terminal text


def test_text_made_for_a_terminal_is_read_without_its_codes(tmp_path: Path) -> None:
    # grotty's output (man-db-manual.txt.gz) and a CI log in colour were refused as binary
    page = "\x1b[1mman-db\x1b[0m - the \x1b[4mmanual\x1b[24m pager\n" * 20
    log = "\x1b]0;build\x07\x1b[32mPASS\x1b[m tests/a.py\n\x1b[31;1mFAIL\x1b[0m b.py\n" * 20
    bold = "B\bBo\bol\bld\bd and _\bu_\bn_\bd_\be_\br\n" * 20
    assert (
        load_file(_write(tmp_path / "m.txt.gz", gzip.compress(page.encode())))
        .documents[0]
        .text.startswith("man-db - the manual pager\n")
    )
    assert (
        "PASS tests/a.py\nFAIL b.py"
        in load_file(_write(tmp_path / "ci.txt", log)).documents[0].text
    )
    assert (
        load_file(_write(tmp_path / "b.txt", bold)).documents[0].text.startswith("Bold and under\n")
    )
    # other control characters are still binary
    with pytest.raises(LoaderError, match="binary"):
        load_file(_write(tmp_path / "x.txt", "\x01\x02\x03 data \x04\x05\x06" * 40))


def test_a_rotated_changelog_named_like_a_page_is_text(tmp_path: Path) -> None:
    log = "tar (1.30-1) unstable; urgency=low\n\n  * New upstream release.\n"
    (tmp_path / "tar").mkdir()
    doc = load_file(_write(tmp_path / "tar" / "changelog.1.gz", gzip.compress(log.encode())))
    assert doc.documents[0].title == "tar changelog.1" and "New upstream" in doc.documents[0].text
    with pytest.raises(UnsupportedFileError, match=r"no \.TH"):  # not a conventional name
        load_file(_write(tmp_path / "syslog.1", "Nov 27 10:00 host cron[1]: job\n"))


# ------------------------------------------------------------------ mixed and sparse legacy text


def test_utf8_with_a_few_latin1_bytes_keeps_both(tmp_path: Path) -> None:
    # a changelog whose older entries were written in latin-1 (libxslt's, libmp3lame's)
    data = (
        "  * Patch from Rog\u00e9rio Brito and Tomasz K\u0142oczko\n".encode()
        + "  * Thanks to Dag-Erling Sm\u00f8rgrav and Miguel Mu\u00f1oz\n".encode("latin-1")
    ) * 30
    result = load_file(_write(tmp_path / "changelog", data))
    text = result.documents[0].text
    assert "Rog\u00e9rio" in text and "K\u0142oczko" in text
    assert "Sm\u00f8rgrav" in text and "Mu\u00f1oz" in text
    assert "UTF-8 with 60 byte(s) of another encoding" in result.warnings[0]


def test_a_few_western_names_in_english_are_not_read_as_another_script(tmp_path: Path) -> None:
    # charset-normalizer read make's NEWS as big5 (which ate the "m" of "K\u00e4mpf"), and tied
    # cp1250 with cp1252 on "Sm\u00f8rgrav" ("Sm\u0159rgrav")
    english = "The port to VMS was done by Klaus K\u00e4mpf and reviewed by others. " * 40
    names = "Fixes from Dag-Erling Sm\u00f8rgrav, Lars Skj\u00e6rlund and Miguel Mu\u00f1oz.\n"
    for text in (english, "Release notes of many kinds for this project.\n" * 60 + names):
        result = load_file(_write(tmp_path / "NEWS", text.encode("latin-1")))
        assert result.documents[0].text == text

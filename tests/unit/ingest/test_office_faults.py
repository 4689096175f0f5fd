"""Bad office and e-book files: not a package, cut short, password-protected or legacy,
the wrong parts inside, encrypted members, DRM, no text, damaged bytes. Each gets a
LoaderError naming the file, never another exception, in bounded time."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from tests.support.office_files import (
    OPF,
    encrypted_office,
    epub_bytes,
    legacy_office,
    make_docx,
    make_epub,
    make_pptx,
    make_xlsx,
    zip_with,
)

from crag.errors import LoaderError
from crag.ingest.loaders import load_bytes, load_file

SUFFIXES = [".docx", ".pptx", ".xlsx", ".epub"]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_not_a_zip_is_named(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"bad{suffix}"
    path.write_bytes(b"this is plain text, not a package\n")
    with pytest.raises(LoaderError) as err:
        load_file(path)
    assert err.value.path == str(path)
    assert "corrupt or not a ZIP" in err.value.reason


@pytest.mark.parametrize(
    "suffix,make", [(".docx", make_docx), (".pptx", make_pptx), (".xlsx", make_xlsx)]
)
def test_truncated_office_file(tmp_path: Path, suffix: str, make) -> None:
    data = make(tmp_path / f"good{suffix}").read_bytes()
    path = tmp_path / f"cut{suffix}"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(LoaderError, match="corrupt or not a ZIP"):
        load_file(path)


@pytest.mark.parametrize("suffix", [".docx", ".pptx", ".xlsx"])
def test_password_protected_and_legacy_office(tmp_path: Path, suffix: str) -> None:
    enc = tmp_path / f"secret{suffix}"
    enc.write_bytes(encrypted_office())
    with pytest.raises(LoaderError, match="password-protected"):
        load_file(enc)
    old = tmp_path / f"old{suffix}"
    old.write_bytes(legacy_office())
    with pytest.raises(LoaderError, match="legacy binary Office file"):
        load_file(old)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_wrong_content_inside_a_zip(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"other{suffix}"
    path.write_bytes(zip_with({"hello.txt": "just a zip"}))
    with pytest.raises(LoaderError) as err:
        load_file(path)
    assert err.value.path == str(path)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_encrypted_zip_members(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"locked{suffix}"
    path.write_bytes(zip_with({"a.xml": "x"}, encrypt_flag=True))
    with pytest.raises(LoaderError, match="encrypted ZIP"):
        load_file(path)


def test_package_unpacking_past_the_limit_is_refused(tmp_path: Path) -> None:
    data = make_xlsx(tmp_path / "big.xlsx").read_bytes()
    with pytest.raises(LoaderError, match=r"unpacks to .* above ingest\.max_file_mb"):
        load_bytes(Path("big.xlsx"), data, max_bytes=len(data))


def test_office_files_without_text(tmp_path: Path) -> None:
    import docx
    from openpyxl import Workbook
    from pptx import Presentation

    docx.Document().save(tmp_path / "empty.docx")
    Workbook().save(tmp_path / "empty.xlsx")
    deck = Presentation()
    deck.slides.add_slide(deck.slide_layouts[6])
    deck.save(tmp_path / "empty.pptx")
    for name, reason in [
        ("empty.docx", "DOCX holds no text"),
        ("empty.xlsx", "XLSX holds no cell"),
        ("empty.pptx", "PPTX holds no text"),
    ]:
        with pytest.raises(LoaderError, match=reason):
            load_file(tmp_path / name)


def test_epub_errors(tmp_path: Path) -> None:
    cases = {
        "nocontainer.epub": (epub_bytes(skip=("META-INF/container.xml",)), "container.xml"),
        "badopf.epub": (epub_bytes({"OEBPS/content.opf": "<package><oops"}), "not well-formed"),
        "nospine.epub": (
            epub_bytes({"OEBPS/content.opf": OPF.split("<spine>")[0] + "</package>"}),
            "no spine",
        ),
        "drm.epub": (
            epub_bytes(
                {
                    "META-INF/encryption.xml": (
                        '<encryption xmlns:enc="http://www.w3.org/2001/04/xmlenc#">'
                        "<enc:EncryptedData><enc:EncryptionMethod "
                        'Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>'
                        '<enc:CipherData><enc:CipherReference URI="OEBPS/text/ch2.xhtml"/>'
                        "</enc:CipherData></enc:EncryptedData></encryption>"
                    )
                }
            ),
            "DRM-protected EPUB",
        ),
        "empty.epub": (
            epub_bytes(
                skip=("OEBPS/text/chapter 1.xhtml", "OEBPS/text/ch2.xhtml"),
            ),
            "no chapter with text",
        ),
    }
    for name, (data, reason) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(LoaderError, match=reason) as err:
            load_file(path)
        assert err.value.path == str(path)


def test_malformed_csv_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "huge.csv"
    path.write_text("a,b\n1,2\n3," + "x" * 200_000 + "\n")
    with pytest.raises(LoaderError, match="malformed CSV at line 3"):
        load_file(path)


@pytest.mark.parametrize(
    "suffix,make",
    [(".docx", make_docx), (".pptx", make_pptx), (".xlsx", make_xlsx), (".epub", make_epub)],
)
def test_damaged_bytes_load_or_fail_with_a_loader_error(tmp_path: Path, suffix: str, make) -> None:
    """Bytes flipped anywhere (headers, compressed data, XML): documents or a LoaderError,
    never another exception (a late zipfile NotImplementedError once escaped)."""
    good = make(tmp_path / f"good{suffix}").read_bytes()
    rng = random.Random(7)
    for _ in range(15):
        data = bytearray(good)
        for _ in range(rng.randint(1, 20)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            load_bytes(Path(f"damaged{suffix}"), bytes(data), max_bytes=10**7)
        except LoaderError as exc:
            assert exc.path == f"damaged{suffix}"

"""Plain-text documents named by convention (README, NEWS.Debian.gz): which names, and titles."""

from __future__ import annotations

from pathlib import Path

import pytest

from crag.ingest.doc_names import is_conventional_text, looks_binary, name_title
from crag.ingest.loaders import format_of, is_supported, is_walked, load_bytes
from crag.ingest.metadata import file_type


@pytest.mark.parametrize(
    "name",
    ["README", "readme", "FAQ", "NEWS.gz", "README.Debian", "NEWS.Debian.gz", "copyright",
     "changelog.Debian.amd64.gz", "README.source", "00README", "COPYING.LIB", "RELEASE-NOTES",
     "INSTALL", "AUTHORS.bz2", "LICENSE"],
)  # fmt: skip
def test_conventional_names_are_plain_text(name: str) -> None:
    assert is_conventional_text(name)
    assert format_of(name) == ".txt" and file_type(name) == "txt"
    assert is_supported(Path("/usr/share/doc/pkg") / name)


@pytest.mark.parametrize(
    "name", ["Makefile", "postinst", "READMEish", "README.png", "README.sh", "INSTALL.exe",
             "v2.38-ReleaseNotes", "notes.xyz", "gdbinit"],
)  # fmt: skip
def test_other_names_are_not(name: str) -> None:
    assert not is_conventional_text(name)
    assert not is_supported(Path(name))


def test_a_format_suffix_keeps_its_own_loader() -> None:
    assert format_of("README.md") == ".md" and format_of("LICENSE.html.gz") == ".html"
    assert format_of("gzip.1.gz") == ".man" and format_of("squad.json.gz") == ".json"


def test_title_names_the_folder_for_a_conventional_name() -> None:
    assert name_title("/usr/share/doc/bash/README.Debian.gz") == "bash README.Debian"
    assert name_title("/usr/share/doc/base-files/FAQ") == "base-files FAQ"
    assert name_title("proj/README.txt") == "proj README"
    assert name_title("NEWS") == "NEWS"  # an upload: no folder
    assert name_title("/docs/report.final.txt") == "report.final"  # as before


def test_loaded_as_text_with_that_title() -> None:
    result = load_bytes(Path("/usr/share/doc/dbus/README.Debian"), b"Adjusting limits\n\nText.")
    (doc,) = result.documents
    assert doc.title == "dbus README.Debian" and "Adjusting limits" in doc.text


def test_binary_content_under_a_conventional_name(tmp_path: Path) -> None:
    (tmp_path / "history.db").write_bytes(b"SQLite format 3\x00" + b"\x00" * 16)
    (tmp_path / "NEWS").write_text("1.0: first release\n")
    assert looks_binary(tmp_path / "history.db") and not looks_binary(tmp_path / "NEWS")
    assert not looks_binary(tmp_path / "missing")


def test_a_folder_walk_passes_over_binary_files_typed_by_a_guess(tmp_path: Path) -> None:
    # "libavif.so.16.4.2": its ".2" names a man page's section, as "ls.1" does
    elf = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 64
    for name in ("libavif.so.16.4.2", "history.db", "README"):
        (tmp_path / name).write_bytes(elf)
        assert is_supported(tmp_path / name) and not is_walked(tmp_path / name)
    (tmp_path / "ls.1").write_text(".TH LS 1\n.SH NAME\nls \\- list\n")
    (tmp_path / "blob.txt").write_bytes(elf)  # named as text: read, and refused as binary
    assert is_walked(tmp_path / "ls.1") and is_walked(tmp_path / "blob.txt")

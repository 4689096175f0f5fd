"""pypdf's warnings become warnings naming the file, never bare lines (crag.ingest.pdf_log)."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest
from tests.support.pdfs import pdf_pages

from crag.errors import LoaderError
from crag.ingest.loaders import load_file
from crag.ingest.pdf_log import MAX_NOTES, pypdf_notes

PAGE = [["The ferry leaves the harbour at dawn."]]


def test_a_repaired_pdf_loads_with_pypdfs_notes_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "prefixed.pdf"
    path.write_bytes(b"garbage" + pdf_pages(PAGE))  # pypdf repairs the header and offsets
    result = load_file(path)
    assert "ferry leaves" in result.documents[0].text
    notes = [w for w in result.warnings if ": pypdf: " in w]
    assert notes and all(w.startswith(f"{path}: pypdf: ") for w in notes), result.warnings
    assert any("invalid pdf header" in w for w in notes)
    assert len(notes) <= MAX_NOTES
    assert capsys.readouterr().err == ""  # nothing printed without the file's name


def test_a_file_that_is_no_pdf_is_one_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "random.pdf"
    path.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(LoaderError) as caught:
        load_file(path)
    message = str(caught.value)
    assert str(path) in message and "corrupt PDF" in message
    assert "pypdf: invalid pdf header" in message  # what pypdf saw says it is no PDF at all
    assert capsys.readouterr().err == ""


def test_each_thread_collects_its_own_notes() -> None:
    logger = logging.getLogger("pypdf._reader")
    seen: dict[str, list[str]] = {}
    go = threading.Barrier(2)

    def read(name: str) -> None:
        with pypdf_notes() as notes:
            go.wait()
            for i in range(20):
                logger.warning("%s note %d", name, i % 3)
        seen[name] = notes

    threads = [threading.Thread(target=read, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {n: [f"{n} note 0", f"{n} note 1", f"{n} note 2"] for n in ("a", "b")}


def test_outside_a_reading_records_still_reach_the_users_handlers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pypdf_notes():
        pass  # installs the handler
    got: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            got.append(record.getMessage())

    root = logging.getLogger()
    handler = Keep(logging.WARNING)
    root.addHandler(handler)
    try:
        logging.getLogger("pypdf._page").warning("a user's own pypdf use")
    finally:
        root.removeHandler(handler)
    assert got == ["a user's own pypdf use"]
    logging.getLogger("pypdf._page").warning("no handler of the user's")
    assert capsys.readouterr().err == ""


def test_a_file_logging_per_object_keeps_only_the_first_notes() -> None:
    logger = logging.getLogger("pypdf._reader")
    with pypdf_notes() as notes:
        for i in range(10_000):
            logger.warning("Object %d 0 not defined.", i)
    assert notes == [f"Object {i} 0 not defined." for i in range(MAX_NOTES)]

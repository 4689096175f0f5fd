"""pypdf's own warnings, collected per file instead of printed bare.

pypdf reports what it repairs on the way ("invalid pdf header: b'...'", "EOF marker not
found", "incorrect startxref pointer") through the `logging` module. With no handler
configured, Python prints such records to stderr as they come: lines that name no file,
between `crag ingest`'s progress bars, for a PDF crag then reads or rejects with a message of
its own. Here the "pypdf" logger gets one handler, which stops the bare printing and hands
each record to the PDF being read on the same thread (ingestion reads files on several
threads); `load_pdf` turns them into warnings that name the file.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["MAX_NOTES", "pypdf_notes"]

MAX_NOTES = 3  # a damaged file can log one line per object: the first few tell the story

_active = threading.local()
_installed = threading.Lock()
_handler: logging.Handler | None = None


class _ToReader(logging.Handler):
    """Routes a pypdf record to the collector of the thread that logged it, if any."""

    def emit(self, record: logging.LogRecord) -> None:
        notes: list[str] | None = getattr(_active, "notes", None)
        if notes is None or len(notes) >= MAX_NOTES:  # a damaged file logs per object
            return
        try:
            message = " ".join(record.getMessage().split())
        except Exception:  # a record whose arguments do not format: nothing to tell
            return
        if message and message not in notes:
            notes.append(message)


def _install() -> None:
    global _handler
    with _installed:
        if _handler is None:
            _handler = _ToReader(logging.WARNING)
            # A handler on the chain is enough for `logging` not to print records bare
            # (its last resort); records still propagate to any handler the user set up.
            logging.getLogger("pypdf").addHandler(_handler)


@contextmanager
def pypdf_notes() -> Iterator[list[str]]:
    """Collects pypdf's warnings logged on this thread while the block runs: the first
    `MAX_NOTES` distinct ones, in order."""
    _install()
    outer: list[str] | None = getattr(_active, "notes", None)
    notes: list[str] = []
    _active.notes = notes
    try:
        yield notes
    finally:
        _active.notes = outer

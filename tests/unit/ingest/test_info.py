"""GNU Info manuals read as Markdown (`crag.ingest.info`)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from crag.errors import UnsupportedFileError
from crag.ingest.chunking import Chunker
from crag.ingest.info import load_info
from crag.ingest.loaders import is_supported, load_file
from crag.ingest.metadata import file_type
from crag.refine.strips import decompose
from crag.types import Chunk

MANUAL = """This is moor.info, produced by makeinfo version 6.8 from moor.texi.

INFO-DIR-SECTION Harbour
START-INFO-DIR-ENTRY
* moor: (moor).   Assign berths.
END-INFO-DIR-ENTRY

\x1f
File: moor.info,  Node: Top,  Next: Invoking moor,  Up: (dir)

GNU ‘moor’
**********

This manual documents ‘moor’, which assigns berths.

* Menu:

* Invoking moor::     How to run it.
* Concept Index::     Topics.

\x1f
File: moor.info,  Node: Invoking moor,  Next: Concept Index,  Prev: Top,  Up: Top

2 Invoking moor
***************

2.1 Options
===========

The full format for invoking ‘moor’ is:

     moor OPTIONS... BOAT...

   ‘moor’ may be invoked with the following options (*note Tides::):

‘-k’
‘--keep-log’
     Keep the previous night's harbour log instead of starting a new
     one.
          $ moor -k Saga
          berth 4

     The log is kept in ‘/var/log/moor’.

‘-t METRES’
     Refuse berths shallower than METRES at low tide (*note Depths: Tides.).

\x1f
File: moor.info,  Node: Concept Index,  Prev: Invoking moor,  Up: Top

Concept Index
*************

* keep log:                              Invoking moor.        (line 12)

\x1f
Tag Table:
Node: Top195
\x1f
End Tag Table
"""


def test_an_info_manual_reads_as_its_text() -> None:
    """Read as written: the nodes' headers name them, which questions' words find."""
    (doc,), _ = load_info("moor.info", MANUAL)
    assert doc.title == "GNU ‘moor’" and doc.format == "text"
    assert "Node: Invoking moor" in doc.text and "\x1f" not in doc.text
    assert [h.text for h in doc.headings][:3] == ["GNU ‘moor’", "2 Invoking moor", "2.1 Options"]


def test_each_table_entry_opens_a_strip() -> None:
    (doc,), _ = load_info("moor.info", MANUAL)
    chunk = Chunk(id="c", text=doc.text, doc_id="d", source="moor.info", position=0, start=0, end=1)
    got = [s.text for s in decompose([chunk], "excerption")]
    assert any(s.startswith("‘-k’ ‘--keep-log’ Keep the previous night's") for s in got), got
    assert any(s.startswith("‘-t METRES’ Refuse berths") for s in got), got


def test_info_files_load_by_their_suffix(tmp_path: Path) -> None:
    part = tmp_path / "moor.info-1.gz"
    part.write_bytes(gzip.compress(MANUAL.encode()))
    assert is_supported(part) and file_type(str(part)) == "info"
    (doc,) = load_file(part).documents
    assert doc.title == "GNU ‘moor’" and doc.format == "text"
    chunks = Chunker(200, 0).split(doc)
    keep = next(c for c in chunks if "harbour log" in c.text)
    assert keep.metadata.get("heading", "").endswith("2.1 Options")


def test_a_split_manuals_list_and_index_part_are_skipped_with_a_reason(tmp_path: Path) -> None:
    listing = tmp_path / "moor.info"
    listing.write_text("This is moor.info.\n\x1f\nIndirect:\nmoor.info-1: 1201\n\x1f\nTag Table:\n")
    with pytest.raises(UnsupportedFileError, match="split Info manual's parts"):
        load_file(listing)
    index = tmp_path / "moor.info-2"  # makeinfo's index marks hold the file's only NUL bytes
    index.write_bytes(
        b"This is moor.info.\n\x1f\nFile: moor.info,  Node: Concept Index,  Up: Top\n\n"
        b"\x00\x08[index\x00\x08]\n* Menu:\n\n* keep log:   Invoking moor.   (line 12)\n"
    )
    with pytest.raises(UnsupportedFileError, match="only an index"):
        load_file(index)

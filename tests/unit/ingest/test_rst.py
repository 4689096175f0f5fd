"""reStructuredText section titles as headings (crag.ingest.rst)."""

from __future__ import annotations

from pathlib import Path

from crag.ingest.chunking import Chunker
from crag.ingest.loaders import load_file
from crag.ingest.rst import rst_headings

GUIDE = """\
=================
Harbour Guide
=================

The guide to the harbour.

Ferries
=======

Ferries leave at dawn.

max_queue_size
--------------

**Default** - ``1000``

Tickets queue up to this many.

----------

Weather
=======

Example::

    Not a title
    -----------

=====  =====
Wind   Speed
=====  =====
north  12
=====  =====

Storms close the harbour.
"""


def test_titles_take_levels_in_the_order_their_styles_appear() -> None:
    found = [(h.level, h.text) for h in rst_headings(GUIDE)]
    # overlined "=" is a style of its own, then "=" underlined, then "-"; the transition
    # line, the indented literal block and the simple table's borders are no titles
    assert found == [(1, "Harbour Guide"), (2, "Ferries"), (3, "max_queue_size"), (2, "Weather")]
    first = rst_headings(GUIDE)[0]
    assert first.offset == 0  # at its overline
    ferries = rst_headings(GUIDE)[1]
    assert GUIDE[ferries.offset :].startswith("Ferries\n=======")


def test_a_line_of_text_right_after_a_paragraph_is_no_title() -> None:
    text = "A paragraph line\nanother line\n-------------\n\nTitle\n-----\n\nbody\n"
    assert [h.text for h in rst_headings(text)] == ["Title"]
    assert rst_headings("only text\n\nno titles at all\n") == []


def test_rst_chunks_carry_the_section_they_start_in(tmp_path: Path) -> None:
    path = tmp_path / "guide.rst"
    path.write_text(GUIDE, encoding="utf-8")
    doc = load_file(path).documents[0]
    assert doc.title == "Harbour Guide"  # a lone top-level title is the document's
    chunks = Chunker(chunk_size=60, chunk_overlap=0).split(doc)
    assert all(doc.text[c.start : c.end] == c.text for c in chunks)
    heading = {c.text.splitlines()[0]: c.metadata.get("heading") for c in chunks}
    # no chunk runs on into the next section: each opens with its own title, which it names
    # itself, so its path is the sections above
    assert heading["max_queue_size"] == "Ferries"
    assert heading["Tickets queue up to this many."] == "Ferries › max_queue_size"
    assert heading["Ferries"] is None  # below the document's title only
    by_text = {c.text: c.metadata.get("heading") for c in chunks}
    assert "Ferries\n=======\n\nFerries leave at dawn." in by_text  # not "… max_queue_size ---"
    assert by_text["=====  =====\n\nStorms close the harbour."] == "Weather"


def test_a_file_of_several_top_titles_is_named_by_its_file(tmp_path: Path) -> None:
    path = tmp_path / "config-vars.rst"
    path.write_text("Format\n======\n\nText one.\n\nOptions\n=======\n\nText two.\n")
    doc = load_file(path).documents[0]
    assert doc.title == "config-vars"
    assert [h.text for h in doc.headings] == ["Format", "Options"]


def test_inline_markup_in_a_title_reads_as_rendered() -> None:
    text = (
        "The ``__init__`` method\n=======================\n\nbody\n\n"
        "**Strong** and `the guide <https://example.org>`_\n------------------\n\nmore\n"
    )
    assert [h.text for h in rst_headings(text)] == ["The __init__ method", "Strong and the guide"]


def test_a_sphinx_page_is_read_as_rendered(tmp_path: Path) -> None:
    # CMake's reference: a version directive over the sentence it dates, roles around names
    page = (
        "add_library\n-----------\n\n.. only:: html\n\n  .. contents::\n\n"
        "Add a library.\n\nNormal Libraries\n^^^^^^^^^^^^^^^^\n\n"
        ".. versionadded:: 3.11\n  The source files can be omitted if they are added\n"
        "  later using :command:`target_sources`.\n"
    )
    path = tmp_path / "add_library.rst"
    path.write_text(page, encoding="utf-8")
    doc = load_file(path).documents[0]
    assert doc.title == "add_library"
    assert ".. " not in doc.text and ":command:" not in doc.text
    line = (
        "New in version 3.11: The source files can be omitted if they are added later using "
        "``target_sources``."
    )
    assert line in doc.text.splitlines()
    chunk = Chunker(chunk_size=120, chunk_overlap=0).split(doc)[-1]
    assert chunk.text.startswith("Normal Libraries") and chunk.text.endswith(line)

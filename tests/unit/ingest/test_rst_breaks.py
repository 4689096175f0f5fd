"""reStructuredText paragraphs joined at their line breaks (`crag.ingest.rst_breaks`): prose
and list items become one line each, everything with lines of its own keeps them."""

from __future__ import annotations

import textwrap

from crag.ingest.chunking import Chunker
from crag.ingest.rst import load_rst
from crag.ingest.rst_breaks import join_rst_breaks


def test_a_paragraph_and_a_list_items_continuation_are_joined() -> None:
    text = (
        "The ``aws s3`` transfer commands have additional\n"
        "configuration values.\n"
        "\n"
        "* ``max_bandwidth`` - The maximum bandwidth that will be\n"
        "  consumed for uploading.\n"
        "* ``max_queue_size`` - The maximum number of tasks.\n"
        "\n"
        "1. First step, which is long\n"
        "   enough to wrap.\n"
    )
    assert join_rst_breaks(text) == (
        "The ``aws s3`` transfer commands have additional configuration values.\n"
        "\n"
        "* ``max_bandwidth`` - The maximum bandwidth that will be consumed for uploading.\n"
        "* ``max_queue_size`` - The maximum number of tasks.\n"
        "\n"
        "1. First step, which is long enough to wrap.\n"
    )


def test_titles_literal_blocks_directives_and_tables_keep_their_lines() -> None:
    text = (
        "Configuration Values\n"
        "====================\n"
        "\n"
        "Below is an example\n"
        "configuration::\n"
        "\n"
        "    [default]\n"
        "    region = us-west-2\n"
        "\n"
        ".. code-block:: python\n"
        "\n"
        "   x = 1\n"
        "   y = 2\n"
        "\n"
        ".. note::\n"
        "   A note body\n"
        "   on two lines.\n"
        "\n"
        "=====  =====\n"
        "name   value\n"
        "=====  =====\n"
        "a      1\n"
        "b      2\n"
        "=====  =====\n"
        "\n"
        "+-----+-----+\n"
        "| a   | b   |\n"
        "+-----+-----+\n"
        "\n"
        "| a line block\n"
        "| of two lines\n"
        "\n"
        ":field: its value\n"
        ":other: more\n"
        "\n"
        "-a, --all    show everything\n"
        "-l           long listing\n"
        "\n"
        ">>> 1 + 1\n"
        "2\n"
    )
    joined = join_rst_breaks(text)
    assert joined == text.replace("example\nconfiguration::", "example configuration::")


def test_a_definition_does_not_join_its_term_and_crlf_stays() -> None:
    text = "term\n    its definition, which\n    wraps.\nnext term\n"
    assert join_rst_breaks(text) == "term\n    its definition, which wraps.\nnext term\n"
    assert join_rst_breaks("one\r\ntwo\r\n") == "one two\r\n"


def test_wrapped_rst_chunks_end_at_sentence_ends() -> None:
    para = " ".join(
        f"Task queue number {n} grows without bound when its consumers are slower than "
        f"its {n} producers."
        for n in range(12)
    )
    wrapped = textwrap.fill(para, 70)
    text = f"Queue size\n==========\n\n{wrapped}\n"
    doc = load_rst("guide.rst", text)[0][0]
    assert doc.headings and doc.headings[0].text == "Queue size"
    chunks = [c for c in Chunker(300, 30).split(doc) if "grows" in c.text]
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.text.rstrip().endswith("."), chunk.text[-60:]

"""reStructuredText as Sphinx renders it (`crag.ingest.rst_render`)."""

from __future__ import annotations

from crag.ingest.rst_render import rendered


def test_version_directives_read_as_their_label_with_their_text() -> None:
    text = (
        "Intro.\n\n.. versionadded:: 3.11\n  The source files can be omitted if they are\n"
        "  added later using :command:`target_sources`.\n\n.. versionadded:: 3.10\n\n"
        "Prepend all the arguments.\n\n.. versionchanged:: 3.2 Ends early now.\n\n"
        ".. deprecated:: 3.0\n   Use the other one.\n"
    )
    assert rendered(text) == (
        "Intro.\n\nNew in version 3.11: The source files can be omitted if they are\n"
        "added later using ``target_sources``.\n\nNew in version 3.10.\n\n"
        "Prepend all the arguments.\n\nChanged in version 3.2: Ends early now.\n\n"
        "Deprecated since version 3.0: Use the other one.\n"
    )


def test_admonitions_wrappers_and_hidden_directives() -> None:
    text = (
        "Title\n-----\n\n.. only:: html\n\n  .. contents::\n\n.. note::\n   Mind the gap.\n\n"
        ".. seealso:: :ref:`exit code <CMake Exit Code>`\n\n.. toctree::\n   :maxdepth: 2\n\n"
        "   intro\n\n.. _label:\n\n.. a comment\n   that runs on\n\n.. |sub| replace:: kept\n\n"
        "Body.\n"
    )
    assert rendered(text) == (
        "Title\n-----\n\n\nNote: Mind the gap.\n\nSee also: exit code\n\n\n\n\n"
        ".. |sub| replace:: kept\n\nBody.\n"
    )


def test_an_admonition_that_says_its_label_is_not_labelled_twice() -> None:
    text = ".. note::\n    Note that the AWS CLI checks uploads.\n"
    assert rendered(text) == "Note that the AWS CLI checks uploads.\n"


def test_code_and_literal_blocks_are_left_as_written() -> None:
    text = (
        ".. code-block:: cmake\n\n  message(:command:`x`)\n\nSee this::\n\n  :func:`y`\n\n"
        "After :func:`~os.path.join` and :py:meth:`!Thing.run`.\n"
    )
    assert rendered(text) == (
        ".. code-block:: cmake\n\n  message(:command:`x`)\n\nSee this::\n\n  :func:`y`\n\n"
        "After ``join`` and ``Thing.run``.\n"
    )
    assert rendered("Use :genex:`$<TARGET_FILE:tgt>` here.") == "Use ``$<TARGET_FILE:tgt>`` here."


def test_text_without_markup_is_unchanged() -> None:
    text = "Plain\n=====\n\nA paragraph with `a link`_ and ``code``.\n\n* item\n"
    assert rendered(text) == text


def test_deeply_nested_directives_stay_as_written_past_a_depth() -> None:
    text = "".join(" " * i + ".. note::\n" for i in range(3000)) + " " * 3000 + "text\n"
    out = rendered(text)  # no RecursionError, in bounded time
    assert out.startswith("Note: " * 16 + ".. note::") and out.rstrip().endswith("text")

"""Markdown paragraphs joined at their soft line breaks, and nothing else."""

from __future__ import annotations

from crag.ingest.soft_breaks import join_soft_breaks


def test_a_wrapped_paragraph_becomes_one_line() -> None:
    text = "The `T` and `E` are generic: we discuss generics in more\ndetail in Chapter 10.\n"
    assert join_soft_breaks(text) == (
        "The `T` and `E` are generic: we discuss generics in more detail in Chapter 10.\n"
    )


def test_paragraphs_stay_apart_and_headings_stand_alone() -> None:
    text = "# Title\nFirst paragraph\nwraps here.\n\nSecond one\nalso wraps.\n## Next\nText."
    assert join_soft_breaks(text) == (
        "# Title\nFirst paragraph wraps here.\n\nSecond one also wraps.\n## Next\nText."
    )


def test_list_items_keep_their_lines_and_take_their_continuations() -> None:
    text = "- item one\n  continues here\n- item two\n1. numbered\n   more\n2) other\n* star"
    assert join_soft_breaks(text) == (
        "- item one continues here\n- item two\n1. numbered more\n2) other\n* star"
    )


def test_code_is_kept_as_it_is() -> None:
    fenced = "Run this:\n\n```\nlet a = 1;\nlet b = 2;\n```\n~~~\nx\ny\n~~~\n"
    indented = "Example:\n\n    line one\n    line two\n\nAfter."
    assert join_soft_breaks(fenced) == fenced
    assert join_soft_breaks(indented) == indented


def test_an_indented_line_after_paragraph_text_continues_it() -> None:
    # CommonMark: indented code cannot interrupt a paragraph; the line is a lazy continuation
    assert join_soft_breaks("Some text\n    more text") == "Some text more text"


def test_tables_html_quotes_rules_and_hard_breaks() -> None:
    table = "| a | b |\n|---|---|\n| c | d |"
    html = "<div>\ninside\n</div>"
    assert join_soft_breaks(table) == table
    assert join_soft_breaks(html) == html
    assert join_soft_breaks("> quoted\nlazy line") == "> quoted lazy line"
    assert join_soft_breaks("Above\n***\nBelow") == "Above\n***\nBelow"
    assert join_soft_breaks("Two spaces  \nbreak") == "Two spaces  \nbreak"
    assert join_soft_breaks("Backslash\\\nbreak") == "Backslash\\\nbreak"


def test_a_setext_heading_keeps_its_own_line() -> None:
    text = "Paragraph line\nHeading\n-------\nText under it\ncontinues."
    assert join_soft_breaks(text) == "Paragraph line\nHeading\n-------\nText under it continues."


def test_windows_line_ends() -> None:
    assert join_soft_breaks("one\r\ntwo\r\n\r\nthree") == "one two\r\n\r\nthree"


def test_text_without_wraps_is_unchanged() -> None:
    text = "# T\n\nOne line.\n\nAnother line.\n"
    assert join_soft_breaks(text) == text

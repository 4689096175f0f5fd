"""Plain text's sections: titles under a rule's underline or after a separator rule
(crag.ingest.text_sections)."""

from __future__ import annotations

from pathlib import Path

from crag.ingest.chunking import Chunker
from crag.ingest.loaders import load_file
from crag.ingest.text_sections import text_headings

RULE = "=" * 78
# the shape of Vim's user manual (usr_02.txt): a rule, the section's title with its tags,
# a blank line, the text
VIM = f"""\
*usr_02.txt*\tFor Vim version 9.0.

The first steps in Vim.

{RULE}
*02.6*\tOther editing commands\t\t\t*edit-commands*

A count always comes before the command it applies to.

{RULE}
*02.7*\tGetting out

To exit, use the "ZZ" command.  This command writes the file and exits.

Unlike many other editors, Vim does not automatically make a backup file.

<
{RULE}
*02.8*\tFinding help

Type ":help" to get help.
"""


def test_a_title_follows_a_separator_rule_its_tags_read_as_names() -> None:
    titles = [h.text for h in text_headings(VIM)]
    assert titles == ["02.6 Other editing commands", "02.7 Getting out", "02.8 Finding help"]
    at = {h.text: h.offset for h in text_headings(VIM)}
    # the section opens at its separator: the rule does not end the section before
    assert VIM[at["02.7 Getting out"] :].startswith(f"{RULE}\n*02.7*\tGetting out")


def test_an_underlined_line_is_a_title_a_paragraph_after_a_rule_is_not() -> None:
    news = "What's New in IDLE 3.11.0\n=========================\nbpo-1: Fix a bug.\n"
    assert [h.text for h in text_headings(news)] == ["What's New in IDLE 3.11.0"]
    rule = "-" * 30
    text = f"Intro.\n\n{rule}\nFirst line of a paragraph\nwrapped onto a second.\n"
    assert text_headings(text) == []  # no blank line after it: a paragraph, not a title
    boxed = f"{rule}\nReporting Bugs\n{rule}\n\nText.\n"
    assert [h.text for h in text_headings(boxed)] == ["Reporting Bugs"]  # found once
    assert text_headings("No rules here.\n\nJust text.\n") == []
    # a title of up to three lines stacked above its underline; a paragraph's last line only
    idle = "Intro.\n\nWhat's New in IDLE 3.8.0\nReleased on 2019-10-14\n=====================\n"
    assert [h.text for h in text_headings(idle)] == [
        "What's New in IDLE 3.8.0 Released on 2019-10-14"
    ]
    assert idle[text_headings(idle)[0].offset :].startswith("What's New")
    para = "one\ntwo\nthree\nfour\nThe last line\n-------------\n"
    assert [h.text for h in text_headings(para)] == ["The last line"]
    long = "x" * 120
    assert text_headings(f"{long}\n{'=' * 120}\n\nbody\n") == []  # too long for a title


def test_plain_text_chunks_stop_at_sections_and_carry_them(tmp_path: Path) -> None:
    """In Vim's manual a chunk ran from one section's last sentence over the rule into the
    next section's title and text: the "ZZ" chunk then opened with another section's end."""
    path = tmp_path / "usr_02.txt"
    path.write_text(VIM, encoding="utf-8")
    doc = load_file(path).documents[0]
    assert doc.title == "usr_02"
    chunks = Chunker(chunk_size=400, chunk_overlap=0).split(doc)
    assert all(doc.text[c.start : c.end] == c.text for c in chunks)
    exit_chunk = next(c for c in chunks if "ZZ" in c.text)
    assert exit_chunk.text.startswith(f"{RULE}\n*02.7*\tGetting out")
    assert "count always comes" not in exit_chunk.text
    assert not any(c.text.strip("=\n<") == "" for c in chunks)  # no chunk of rules alone
    small = Chunker(chunk_size=120, chunk_overlap=0).split(doc)
    heading = {c.text.splitlines()[0]: c.metadata.get("heading") for c in small}
    backup = "Unlike many other editors, Vim does not automatically make a backup file."
    assert heading[backup] == "02.7 Getting out"  # a chunk inside the section names it

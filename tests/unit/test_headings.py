"""The heading path a Markdown chunk stands in, and HTML comments a page does not show."""

from __future__ import annotations

from crag.headings import (
    Headings,
    heading_text,
    inline_text,
    link_text,
    sections,
    strip_comments,
)
from crag.ingest.chunking import Chunker
from crag.ingest.documents import load_html, load_markdown

DOC = """---
title: front matter
---
# Query string

Intro text.

## `querystring.parse(str[, sep])`

Parses a string.

```bash
# not a heading: a comment in a shell example
```

### Options of *parse*

* `sep` {string} **Default:** `'&'`.

## querystring.stringify

Serializes [an object](https://example.org) with `SCHED_RR`.

Setext section
--------------

Under it.
"""


def _at(text: str, needle: str) -> int:
    return text.index(needle)


def test_the_path_is_the_headings_above_the_offset_without_the_title() -> None:
    h = Headings(DOC, "Query string")
    assert h.path(_at(DOC, "Intro text")) == ""
    assert h.path(_at(DOC, "Parses a string")) == "querystring.parse(str[, sep])"
    assert h.path(_at(DOC, "* `sep`")) == "querystring.parse(str[, sep]) › Options of parse"
    # a "# comment" inside a fenced block is no heading
    assert "not a heading" not in h.path(_at(DOC, "* `sep`"))
    # a later section at the same level replaces the one before, and its subsections go
    assert h.path(_at(DOC, "Serializes")) == "querystring.stringify"
    assert h.path(_at(DOC, "Under it")) == "Setext section"
    assert Headings("no headings at all").path(5) == ""


def test_a_chunk_that_opens_with_a_heading_is_under_the_sections_above_it() -> None:
    h = Headings(DOC, "Query string")
    assert h.path(_at(DOC, "### Options")) == "querystring.parse(str[, sep])"
    assert h.path(_at(DOC, "## querystring.stringify")) == ""


def test_a_text_is_cut_at_its_headings_without_their_lines() -> None:
    got = sections("Lead.\n\n## One\n\nFirst.\n\nSetext\n======\n\nSecond.\n\n### Empty\n")
    assert got == [("", "Lead.\n\n"), ("One", "\nFirst.\n\n"), ("Setext", "\nSecond.\n\n"),
                   ("Empty", "")]  # fmt: skip
    assert sections("No headings.") == [("", "No headings.")]


_CODE = "Lead.\n\n```\nx = 1\n# not a heading\n```\n\n## After\n\nText.\n"


def test_a_text_cut_from_inside_a_code_block_reads_its_closing_fence_as_one() -> None:
    inside = _CODE[_CODE.index("# not") :]  # a chunk that starts in the code
    # its comment read as a heading, its closing fence as an opener: "After" was code
    assert [h for h, _ in sections(inside)] == ["not a heading"]
    assert [h for h, _ in sections(inside, "```")] == ["", "After"]


def test_the_fence_in_force_at_an_offset() -> None:
    h = Headings(_CODE)
    assert h.fence_at(_at(_CODE, "x = 1")) == "```"
    assert h.fence_at(_at(_CODE, "# not")) == "```"
    assert h.fence_at(_at(_CODE, "```\n\n## After")) == "```"  # the closing fence's line
    assert h.fence_at(_at(_CODE, "Lead")) == ""
    assert h.fence_at(_at(_CODE, "## After")) == ""
    assert h.fence_at(_at(_CODE, "Text")) == ""
    unclosed = "Lead.\n\n~~~\ncode\n"
    assert Headings(unclosed).fence_at(_at(unclosed, "code")) == "~~~"


def test_a_setext_heading_is_its_whole_short_paragraph() -> None:
    """A plain-text changelog wraps its title: the release's number is on its first line, its
    date on the last. Read as the last line alone, every strip of the section said "Released
    on 2022-10-24." and no release; a long paragraph still gives only its last line."""
    news = "What's New in IDLE 3.11.0\n(since 3.10.0)\nReleased on 2022-10-24\n=====\n\nFix.\n"
    assert sections(news) == [
        ("What's New in IDLE 3.11.0 (since 3.10.0) Released on 2022-10-24", "\nFix.\n")
    ]
    para = "one\ntwo\nthree\nfour\nLast line\n---------\n\nBody.\n"
    assert sections(para) == [("", "one\ntwo\nthree\nfour\n"), ("Last line", "\nBody.\n")]


def test_headings_read_as_rendered_and_stay_short() -> None:
    assert heading_text("`fs.readFile(path)` and **bold** [link](http://x) ![img](i.png)") == (
        "fs.readFile(path) and bold link img"
    )
    assert heading_text("cluster.SCHED_RR") == "cluster.SCHED_RR"
    # a permalink sign after the heading (Node.js "#", Sphinx "¶") and escapes are not read
    assert heading_text("`querystring.escape(str)`#") == "querystring.escape(str)"
    assert heading_text("Installation ¶") == "Installation"
    assert heading_text(r"Options \<string\>") == "Options <string>"
    assert len(heading_text("word " * 100)) == 120


def test_inline_text_reads_as_the_page_and_keeps_code_and_types() -> None:
    readme = (
        '<p align="center"><strong>HTTPX</strong></p> Rich uses the [pygments](https://'
        "pygments.org/) library, see [the docs][]. **NOTE**: `pip install httpx[http2]`"
    )
    assert inline_text(readme) == (
        "HTTPX Rich uses the pygments library, see the docs. **NOTE**: `pip install httpx[http2]`"
    )
    assert inline_text("call `__init__` or __NOMAGIC__") == "call `__init__` or __NOMAGIC__"
    # a reference link whose label is its text; Wikipedia's bracketed notes are no links
    assert inline_text("[Granian][granian] serves it.[citation needed][note 1]") == (
        "Granian serves it.[citation needed][note 1]"
    )
    # only a README's HTML tags go: a type in prose is no tag
    assert inline_text("It returns a List<String>, or <b>none</b>.") == (
        "It returns a List<String>, or none ."
    )


def test_html_comments_are_removed_and_an_unclosed_one_is_left() -> None:
    text = "Before <!-- YAML\nadded: v0.1.0\n--> after <!-- unclosed"
    assert strip_comments(text) == "Before  after <!-- unclosed"


def test_markdown_chunks_carry_their_heading_path() -> None:
    body = (
        "# Manual\n\n## Install\n\n"
        + "Install it with the package manager. " * 20
        + ("\n\n<!-- hidden note -->\n\nThe last step restarts the service.")
    )
    (doc,), _ = load_markdown("m.md", body)
    assert "hidden note" not in doc.text
    chunks = Chunker(200, 0).split(doc)
    under = [c for c in chunks if c.text.startswith(("Install it", "The last step"))]
    assert len(under) >= 2 and all(c.metadata["heading"] == "Install" for c in under)
    # the title's chunk and the one opening with "## Install" stand under no section
    assert all("heading" not in c.metadata for c in chunks if c.text.startswith("#"))
    assert all(doc.text[c.start : c.end] == c.text for c in chunks)


PAGE = """<html><head><title>Harbour manual</title></head><body><article>
<h1>Harbour manual</h1>
<p>How the harbour office runs its days, from the first ferry to the last.</p>
<h2>Opening hours</h2>
<p>{long}</p>
<p>The office closes at nine on Sundays.</p>
</article></body></html>"""


def test_an_html_page_keeps_its_sections_as_markdown() -> None:
    long = "The harbour office opens at seven and answers questions about moorings. " * 8
    (doc,), _ = load_html("manual.html", PAGE.format(long=long))
    assert doc.format == "markdown" and doc.title == "Harbour manual"
    chunks = Chunker(200, 0).split(doc)
    sunday = next(c for c in chunks if "Sundays" in c.text)
    assert "Opening hours" not in sunday.text
    assert sunday.metadata["heading"] == "Opening hours"


def test_heading_starts_are_where_their_lines_start() -> None:
    text = "# Title\n\nIntro.\n\nSection\n-------\n\nBody.\n"
    assert Headings(text).starts == [0, text.index("Section")]


def test_link_text_scores_a_link_by_its_text_and_leaves_other_text_alone() -> None:
    licence = "Distributed under the [Apache 2.0 license](https://www.apache.org/licenses/)."
    assert link_text(licence) == "Distributed under the Apache 2.0 license."
    assert link_text("![logo](l.png) [docs](https://x.dev)") == "logo docs"
    plain = "A list [1] and [note 2][note 1] and <Ol> tags"
    assert link_text(plain) is plain


def test_title_heading_skips_fences_and_front_matter() -> None:
    from crag.headings import title_heading

    assert title_heading("```yaml\n# .travis.yml\n```\n\n## Two\n\n# The *title*\n") == "The title"
    assert title_heading("---\n# not: a heading\n---\nText\n====\n") == "Text"
    assert title_heading("## Only level two\n") == ""


def test_a_rule_that_opens_a_page_is_no_front_matter() -> None:
    # a "---" with no closing line within the front matter's bound is a thematic break: before,
    # every heading of the page was skipped as front matter
    page = "---\n\n# Harbour guide\n\n## Ferries\n\nThey run hourly.\n"
    assert [h for h, _ in sections(page)] == ["", "Harbour guide", "Ferries"]
    late = "---\n" + "line\n" * 250 + "---\n\n## Late\n\nText.\n"
    assert "Late" in [h for h, _ in sections(late)]
    assert [h for h, _ in sections("---\ntitle: x\n---\n\n## Real\n\nText.\n")] == ["", "Real"]

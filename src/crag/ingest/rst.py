"""reStructuredText loader: the text as it is, with its section titles as headings.

Why: a `.rst` manual (Sphinx projects, Python packages, the AWS CLI's topics) names each
section by a title underlined with punctuation, and the section's text often does not repeat
it: under "max_queue_size / --------------" the AWS CLI's S3 guide says only "**Default** -
``1000``". Read as plain text, a chunk that starts below the title loses the name of what it
describes. The titles found here become the Document's `headings`, so each chunk stores the
heading path it starts in, as for Markdown (`crag.headings`) and a PDF's outline.

What counts as a section title (docutils' rules, leniently): a line of text, not indented,
after a blank line (or at the start), underlined — and optionally overlined — by one
punctuation character repeated at least three times; an overline must match its underline.
Levels are not fixed by the character: as in docutils, each style (character, with or without
overline) takes the next level the first time it appears. A line of punctuation between blank
lines is a transition, not a title; a simple table's `==== ====` border has spaces and is not
one either. A lone title of the top level is the document's title, as docutils makes it.
"""

from __future__ import annotations

import re

from crag.errors import LoaderError
from crag.ingest.doc_names import name_title
from crag.ingest.rst_breaks import adornment, join_rst_breaks
from crag.ingest.rst_render import rendered
from crag.types import Document, Heading

__all__ = ["load_rst", "rst_headings"]

_INLINE = re.compile(r"(``|`|\*\*|\*)(\S(?:.*?\S)?)\1")
# `a phrase`_ or `a phrase <https://…>`_: a hyperlink reference, read as its phrase
_REFERENCE = re.compile(r"`([^`<]+?)\s*(?:<[^>]*>)?`__?")


def _plain(title: str) -> str:
    """A title as it reads rendered: ``literal``, `interpreted`, **strong** and *emphasis*
    and a `phrase reference`_ reduced to their text; underscores inside words
    (`max_queue_size`, `__init__`) kept, as reStructuredText keeps them."""
    text = _REFERENCE.sub(r"\1", title)
    text = _INLINE.sub(r"\2", text)
    return " ".join(text.split())


def rst_headings(text: str) -> list[Heading]:
    """The section titles of reStructuredText `text`, in order, each at the offset of its
    first line (the overline, where there is one)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    bare = [line.rstrip("\r\n") for line in lines]
    levels: dict[tuple[str, bool], int] = {}
    out: list[Heading] = []
    i = 0
    while i + 1 < len(bare):
        title, under = bare[i], adornment(bare[i + 1])
        overlined = bool(under) and i > 0 and adornment(bare[i - 1]) == under
        first = i - 1 if overlined else i  # the title's first line: its overline, if any
        opens = first == 0 or not bare[first - 1].strip()  # after a blank line
        if under and title.strip() and not title[0].isspace() and not adornment(title) and opens:
            style = (under, overlined)
            level = levels.setdefault(style, len(levels) + 1)
            out.append(Heading(starts[first], level, _plain(title)))
            i += 2
            continue
        i += 1
    return out


def load_rst(path: str, text: str) -> tuple[list[Document], list[str]]:
    """One Document, its section titles as `headings`. Its title is the first section title
    where no other title shares its level (docutils promotes such a lone top title to the
    document's title), else the file name."""
    if not text.strip():
        raise LoaderError(path, "no text")
    # directives and roles as Sphinx shows them (`crag.ingest.rst_render`), then paragraphs on
    # one line, as rendered (chunks end at stops)
    text = join_rst_breaks(rendered(text))
    headings = rst_headings(text)
    top = [h for h in headings if h.level == headings[0].level]
    title = headings[0].text if len(top) == 1 else name_title(path)
    return [
        Document(source=path, doc_id="text", text=text, title=title, headings=tuple(headings))
    ], []

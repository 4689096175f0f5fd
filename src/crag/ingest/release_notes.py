"""Release notes' sections: a Debian changelog's entries, a GNU NEWS file's outline.

Why: the answer to "In which release did X change?" is the heading a change is listed under,
not a word of the change. A Debian changelog opens each entry with one line,
"tzdata (2025b-0+deb12u1) bookworm; urgency=medium", and lists its changes below it; GNU NEWS
files (coreutils, sed, gzip, grep, diffutils …) are Emacs outlines, "* Noteworthy changes in
release 4.9 (2022-11-06) [stable]" over "** Bug fixes" over the changes. Read as plain text,
a chunk from the middle of a release held its changes without the release they came in, and
the chunk that had the heading was about other changes. As headings, each chunk stops at its
release and stores the release it stands in (`crag.headings`), which the reranker and the
reader see beside its text (`crag.titles`).

What counts, so that no other text is cut by mistake:
- a Debian changelog entry: a line at the left margin in the form Debian policy gives it,
  "package (version) distribution(s); urgency=…"; its title is that line without the
  urgency ("tzdata (2025b-0+deb12u1) bookworm");
- an outline heading: a line of one or more `*` at the left margin, a space and a title, in
  a file whose first line declares it an outline ("-*- outline -*-"). Stars are bullets in
  other text, so nothing else is read as an outline; nor is GNU tar's NEWS, which says
  "mode: outline" only at its end and writes its releases as plain lines ("version 1.34 -
  …") above one starred line per change: as headings, the changes would lose their release.
  The number of stars is the level.
"""

from __future__ import annotations

import re

from crag.types import Heading

__all__ = ["release_headings"]

_DEBIAN_ENTRY = re.compile(
    r"^([a-z0-9][a-z0-9+.-]+ \([^()\s]+\)(?: [A-Za-z0-9][\w.+/-]*)+);[ \t]*urgency=\w+.*$",
    re.MULTILINE,
)
_OUTLINE_MODE = re.compile(r"-\*-.*\boutline\b.*-\*-")
_OUTLINE_HEADING = re.compile(r"^(\*+)[ \t]+(\S.{0,199}?)[ \t]*$", re.MULTILINE)


def release_headings(text: str) -> list[Heading]:
    """The entries of a Debian changelog or the headings of a declared outline, in order at
    the offsets of their lines; none for any other text."""
    entries = [Heading(m.start(), 1, m.group(1)) for m in _DEBIAN_ENTRY.finditer(text)]
    if entries:
        return entries
    first_line = text[: text.find("\n")] if "\n" in text else text
    if _OUTLINE_MODE.search(first_line):
        return [
            Heading(m.start(), len(m.group(1)), m.group(2)) for m in _OUTLINE_HEADING.finditer(text)
        ]
    return []

"""Markdown paragraphs on one line each: a soft line break is a space.

Why: Markdown files, and the Markdown trafilatura makes of a web page, keep their writer's
line wraps (the Rust book's pages and Node.js's docs wrap at 80 columns). In CommonMark a line
ending inside a paragraph is a *soft break*, which a browser shows as a space. The splitters
see a line break, though, and rank it above a sentence end, so a chunk ended at a wrap in the
middle of a sentence ("… We'll discuss generics in more" / "detail in Chapter 10."). Joining
the wraps gives the text the page shows; the chunker then cuts it at headings and splits it
as text, so chunks end where sentences do (`crag.ingest.chunking`: 12 % of the Rust book's
chunks ended mid-sentence, 0.2 % now).

Only paragraph text is joined, as CommonMark reads it: nothing inside fenced or indented code,
no line that opens a block (heading, fence, quote, list item, table row, HTML, thematic break
or setext underline) and no line after a hard break (two trailing spaces or a backslash). A
list item's continuation lines join their item.
"""

from __future__ import annotations

import re

from crag.headings import opens_fence

__all__ = ["join_soft_breaks"]

# a line that opens a block of its own (or underlines a setext heading)
_OPENS_BLOCK = re.compile(
    r"^ {0,3}(?:#{1,6}(?:\s|$)|[>|<]|[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|=+\s*$|-+\s*$"
    r"|(?:\*\s*){3,}$|(?:_\s*){3,}$)"
)
_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)\s*$")  # a setext heading's: its line stays its own
# a line that joins nothing after it: heading, table row, HTML, rule, setext underline
_STANDS_ALONE = re.compile(
    r"^ {0,3}(?:#{1,6}(?:\s|$)|[|<]|=+\s*$|(?:-\s*){3,}$|(?:\*\s*){3,}$|(?:_\s*){3,}$|-+\s*$)"
)


def _indented(line: str) -> bool:
    return line.startswith(("    ", "\t"))


def join_soft_breaks(text: str) -> str:
    """`text` with each Markdown paragraph's soft line breaks replaced by a space."""
    out: list[str] = []
    fence = ""
    code = False  # inside an indented code block
    joinable = False  # the last line written is paragraph text a next line may continue
    lines = text.split("\n")
    for number, line in enumerate(lines):
        bare = line.rstrip("\r")
        if fence:
            if bare.strip().startswith(fence):
                fence = ""
            out.append(line)
            continue
        if fence := opens_fence(bare):
            out.append(line)
            joinable = code = False
            continue
        if not bare.strip():
            out.append(line)
            joinable = False
            continue
        if _indented(bare) and (code or not joinable):
            code = True  # after a blank line (or more code): indented code, kept as it is
            out.append(line)
            continue
        code = False
        underlined = number + 1 < len(lines) and bool(_UNDERLINE.match(lines[number + 1]))
        if joinable and not underlined and not _OPENS_BLOCK.match(bare):
            end = "\r" if line.endswith("\r") else ""  # a Windows line end stays one
            out[-1] = f"{out[-1].rstrip()} {bare.strip()}{end}"
        else:
            out.append(line)
        joinable = not _STANDS_ALONE.match(bare) and not _hard_break(bare)
    return "\n".join(out)


def _hard_break(line: str) -> bool:
    return line.endswith(("  ", "\\"))

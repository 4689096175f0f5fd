"""reStructuredText paragraphs on one line each: a line break inside a paragraph is a space.

Why: as with Markdown (`crag.ingest.soft_breaks`), a `.rst` manual keeps its writer's line wraps
(the AWS CLI's topic guides and Python's docs wrap at 79 columns), docutils renders them as
spaces, and the chunker's splitter ranks a line break above a sentence end: 8.5 % of the AWS
CLI topics' chunks ended in the middle of a sentence ("… the task queue size is" / "bounded").

Only paragraph text is joined, as docutils reads it, and only where that is unambiguous:

- lines of one paragraph share their indentation; a list item's continuation lines are
  indented to its text and join it (`* max_bandwidth - The maximum bandwidth that will be` /
  `  consumed …`); a definition, indented below its term, does not join the term;
- nothing is joined inside a literal block (after a paragraph ending in `::`), a directive,
  comment or target (`.. code-block::`, `.. note::`, `.. _label:`, and everything indented
  below it), a table (grid or simple) or a line block (`| `);
- a line that opens a block (bullet, enumerator, field `:name:`, option `-x`/`--long`, doctest
  `>>>`) starts a new line, and a section title (a line with its underline) stays on its own.
"""

from __future__ import annotations

import re

__all__ = ["adornment", "indent_of", "join_rst_breaks"]

_ADORNMENT = re.compile(r"""^([!-/:-@\[-`{-~])\1{2,}[ \t]*$""")  # one punctuation char, ≥ 3
_SIMPLE_TABLE = re.compile(r"^\s*=+(?:[ \t]+=+)+\s*$")  # "=====  ======"
_GRID = re.compile(r"^\s*[+|]")  # a grid table's border or row, or a line block
_EXPLICIT = re.compile(r"^\s*\.\.(?:\s|$)")  # directive, comment, target, footnote
# the start of a line that opens a block of its own: bullet, enumerator, field, option,
# doctest; the group is the marker whose width indents the item's continuation lines
_OPENS = re.compile(
    r"^\s*((?:[-*+•‣⁃](?=\s))|(?:(?:\d+|#|[a-zA-Z])[.)]|\((?:\d+|#|[a-zA-Z])\))(?=\s)"
    r"|:[^:\s][^:]*:(?=\s|$)|--?\w|>>>)"
)


def adornment(line: str) -> str:
    """The character a line of adornment (a title's underline or overline, a transition)
    repeats; "" when the line is not one."""
    m = _ADORNMENT.match(line)
    return m.group(1) if m else ""


def indent_of(line: str) -> int:
    """The width of a line's leading spaces and tabs."""
    return len(line) - len(line.lstrip(" \t"))


def _is_title(lines: list[str], i: int) -> bool:
    """Line `i` is a section title's text: an adornment line follows it."""
    return i + 1 < len(lines) and bool(adornment(lines[i + 1].rstrip("\r")))


def _continues_at(line: str, indent: int, opens: re.Match[str] | None) -> int:
    """The indentation of a line that continues `line`'s paragraph (-1: none may): a list
    item's text column, a paragraph's own indentation. Fields, options and doctests keep
    their lines (their bodies align in more than one way)."""
    if opens is None:
        return indent
    marker = opens.group(1)
    if marker[0] in ":>" or (marker[0] == "-" and len(marker) > 1):
        return -1
    text = re.match(r"\s*\S+\s+", line)
    return len(text.group(0)) if text else -1


def join_rst_breaks(text: str) -> str:
    """`text` with each reStructuredText paragraph's line breaks replaced by a space."""
    lines = text.split("\n")
    out: list[str] = []
    verbatim = -1  # inside a literal block, directive or table: lines indented deeper stay
    table = False  # inside a simple table: until a blank line after a border
    column = -1  # the indentation a line needs to continue the paragraph above (-1: none)
    for i, line in enumerate(lines):
        bare = line.rstrip("\r")
        if table:
            out.append(line)
            if not bare.strip() and out[-2:-1] and _SIMPLE_TABLE.match(out[-2].rstrip("\r")):
                table = False
            continue
        if not bare.strip():
            out.append(line)
            column = -1
            continue
        indent = indent_of(bare)
        if verbatim >= 0 and indent > verbatim:
            out.append(line)
            continue
        verbatim = -1
        special = adornment(bare) or _GRID.match(bare) or _is_title(lines, i)
        if _SIMPLE_TABLE.match(bare):
            table, column = True, -1
            out.append(line)
            continue
        if _EXPLICIT.match(bare):
            verbatim, column = indent, -1
            out.append(line)
            continue
        opens = _OPENS.match(bare)
        if column == indent and not special and not opens:
            end = "\r" if line.endswith("\r") else ""  # a Windows line end stays one
            out[-1] = f"{out[-1].rstrip()} {bare.strip()}{end}"
        else:
            out.append(line)
            column = -1 if special else _continues_at(bare, indent, opens)
        if bare.rstrip().endswith("::"):
            verbatim, column = indent, -1  # a literal block follows, indented below
    return "\n".join(out)

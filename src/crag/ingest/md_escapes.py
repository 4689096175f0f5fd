"""The backslashes trafilatura writes into a page's Markdown before inline syntax characters,
taken out again where they cannot make syntax.

Why: trafilatura escapes every `<`, `_`, `*`, `~`, `[` and `]` of a page's prose so that a
Markdown renderer shows them as written. crag does not render Markdown: it reads, searches,
quotes and cites the text. Kept, the escapes were read as part of the words: a question about
`gcc_jit_context_new_cast` searched for a word the chunk spells `gcc\\_jit\\_context\\_new\\_cast`,
an answer was quoted as "ms\\_print [1]", a mail address as "\\<doko@debian.org>". Over 292 HTML
manuals on one machine they were 2.2 % of the characters of the text (a `\\<` or a `\\_` in every
other line of a C API's reference).

Left as they are: escapes inside code (trafilatura writes none there, so a backslash in code is
the page's own), an escape at the start of a line (unescaped, "\\* note" would turn into a list
item), and the escapes of the characters that would open block syntax or a code span (`#`, `>`,
`-`, `+`, a number's `.`, `` ` ``).
"""

from __future__ import annotations

import re

__all__ = ["unescape_inline"]

# A fence line opens or closes a code block; `...` is a code span (one line).
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)[^`\n]*?\1")
# An inline character after a run of backslashes: trafilatura writes k backslashes of the page
# before it as 2k, and adds one (an even run is not its escape: left alone).
_ESCAPED = re.compile(r"(\\+)([<_*~\[\]])")


def unescape_inline(markdown: str) -> str:
    """`markdown` with trafilatura's inline escapes removed outside code."""
    if "\\" not in markdown:
        return markdown
    lines = markdown.split("\n")
    fenced = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and "\\" in line:
            lines[i] = _outside_code(line)
    return "\n".join(lines)


def _outside_code(line: str) -> str:
    """The line with its escapes removed, its code spans as they are."""
    pieces, last = [], 0
    for span in _CODE_SPAN.finditer(line):
        pieces.append(_unescape(line, last, span.start()))
        pieces.append(span.group(0))
        last = span.end()
    pieces.append(_unescape(line, last, len(line)))
    return "".join(pieces)


def _unescape(line: str, start: int, end: int) -> str:
    """`line[start:end]` unescaped, but for an escape that opens the line."""

    def char(match: re.Match[str]) -> str:
        run = match.group(1)
        if len(run) % 2 == 0 or not line[: start + match.start()].strip(" \t"):
            return match.group(0)
        return "\\" * (len(run) // 2) + match.group(2)

    return _ESCAPED.sub(char, line[start:end])

"""The backslashes trafilatura writes into a page's Markdown before inline syntax characters,
taken out again where they cannot make syntax.

Why: trafilatura escapes every `<`, `_`, `*`, `~`, `[` and `]` of a page's prose so that a
Markdown renderer shows them as written. crag does not render Markdown: it reads, searches,
quotes and cites the text. Kept, the escapes stood inside the words: keyword search read
`gcc\\_jit\\_context\\_new\\_cast` as the terms "gcc", "_jit", "_context", … and a question's
`gcc_jit_context_new_cast` as one term, so they never met; an answer was quoted as
"ms\\_print [1]", a mail address as "\\<doko@debian.org>". The 291 HTML pages of this machine's
`/usr/share/doc` held 32,234 such escapes; 621 are left (at line starts, and in code).

Left as they are: escapes inside code (trafilatura writes none there, so a backslash in code is
the page's own), an escape at the start of a line (unescaped, "\\* note" would turn into a list
item), and the escapes of the characters that would open block syntax or a code span (`#`, `>`,
`-`, `+`, a number's `.`, `` ` ``).
"""

from __future__ import annotations

import re

__all__ = ["unescape_inline"]

# A fence opens or closes a code block; `...` is a code span (one line).
_FENCE = "```"
_CODE_SPAN = re.compile(r"(`+)[^`\n]*?\1")
# An inline character after a run of backslashes: trafilatura writes k backslashes of the page
# before it as 2k, and adds one (an even run is not its escape: left alone).
_ESCAPED = re.compile(r"(\\+)([<_*~\[\]])")


def unescape_inline(markdown: str) -> str:
    """`markdown` with trafilatura's inline escapes removed outside code. A fence opens or
    closes code wherever trafilatura wrote it: at a line's start, or after text on the line
    ("… magic bytes (```")."""
    if "\\" not in markdown:
        return markdown
    lines = markdown.split("\n")
    fenced = False
    for i, line in enumerate(lines):
        pieces = line.split(_FENCE)
        for k in range(len(pieces)):
            inside = fenced != (k % 2 == 1)
            if not inside and "\\" in pieces[k]:
                pieces[k] = _outside_code(pieces[k], at_start=k == 0)
        fenced = fenced != (len(pieces) % 2 == 0)
        lines[i] = _FENCE.join(pieces)
    return "\n".join(lines)


def _outside_code(line: str, at_start: bool = True) -> str:
    """The line (or the part of it after a fence: not `at_start`) with its escapes removed,
    its code spans as they are."""
    pieces, last = [], 0
    for span in _CODE_SPAN.finditer(line):
        pieces.append(_unescape(line, last, span.start(), at_start))
        pieces.append(span.group(0))
        last = span.end()
    pieces.append(_unescape(line, last, len(line), at_start))
    return "".join(pieces)


def _unescape(line: str, start: int, end: int, at_start: bool) -> str:
    """`line[start:end]` unescaped, but for an escape that opens the line."""

    def char(match: re.Match[str]) -> str:
        run = match.group(1)
        opens = at_start and not line[: start + match.start()].strip(" \t")
        if len(run) % 2 == 0 or opens:
            return match.group(0)
        return "\\" * (len(run) // 2) + match.group(2)

    return _ESCAPED.sub(char, line[start:end])

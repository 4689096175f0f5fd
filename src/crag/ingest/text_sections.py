"""Plain text's sections: the line after a rule of one repeated character is a section's title.

Why: plain-text manuals separate their sections by a rule — Vim's help files by a line of 78
"=" before each section's title ("*02.7*	Getting out"), RFC-like texts and changelogs by
"-----" or "=====". Read without headings, the chunker packed a section's last sentence, the
rule and the next section's title and first paragraph into one chunk; in Vim's user manual the
chunk that says 'To exit, use the "ZZ" command' opened with the end of the section before it,
and the reranker left it out of the five it keeps. The titles found here become the
Document's `headings`, so chunks stop at them and store the section they stand in, as for
Markdown, reStructuredText and a PDF's outline.

What counts: a line of at least ten of one character among `= - * # ~ _` and nothing else (a
*rule*). A rule right under a line underlines it: that line is a title ("What's New in IDLE" /
"=================="), with the lines stacked above it, up to three after a blank line
(IDLE's changelog: "What's New in IDLE 3.8.0 (since 3.7.0)" / "Released on 2019-10-14" /
"====": the release's number is in the first line, its date in the second). A rule after a
blank line separates sections: the line after it (after one blank line at most) is a title
when a blank line follows it ("*02.7*	Getting out"), and the first line of a paragraph when
none does; the section opens at the rule, so a rule never ends the section before it. A title
line has at most 100 characters and a letter or digit (Vim's "<", which closes an example, is
none). Its Vim help tags read as their names ("*02.7*" → "02.7"), and tags after its text are
dropped ("*05.1*	The vimrc file	*vimrc-intro*" → "05.1 The vimrc file"). Every title has
level 1: plain text says nothing of nesting. A file without such rules gets no headings and
is read as before.
"""

from __future__ import annotations

import re

from crag.types import Heading

__all__ = ["text_headings"]

_RULE = re.compile(r"^([=\-*#~_])\1{9,}[ \t]*$")
_TRAILING_TAGS = re.compile(r"(?:\s+\*[^*\s|]+\*)+\s*$")
_TAG = re.compile(r"\*([^*\s|]+)\*")
_ALNUM = re.compile(r"[^\W_]")
MAX_TITLE = 100
MAX_LINES = 3  # lines of a title stacked above its underline


def _title(line: str) -> str:
    text = _TRAILING_TAGS.sub("", line.strip())
    return " ".join(_TAG.sub(r"\1", text).split())


def _blank(line: str) -> bool:
    return not line.strip()


def _titled(line: str) -> bool:
    """The line can be a title: it has a letter or digit (Vim's "<", which closes an example
    before a rule, is none)."""
    return bool(_ALNUM.search(line)) and not _is_rule(line)


def _block_start(lines: list[str], last: int) -> int:
    """The first line of an underlined title: up to `MAX_LINES` lines stacked above the
    underline after a blank line ("What's New in IDLE 3.8.0 (since 3.7.0)" / "Released on
    2019-10-14" / "====…"); of a longer block, a paragraph's, only the last line."""
    first = last
    while first > 0 and _titled(lines[first - 1]) and len(lines[first - 1].strip()) <= MAX_TITLE:
        first -= 1
        if last - first >= MAX_LINES:
            return last
    return first


def _is_rule(line: str) -> bool:
    return bool(_RULE.match(line.rstrip("\r\n")))


def text_headings(text: str) -> list[Heading]:
    """The section titles of plain `text`, in order, each at the offset where its section
    opens: its own line, or the separator rule before it."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    found: dict[int, tuple[int, str]] = {}  # title's line → (where its section opens, title)
    for i, line in enumerate(lines):
        if not _is_rule(line):
            continue
        opens = i  # a separator opens the section: the rule is not left ending the last one
        if i > 0 and _titled(lines[i - 1]):
            at = opens = _block_start(lines, i - 1)  # an underline: "What's New\n=========="
        elif i > 0 and _is_rule(lines[i - 1]):
            continue
        else:  # a separator: the title follows it (after one blank line at most)
            at = i + 2 if i + 2 < len(lines) and _blank(lines[i + 1]) else i + 1
            after = lines[at + 1] if at + 1 < len(lines) else ""
            if at >= len(lines) or _is_rule(lines[at]) or not _blank(after):
                continue  # an overline (its underline finds the title) or a paragraph
        if _titled(lines[at]) and len(lines[at].strip()) <= MAX_TITLE:
            block = lines[at:i] if opens == at and at < i - 1 else [lines[at]]
            found[at] = (starts[opens], _title(" ".join(block)))
    return [Heading(offset, 1, title) for _, (offset, title) in sorted(found.items())]

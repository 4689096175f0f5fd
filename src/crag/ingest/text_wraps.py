"""Plain text's hard line wraps undone where a sentence runs on.

Why: a text file wrapped at a fixed width (a man page saved as text, an RFC, a README.txt, a
book from Project Gutenberg) breaks every sentence across lines, and the splitter ranks a line
break above a sentence end: 10 % of the chunks of twenty man pages saved as text ended in the
middle of a sentence ("… the standard input is compressed to the standard" | "output."), and
a quote could start mid-sentence.

Plain text says nothing about its layout, and a log, a table or a list must keep its lines.
So a line break is undone only where the text shows a sentence running on: the line is as
long as a full line of the file (at least `WRAPPED` of the 90th percentile of its line
lengths: it broke because it reached the margin), the next line has the same indentation, and
it continues in lower case ("… to the  standard" / "output."). A word the typesetter
hyphenated across the break is joined ("par‐" / "ticular"; after a plain "-", which may be
the word's own, the hyphen stays: "well-known"). A line that a capital, digit or sign opens
keeps its break (a log record, a list item, a new sentence): a few wraps stay, never a record
merged.
"""

from __future__ import annotations

import re

__all__ = ["WRAPPED", "join_wrapped_lines"]

WRAPPED = 0.8  # a line this share of a full line long reached the margin
MIN_WIDTH = 40  # a file whose full line is shorter is not wrapped prose
_BREAK_HYPHENS = "\u2010\u00ad"  # a typesetter's hyphen, a soft hyphen: the word was broken
_CONTINUES = re.compile(r"[^\W\d_A-ZÀ-ÖØ-ÞÇĞİÖŞÜ]")  # a lower-case letter


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def full_width(lines: list[str]) -> int:
    """The length of a full line (characters, indentation included): the 90th percentile of
    the non-blank lines' lengths, so a few long lines do not set it."""
    lengths = sorted(len(line.rstrip()) for line in lines if line.strip())
    return lengths[int(0.9 * (len(lengths) - 1))] if lengths else 0


def join_wrapped_lines(text: str) -> str:
    """`text` with the line breaks inside running sentences replaced by a space (a hyphen
    across the break joins the word)."""
    lines = text.split("\n")
    width = full_width(lines)
    if width < MIN_WIDTH:
        return text
    out: list[str] = []
    joinable = False  # the last line written reached the margin
    for line in lines:
        bare = line.rstrip("\r")
        body = bare.strip()
        if joinable and body and _CONTINUES.match(body) and _indent(bare) == _indent(out[-1]):
            last = out[-1].rstrip()
            end = "\r" if line.endswith("\r") else ""
            if last[-1] in _BREAK_HYPHENS and len(last) > 1 and last[-2].isalpha():
                out[-1] = f"{last[:-1]}{body}{end}"  # "par‐" + "ticular"
            elif last[-1] == "-" and len(last) > 1 and last[-2].isalpha():
                out[-1] = f"{last}{body}{end}"  # "well-" + "known": the hyphen may be the word's
            else:
                out[-1] = f"{last} {body}{end}"
            joinable = len(bare.rstrip()) >= WRAPPED * width
            continue
        out.append(line)
        joinable = bool(body) and len(bare.rstrip()) >= WRAPPED * width
    return "\n".join(out)

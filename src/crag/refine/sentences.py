"""Sentences of a strip's text: where one ends, and where a block of them ends.

Knowledge refinement cuts chunks into strips of whole sentences (`crag.refine.strips`), and
the generator quotes and cites sentence by sentence (`crag.generate.citations`,
`crag.generate.quote`): all of them split text with this one rule, so a quote is always a run
of a strip's own sentences. The rule is a regular expression, not a trained splitter: it must
cut documentation (option lists, code fences, list items, headings) as well as prose, and in
Turkish as in English, with no model to load.
"""

from __future__ import annotations

import re

__all__ = ["BULLET", "CAPITALS", "sentence_blocks", "sentences"]

# A sentence ends at `.`/`!`/`?`/`…` and any closing quotes or brackets after it (kept with the
# sentence), before whitespace and a capital or digit (possibly opening a quote) or a list
# item's bullet ("… read from. * ``130`` -- The process received a SIGINT": a strip's
# sentences are joined on one line, where the blank line before the item is gone), or before
# a line that is an option (and its argument) alone: a PDF's option list, whose entries no
# blank line parts ("… at startup.\n--restore\n--no-restore\nControl whether saved images …";
# not curl's "… saving.\n--alt-svc can be used several times …", a sentence of the entry);
# or at a blank line. The split happens at the whitespace ("gap", "option") only, so no
# character is lost.
CAPITALS = "A-ZÀ-ÖØ-ÞÇĞİÖŞÜ"  # the capital letters a sentence opens with, as a regex class body
_BULLET_MARK = r"[*•‣-][ \t]+"  # a list item's bullet and the space after it
BULLET = re.compile(rf"^{_BULLET_MARK}")  # one opening a sentence (the quote leaves it out)
_SENTENCE_END = re.compile(
    rf"[.!?…][\"'”’)\]]*(?P<gap>\s+)(?=[\"'“‘(\[]?[{CAPITALS}0-9]|{_BULLET_MARK}\S)"
    r"|[.!?…][\"'”’)\]]*(?P<option>[ \t]*\n\s*)(?=--?[^\W\d_]\S*(?:[ \t]+\S+)?[ \t]*\n)"
    r"|(?P<blank>\n\s*\n)"
)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s.*$", re.MULTILINE)
_BLANK = re.compile(r"\n\s*\n")
# a code fence's line: the code ends (or starts) there, and so does a sentence — a page's
# text often follows a code block on the next line ("}\n```\nThe type of x is …"); a
# thematic break ("---") too, and it holds no text; and a rule of "=" (a plain-text section's
# separator, a setext or reStructuredText underline, a simple table's border); and a Sphinx
# code directive's line (".. code-block:: cmake"), which a rendered page does not show: a quote
# ran on into it ("… may be created with source files: .. code-block:: cmake")
_FENCE_LINE = re.compile(
    r"^(?:\s{0,3}(?:`{3,}.*|~{3,}.*|(?:([-*_=])[ \t]*(?:\1[ \t]*){2,}))"
    r"|[ \t]*\.\.[ \t]+(?:code-block|code|sourcecode|parsed-literal)::.*)$",
    re.MULTILINE,
)


_ABBREVIATION = re.compile(
    r"(?:\b(?:Dr|Mr|Mrs|Ms|Prof|St|Sr|Jr|No|vs|etc|e\.g|i\.e|Inc|Ltd|Co)|\b[A-Z])\.$"
)


def _split(text: str) -> list[tuple[str, bool]]:
    """Pieces of `text`, each with whether a blank line ended it (after a stop or not)."""
    pieces: list[tuple[str, bool]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        name = next(g for g in ("gap", "option", "blank") if match.group(g))
        gap = match.span(name)
        blank = _BLANK.search(text, gap[0], gap[1]) is not None  # a stop and a blank line too
        pieces.append((text[start : gap[0]], blank))
        start = gap[1]
    pieces.append((text[start:], True))
    return pieces


def sentence_blocks(text: str) -> list[tuple[str, bool]]:
    """`sentences(text)`, each with whether it ends a block: a blank line, a heading or a
    fence line came after it, not just a stop (a strip keeps that break: `crag.refine.strips`)."""
    text = _FENCE_LINE.sub("\n\n", _HEADING.sub("\n\n", text))
    out: list[tuple[str, bool]] = []
    for raw, ends in _split(text):
        piece = " ".join(raw.split())
        if not piece:
            if out:
                out[-1] = (out[-1][0], True)
            continue
        if out and _ABBREVIATION.search(out[-1][0]):
            out[-1] = (f"{out[-1][0]} {piece}", ends)  # "Dr." / "J." ended no sentence
        else:
            out.append((piece, ends))
    return out


def sentences(text: str) -> list[str]:
    """Sentences of `text`, whitespace collapsed, Markdown heading and code fence lines
    removed (each ends a sentence)."""
    return [s for s, _ in sentence_blocks(text)]

"""The section a chunk of a Markdown document stands in: its heading path.

Why: a manual's sections are longer than a chunk, so most chunks do not carry the heading
that says what they are about. In Node.js's `querystring.md`, the chunk "* `sep` {string} The
substring used to delimit key and value pairs in the query string. **Default:** `'&'`." is
`querystring.stringify()`'s only by the heading above it, and `readline.md` lists the same
options under `readline.createInterface()` and `readlinePromises.createInterface()`. The
chunker stores the headings in force where a chunk starts as the chunk's `heading` metadata
("querystring.stringify(obj[, sep[, eq[, options]]])"), the way the DOCX loader names a
section by its heading path; what searches and reads chunks then reads it with the document's
title (`crag.titles`), as LlamaIndex's Markdown node parser keeps a header path per node.

What counts as a heading: ATX headings (`## Title`, up to three spaces of indent, closing `#`s
dropped) and setext headings (a text line underlined by `===` or `---`), outside fenced code
blocks (a `# comment` in a shell example is no heading). A document's single level-1 heading
is its title (`crag.ingest.documents.load_markdown`) and is left out of the path; YAML front
matter is skipped. Inline Markdown is reduced to its text: `code`, *emphasis*, [links](url)
and images; identifiers keep their underscores (`SCHED_RR`).

`strip_comments` removes HTML comments (`<!-- YAML added: v0.11.2 … -->`, up to 20 lines of
change history, heads every section of the Node.js docs): a rendered page does not show them,
a reader quoting its source should not either, and left in they filled a third of some
chunks. Offsets then point into the text as loaded, as they do for HTML, PDF and DOCX.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

from crag.titles import SEPARATOR, shorten
from crag.types import Heading

__all__ = [
    "MAX_HEADING",
    "Headings",
    "heading_text",
    "inline_text",
    "link_text",
    "opens_fence",
    "sections",
    "strip_comments",
    "title_heading",
]

MAX_HEADING = 120  # characters of one heading kept: a name (a long signature too), not a paragraph

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_SETEXT_LINES = 3  # lines of a paragraph read as one setext heading
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_NOT_PARAGRAPH = re.compile(r"^ {0,3}(?:[-*+>|]|\d+[.)]\s|#|<|`{3}|~{3})")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_IMAGE_OR_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[([^\]]*)\]")  # [text][label]
_EMPHASIS = re.compile(r"(?<![\w\\])(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1(?!\w)")
_ANCHOR = re.compile(r"\s*[#¶§]+$")  # a permalink sign after a heading (Node.js "#", Sphinx "¶")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!<>|])")
_SPACES = re.compile(r"[ \t]{2,}")
# the HTML a README writes around its text (a collapsible section, a centred logo, a badge
# link): only these tags, so a type in prose ("List<String>") is not taken for one
_HTML_TAG = re.compile(
    r"</?(?:a|b|br|center|code|details|div|em|h[1-6]|hr|i|img|kbd|li|ol|p|picture|source|"
    r"span|strong|sub|summary|sup|table|tbody|td|th|thead|tr|ul)(?:\s[^<>]*)?/?>",
    re.IGNORECASE,
)


def heading_text(raw: str) -> str:
    """A heading as it reads on the rendered page: inline Markdown reduced to its text."""
    text = _links_and_tags(raw).replace("`", "")
    text = _EMPHASIS.sub(r"\2", text)
    text = _ANCHOR.sub("", _ESCAPE.sub(r"\1", text))
    return shorten(" ".join(text.split()), MAX_HEADING)


def inline_text(raw: str) -> str:
    """`raw` as a rendered page shows it: links and images reduced to their text, a README's
    HTML tags and backslash escapes removed, runs of spaces collapsed (line breaks stay, they
    still end sentences). Code spans keep their backticks and emphasis marks stay
    (`__init__` is a name, not bold). Why: what crag quotes to the user from a Markdown
    source ("Rich uses the [pygments](https://pygments.org/) library …", after a
    "<summary>Syntax Highlighting</summary>") should read as the page does."""
    text = _ESCAPE.sub(r"\1", _links_and_tags(raw, any_label=False))
    return _SPACES.sub(" ", text).strip()


def link_text(text: str) -> str:
    """`text` with its Markdown links and images reduced to their text: "[Apache 2.0
    license](https://www.apache.org/licenses/LICENSE-2.0.html)" reads "Apache 2.0 license".
    What the evaluator and the reranker score (the reader still reads the URL, which can be
    the answer): a URL is no evidence of relevance, and its dozen tokens diluted the term
    overlap and the embedding ("What license is trafilatura distributed under?" scored its
    "## License" chunk 0.05, under the lower threshold; 0.08 with the link as its text).
    Text without a link (every SQuAD and NQ passage) is scored as before."""
    return _IMAGE_OR_LINK.sub(r"\1", text) if "](" in text else text


def _links_and_tags(text: str, *, any_label: bool = True) -> str:
    """Links, images and HTML tags reduced to their text. A reference link `[text][label]`
    only where its label is empty or its text (`any_label=False`) in running text: a page's
    "[citation needed][original research?]" is no link."""
    text = _IMAGE_OR_LINK.sub(r"\1", text)
    text = _REF_LINK.sub(lambda m: m.group(1) if any_label or _same_label(m) else m.group(0), text)
    return _HTML_TAG.sub(" ", text)


def _same_label(m: re.Match[str]) -> bool:
    text, label = m.group(1), m.group(2)
    return not label or label.casefold() == text.casefold()


def opens_fence(line: str) -> str:
    """The fence a line opens a fenced code block with ("```" or "~~~"; a longer one closes
    with these three too), else "". What is inside one is code: no heading, no paragraph."""
    m = _FENCE.match(line)
    return m.group(1)[0] * 3 if m else ""


def strip_comments(text: str) -> str:
    """`text` without its HTML comments (an unclosed `<!--` is left as it is)."""
    return _COMMENT.sub("", text)


@dataclass(frozen=True, slots=True)
class _Heading:
    start: int  # offset of the heading's line in the document
    level: int
    text: str
    end: int = 0  # offset just after its line (after the underline of a setext heading)


def title_heading(text: str) -> str:
    """The text of the first level-1 heading of Markdown `text` (ATX or setext, outside
    fenced code and front matter), else "": the title a page shows. A `# comment` line in a
    shell or YAML example is not one (npm's pages were titled ".travis.yml" by it)."""
    return next((h.text for h in _scan(text) if h.level == 1), "")


def sections(text: str, fence: str = "") -> list[tuple[str, str]]:
    """`text` cut at its headings: (the heading a part stands under, the part without the
    heading's line), in order; the part before the first heading has heading "". For the
    strips of one chunk (`crag.refine.strips`): a chunk of API docs often holds several small
    sections ("Event: 'close'", "Event: 'connection'") whose headings are their only names.
    `fence`: the chunk starts inside a code block of that fence (`Headings.fence_at`)."""
    out: list[tuple[str, str]] = []
    heading, at = "", 0
    for h in _scan(text, fence):
        out.append((heading, text[at : h.start]))
        heading, at = h.text, h.end
    out.append((heading, text[at:]))
    return [(h, body) for h, body in out if h or body.strip()]


class Headings:
    """The headings of one Markdown document, to ask which are in force at an offset. The
    stack of open sections after each heading is built once, so a document's chunks cost a
    lookup each, not a walk over every heading before them."""

    def __init__(self, text: str, title: str = "", *, marks: Iterable[Heading] | None = None):
        """The headings of Markdown `text`; or, given `marks` (in order), those headings
        instead, which a loader found by position (a PDF's outline or type sizes,
        reStructuredText titles, EPUB headings: `Document.headings`)."""
        self._code: list[tuple[int, int, str]] = []  # Markdown's code blocks
        if marks is None:
            self._found = _scan(text, code=self._code)
        else:
            # plain text already (a PDF outline entry, an XHTML heading): no Markdown to
            # reduce; "__init__" stays itself
            self._found = [
                _Heading(m.offset, m.level, shorten(" ".join(m.text.split()), MAX_HEADING))
                for m in marks
            ]
        self._starts = [h.start for h in self._found]
        self._code_starts = [start for start, _, _ in self._code]
        self._title = heading_text(title)  # the heading that is the title names no section
        self._stacks: list[tuple[_Heading, ...]] = []  # open after each heading, in order
        stack: tuple[_Heading, ...] = ()
        for h in self._found:
            stack = (*_closed(stack, h.level), h)
            self._stacks.append(stack)

    @property
    def starts(self) -> list[int]:
        """Where each heading's line starts, in order (the chunker cuts there)."""
        return list(self._starts)

    def fence_at(self, offset: int) -> str:
        """The fence of the code block whose lines (or closing fence) `offset` starts in, ""
        if none. Why: a chunk cut from inside a code block starts with code and its closing
        fence, which read alone opens a block; the headings and prose after it were read as
        code (`sections`): one function's example ran on into the next function's entry."""
        at = bisect.bisect_right(self._code_starts, offset) - 1
        if at >= 0 and offset <= self._code[at][1]:
            return self._code[at][2]
        return ""

    def path(self, offset: int) -> str:
        """The heading path in force at `offset` (headings that start before it, each the
        last of its level under the ones above), title left out; "" when none. A chunk that
        starts with a heading names that section itself: its path is the sections above."""
        before = bisect.bisect_left(self._starts, offset)
        stack = self._stacks[before - 1] if before else ()
        if before < len(self._found) and self._found[before].start <= offset + 3:
            # the chunk's own first line (up to 3 spaces in) is a heading
            stack = _closed(stack, self._found[before].level)
        parts = [h.text for h in stack if h.text and not (h.level == 1 and h.text == self._title)]
        return SEPARATOR.join(parts)


def _closed(stack: tuple[_Heading, ...], level: int) -> tuple[_Heading, ...]:
    """`stack` without the sections a heading of `level` closes (its level and below)."""
    keep = len(stack)
    while keep and stack[keep - 1].level >= level:
        keep -= 1
    return stack[:keep]


_MATTER_LINES = 200  # as crag.ingest.front_matter.MAX_LINES: a block not closed by then is none


def _scan(
    text: str, fence: str = "", code: list[tuple[int, int, str]] | None = None
) -> list[_Heading]:
    """ATX and setext headings outside fenced code blocks, in document order. `fence`: the
    fence of a code block the text starts inside (a chunk cut from one), "" if none; `code`,
    if given, gets each code block's (start, end, fence): its lines between its fences."""
    out: list[_Heading] = []
    offset = 0
    opened, inside = fence, 0  # the open code block's fence and where its lines start
    para: list[tuple[int, str]] = []  # (offset, line) of the paragraph lines just read
    lines = text.splitlines(keepends=True)
    # YAML front matter until its "---" (or "..."), as `crag.ingest.front_matter` reads it: one
    # not closed within its first lines is a rule, and the page's headings are read
    matter = bool(lines) and lines[0].rstrip() == "---"
    matter = matter and any(
        line.rstrip() in ("---", "...") for line in lines[1 : _MATTER_LINES + 1]
    )
    for number, line in enumerate(lines):
        bare = line.rstrip("\r\n")
        here, offset = offset, offset + len(line)
        if matter:
            matter = number == 0 or bare.rstrip() not in ("---", "...")
            continue
        if fence:
            if bare.strip().startswith(fence):
                fence = ""
                if code is not None:
                    code.append((inside, here, opened))
            para = []
            continue
        if fence := opens_fence(bare):
            opened, inside, para = fence, offset, []
            continue
        if m := _ATX.match(bare):
            out.append(_Heading(here, len(m.group(1)), heading_text(m.group(2) or ""), offset))
            para = []
            continue
        if para and (m := _SETEXT.match(bare)):
            level = 1 if m.group(1)[0] == "=" else 2
            # the paragraph is the heading's text, as CommonMark reads it (a text file's wrapped
            # title: "What's New in IDLE 3.8.0 (since 3.7.0)" / "Released on 2019-10-14"); of
            # a longer one, only its last line
            lines_of = para if len(para) <= _SETEXT_LINES else para[-1:]  # (capped below)
            words = " ".join(line for _, line in lines_of)
            out.append(_Heading(lines_of[0][0], level, heading_text(words), offset))
            para = []
            continue
        is_text = bool(bare.strip()) and not _NOT_PARAGRAPH.match(bare)
        if not is_text:
            para = []
            continue
        para.append((here, bare))
        if len(para) > _SETEXT_LINES + 1:  # longer than a heading: its last lines are enough
            del para[0]
    if fence and code is not None:  # a block the text ends inside
        code.append((inside, len(text), opened))
    return out

"""Loaders for documents meant for people: plain text, Markdown, HTML (PDF: `crag.ingest.pdf`)."""

from __future__ import annotations

import re

from crag.errors import LoaderError
from crag.headings import strip_comments, title_heading
from crag.html_frame import framed
from crag.ingest.doc_names import name_title
from crag.ingest.front_matter import split_front_matter
from crag.ingest.md_escapes import unescape_inline
from crag.ingest.release_notes import release_headings
from crag.ingest.soft_breaks import join_soft_breaks
from crag.ingest.text_sections import text_headings
from crag.types import Document

__all__ = ["load_html", "load_markdown", "load_text"]


def load_text(path: str, text: str) -> tuple[list[Document], list[str]]:
    """The text as it is; a title after a rule line opens a section (`text_sections`), as
    does a release of a changelog or of an outlined NEWS file (`release_notes`)."""
    if not text.strip():
        raise LoaderError(path, "no text")
    headings = tuple(release_headings(text) or text_headings(text))
    title = name_title(path)
    return [Document(source=path, doc_id="text", text=text, title=title, headings=headings)], []


def load_markdown(path: str, text: str) -> tuple[list[Document], list[str]]:
    """HTML comments removed (a rendered page does not show them: `crag.headings`), line
    wraps inside paragraphs joined (`crag.ingest.soft_breaks`); the title is the front
    matter's (`crag.ingest.front_matter`), else the first level-1 heading, else the file
    name. A front matter's description stays as the first paragraph."""
    matter, warnings = split_front_matter(text)
    if matter is not None:
        body = matter.body.lstrip("\r\n")
        text = f"{matter.description}\n\n{body}" if matter.description else body
    text = join_soft_breaks(strip_comments(text))
    if not text.strip():
        raise LoaderError(path, "no text")
    title = (matter.title if matter else "") or title_heading(text) or name_title(path)
    doc = Document(source=path, doc_id="text", text=text, title=title, format="markdown")
    return [doc], warnings


def load_html(path: str, text: str) -> tuple[list[Document], list[str]]:
    """Main text by trafilatura (boilerplate, scripts and navigation removed), as Markdown:
    its headings give each chunk the section it stands in, as for a `.md` file
    (`crag.headings`), and its line wraps inside paragraphs are joined
    (`crag.ingest.soft_breaks`). Empty anchors and a missing content frame would cost it the
    headings, and a Sphinx page's described functions would lose their names
    (`crag.html_frame`); its escapes of inline syntax are taken out again
    (`crag.ingest.md_escapes`), and a code block it opens after text is opened on a line of
    its own."""
    import trafilatura

    try:
        page = framed(text)
        body = trafilatura.extract(
            page,
            include_comments=False,
            include_tables=True,
            favor_recall=True,
            output_format="markdown",
        )
        meta = trafilatura.extract_metadata(page)  # a title without its permalink mark
    except Exception as exc:  # trafilatura raises lxml errors of many kinds
        raise LoaderError(path, f"HTML could not be parsed: {exc}") from exc
    if not body or not body.strip():
        raise LoaderError(path, "HTML holds no extractable main text")
    body = unescape_inline(join_soft_breaks(_fences_on_their_lines(body)))
    title = (meta.title if meta and meta.title else "") or name_title(path)
    url = meta.url if meta and meta.url else ""
    doc = Document(source=path, doc_id="page", text=body, title=title, url=url, format="markdown")
    return [doc], []


# A code fence trafilatura wrote at the end of a line of text: a <pre> straight after inline
# text ("… multiplicative code such as: ```"); a closing fence always opens its line.
_FENCE_AFTER_TEXT = re.compile(r"^(?P<text>.*[^\s`])[ \t]*(?P<fence>`{3,})[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,})[ \t]*\S*[ \t]*$")


def _fences_on_their_lines(markdown: str) -> str:
    """`markdown` with every code fence that trafilatura opened after text moved to a line of
    its own. Why: a fence is one only where it opens its line; the one left after the text
    did not open its block, so its closing fence opened one instead, and every fence after it
    was read the wrong way round. The Python library reference's itertools page came out with
    each later code example's lines joined as prose ("def islice(iterable, *args): #
    islice('ABCDEFG', 2) --> A B # …") and the prose between them kept as code, where a
    heading is no heading and a strip ran on from one function's example into the next
    function's description."""
    lines = markdown.split("\n")
    out: list[str] = []
    fence = ""  # the fence of the code block the line is in, "" outside one
    for line in lines:
        opened = _FENCE.match(line)
        if fence:
            if opened and opened["fence"] == fence and line.strip() == fence:
                fence = ""
        elif opened:
            fence = opened["fence"]
        elif after := _FENCE_AFTER_TEXT.match(line):
            out.append(after["text"])
            line, fence = after["fence"], after["fence"]
        out.append(line)
    return "\n".join(out)

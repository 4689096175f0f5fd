"""Main text of a fetched page: trafilatura for HTML (scripts, styles, navigation, comments
removed), the text itself for text/plain.

Page text is data, never instructions: it is only ever shown to the generator as a numbered,
quoted source (see `crag.generate.generator`).
"""

from __future__ import annotations

import re

from crag.html_frame import framed

__all__ = ["extract_text", "page_title"]

_TITLE = re.compile(rb"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_BLOCKS = re.compile(r"<(script|style|noscript|template)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAGS = re.compile(r"<[^>]+>")


def extract_text(body: bytes, content_type: str = "text/html", url: str = "") -> str:
    """The readable main text of a page ('' when there is none)."""
    if content_type == "text/plain":
        return " ".join(body.decode("utf-8", errors="replace").split())
    import trafilatura

    try:
        text = trafilatura.extract(
            _framed(body),
            url=url or None,
            include_comments=False,
            include_tables=True,
            favor_recall=True,
            deduplicate=True,
        )
    except Exception:  # lxml raises many kinds on broken markup; fall through to the baseline
        text = None
    if text and text.strip():
        return text.strip()
    # Baseline: drop script/style blocks and tags (trafilatura found no main text).
    html = body.decode("utf-8", errors="replace")
    return " ".join(_TAGS.sub(" ", _BLOCKS.sub(" ", html)).split())


def _framed(body: bytes) -> bytes | str:
    """The page as `crag.html_frame` gives it to trafilatura (headings and lists that
    trafilatura drops on a page with empty anchors or no content frame), where it is UTF-8;
    otherwise the bytes as they came, whose encoding trafilatura detects."""
    try:
        html = body.decode("utf-8")
    except UnicodeDecodeError:
        return body
    return framed(html)


def page_title(body: bytes) -> str:
    """The <title> of a page, whitespace collapsed ('' if none)."""
    match = _TITLE.search(body[:65536])
    if not match:
        return ""
    import html

    return " ".join(html.unescape(match.group(1).decode("utf-8", errors="replace")).split())

"""What trafilatura is given of an HTML file: empty anchors taken out, and a page with no content
frame framed as one article.

Why: generated manuals write a section title as
`<div class="titlepage"><div><div><h2><a name="s1"></a>2.1. What Valgrind does</h2>` (DocBook's
XSL: Valgrind's, bzip2's and fontconfig's manuals on this machine; empty `<a name>` anchors are
common in older hand-written pages too). trafilatura 2.x reads a short block whose only link
has no text as link boilerplate and deletes it, heading and all. And on a page whose main text
stands in no frame it knows (`<article>`, `<main>`, a "content" class), it falls back to
collecting loose paragraphs, a pass that takes no headings and drops a list or two. Either way
a 128 KB manual chapter came out with no section at all, so its chunks could not say which
option or section they stand in (`crag.headings`). An anchor with no text says nothing to a
reader, and a page with no frame is, as a whole, the article. A DocBook FAQ is unfolded into
headed answers first (`crag.html_qanda`), a Texinfo manual's node menus are dropped (framed,
they would come through as rows of links), and a rustdoc page's controls go
(`crag.html_rustdoc`).
"""

from __future__ import annotations

import re
from typing import Any

from crag.html_qanda import unfold_qandasets
from crag.html_rustdoc import tidy_rustdoc
from crag.html_sphinx import unfold_descriptions

__all__ = ["framed"]

# An <a> element with nothing inside (a link target, or a link with no text or image).
_EMPTY_ANCHOR = re.compile(r"<a\b[^>]*>\s*</a\s*>", re.IGNORECASE)
_BODY_OPEN = re.compile(r"<body\b[^>]*>", re.IGNORECASE)
_BODY_CLOSE = re.compile(r"</body\s*>", re.IGNORECASE)


def framed(html: str) -> str:
    """The page with its empty anchors removed, its DocBook FAQs and Sphinx object
    descriptions unfolded, a rustdoc page tidied and, when trafilatura would find no frame
    for its main text, its body wrapped in `<article>`."""
    html = _EMPTY_ANCHOR.sub("", html)
    tree = _tree(html)
    if tree is None:  # trafilatura reports what lxml cannot read
        return html
    unfolded = "qandaset" in html and unfold_qandasets(tree)
    menus = "menu" in html and _drop_menus(tree)
    described = "headerlink" in html and unfold_descriptions(tree)
    rustdoc = "rustdoc" in html and tidy_rustdoc(tree)
    if unfolded or menus or described or rustdoc:
        from lxml import html as lxml_html

        html = lxml_html.tostring(tree, encoding="unicode")
    if _has_frame(tree):
        return html
    opening = _BODY_OPEN.search(html)
    start = opening.end() if opening else 0
    closing = _BODY_CLOSE.search(html, start)
    end = closing.start() if closing else len(html)
    return f"{html[:start]}<article>{html[start:end]}</article>{html[end:]}"


def _drop_menus(tree: Any) -> bool:
    """Remove a Texinfo manual's node menus (`<table class="menu">`, Texinfo 7's
    `<ul class="mini-toc">`): links to the manual's other nodes, which a frameless page
    would otherwise keep as table rows ("| • Introduction | | What is Nettle? |"); whether
    there was one."""
    menus = tree.xpath('//table[@class="menu"] | //ul[@class="mini-toc"]')
    for menu in menus:
        menu.drop_tree()
    return bool(menus)


def _tree(html: str) -> Any:
    """The page as lxml reads it; None where it cannot."""
    from lxml import html as lxml_html

    try:
        return lxml_html.fromstring(html)
    except Exception:  # lxml raises many kinds on broken markup
        return None


def _has_frame(tree: Any) -> bool:
    """Whether one of trafilatura's own frame expressions finds the main text (True when that
    cannot be told: the page is then left as it is)."""
    try:
        from trafilatura.xpaths import BODY_XPATH
    except ImportError:  # trafilatura moved its expressions: leave the page to it
        return True
    return any(next(iter(expression(tree)), None) is not None for expression in BODY_XPATH)

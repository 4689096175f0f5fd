"""A Sphinx page's object descriptions as headed sections, its links and literals as text.

Why: Sphinx writes each function, class, option or glossary term it documents as a definition
list: `<dl class="py function"><dt id="functools.cache">@functools.cache(user_function)<a
class="headerlink">¶</a></dt><dd>…description…</dd></dl>` (the Python library reference, every
Read the Docs site, `make html`). trafilatura renders that as two list items: the signature
alone ("- @functools.cache(*user_function*)¶") and then the whole description run together on
one line, its code examples and "New in version 3.9." included. The description never named
its function, so a question about `functools.cache` found the signature's chunk, which says
nothing, and chunks that say "New in version 3.9." about no function at all.

An entry whose term carries a permalink (`<a class="headerlink">`, Sphinx's and MkDocs' "¶")
is the page's own address for that object, as a section's title is: it now reads as a
heading, its signature as the heading's text, and the description as the section under it,
paragraphs and code blocks kept apart (`crag.headings` then gives each chunk the function it
stands under). The "¶" marks themselves go from every title and heading: link text with
nothing to say, they came through at the end of each.

On such a page, trafilatura also dropped text that is mostly links: a short description
("Return true if p is a set object, a frozenset object, or an instance of a subtype."), a
summary table's column of names ("Enum class decorator that ensures only one name is bound to
any one value." named no decorator), a name alone in a paragraph. Cross-references in the main
text (outside a table of contents) are made plain text; their targets are never kept anyway.
A line block's lines (`<div class="line">value: …</div>`, text straight in a <div>, which it
also dropped) become paragraphs. And an inline literal whose source was wrapped holds a line
break, which trafilatura wrote as a code block in mid-sentence: its breaks become spaces.
"""

from __future__ import annotations

from typing import Any

__all__ = ["unfold_descriptions"]

# A permalink Sphinx (and MkDocs' toc extension) puts after a title or a described object.
_CLASS = 'contains(concat(" ", normalize-space(@class), " "), " {} ")'  # the element's class
_PERMALINK = f"//a[{_CLASS.format('headerlink')}]"
# A line of a reStructuredText line block (`| value: …`), text straight in a <div>.
_LINE = '//div[contains(concat(" ", @class, " "), " line-block ")]/div[@class="line"]'
# A cross-reference in the page's main text ("role=main": Sphinx's themes), outside a table of
# contents (a toctree's list, a "contents" topic), which lists pages and sections by link.
_REFERENCE = (
    f'//*[@role="main"]//a[{_CLASS.format("reference")}]'
    f"[not(ancestor::*[{_CLASS.format('toctree-wrapper')} or {_CLASS.format('contents')}])]"
)
_SECTION = '(self::section or (self::div and contains(concat(" ", @class, " "), " section ")))'


def unfold_descriptions(tree: Any) -> bool:
    """Rewrite the lxml `tree` in place, where it holds permalinks (a Sphinx or MkDocs page):
    permalink marks dropped, links and literals made text, and every definition list whose
    terms carry a permalink made headings over their descriptions; whether it held any."""
    links = tree.xpath(_PERMALINK)
    levels: dict[Any, int] = {}  # each described list, its heading level
    for link in links:
        term = link.getparent()
        if term is not None and term.tag == "dt" and term.getparent() is not None:
            levels.setdefault(term.getparent(), _level(term))
    for link in links:
        link.drop_tree()
    if links:
        _as_text(tree)
    for entry, level in reversed(levels.items()):  # innermost first: a class's methods
        _unfold(entry, level)
    return bool(links)


def _as_text(tree: Any) -> None:
    """A line block's lines as paragraphs, cross-references in the main text as their text,
    inline literals on one line."""
    for line in tree.xpath(_LINE):
        line.tag = "p"
    for reference in tree.xpath(_REFERENCE):
        reference.drop_tag()  # its text stays
    for literal in tree.xpath(f"//code[{_CLASS.format('literal')}]"):
        _one_line(literal)


def _unfold(entry: Any, level: int) -> None:
    """Replace the definition list `entry` by a heading of `level` for its first signature,
    an overload's signature as code under it, and its description's blocks as they are."""
    from lxml import html

    unfolded = html.Element("div")
    signatures = 0
    for child in list(entry):
        if child.tag == "dt":
            text = " ".join(child.text_content().split())
            if not text:
                continue
            signatures += 1
            block = html.Element(f"h{level}" if signatures == 1 else "p")
            if signatures == 1:
                block.text = text
            else:
                code = html.Element("code")
                code.text = text
                block.append(code)
            unfolded.append(block)
        elif child.tag == "dd":
            child.tag = "div"
            for link in child.xpath(".//a"):
                link.drop_tag()  # its text stays (outside the main text too)
            unfolded.append(child)
    unfolded.tail = entry.tail
    parent = entry.getparent()
    if parent is not None:
        parent.replace(entry, unfolded)


def _one_line(literal: Any) -> None:
    """An inline literal's line breaks made spaces: its source wrapped the line
    ("``math.floor(a /`` / ``b)``"), and trafilatura wrote a literal holding a break as a code
    block in the middle of its sentence."""
    for element in literal.iter():
        if element.text:
            element.text = element.text.replace("\n", " ")
        if element is not literal and element.tail:
            element.tail = element.tail.replace("\n", " ")


def _level(term: Any) -> int:
    """The heading level an object described under `term` takes: one below the sections
    it stands in, and one more for each description it stands inside (a method within its
    class); from 2 (a page's title is its only level 1) to 6."""
    sections = len(term.xpath(f"ancestor::*[{_SECTION}]"))
    within = len(term.xpath(f"ancestor::dd[../dt{_PERMALINK}]"))
    return max(2, min(6, sections + 1 + within))

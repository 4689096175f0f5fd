"""A Sphinx page's object descriptions as headed sections, and no permalink marks.

Why: Sphinx writes each function, class, option or glossary term it documents as a definition
list: `<dl class="py function"><dt id="functools.cache">@functools.cache(user_function)<a
class="headerlink">¶</a></dt><dd>…description…</dd></dl>` (the Python library reference, every
Read the Docs site, `make html`). trafilatura renders that as two list items: the signature
alone ("- @functools.cache(*user_function*)¶") and then the whole description run together on
one line, its code examples and "New in version 3.9." included. The description never named
its function, so a question about `functools.cache` found the signature's chunk, which says
nothing, and chunks that say "New in version 3.9." about no function at all. An entry whose
term carries a permalink (`<a class="headerlink">`, Sphinx's and MkDocs' "¶") is the page's
own address for that object, as a section's title is: it now reads as a heading, its
signature as the heading's text, and the description as the section under it, paragraphs and
code blocks kept apart (`crag.headings` then gives each chunk the function it stands under).
Its cross-references become plain text: out of the list, trafilatura takes a short
description that is mostly links ("Return true if p is a set object, a frozenset object, or
an instance of a subtype.") for navigation and drops it; their targets are never kept anyway.
So are a line block's lines (`<div class="line">value: …</div>`, text straight in a <div>): they
become paragraphs, as they read. On such a page, cross-references in the main text (outside a
table of contents) are plain text likewise: a summary table whose name column is all links
lost that column ("Enum class decorator that ensures only one name is bound to any one value."
named no decorator), and a name alone in a paragraph was dropped. An inline literal whose
source was wrapped holds a line break, which trafilatura took for a code block in mid-sentence:
its breaks are spaces.
The "¶" marks themselves, on every heading of such a page, are dropped: they are link text
with nothing to say, and came through at the end of every title.
"""

from __future__ import annotations

from typing import Any

__all__ = ["unfold_descriptions"]

# A permalink Sphinx (and MkDocs' toc extension) puts after a title or a described object.
_PERMALINK = '//a[contains(concat(" ", normalize-space(@class), " "), " headerlink ")]'
# A line of a reStructuredText line block (`| value: …`), text straight in a <div>.
_LINE = '//div[contains(concat(" ", @class, " "), " line-block ")]/div[@class="line"]'
# A cross-reference in the page's main text ("role=main": Sphinx's themes), outside a table of
# contents (a toctree's list, a "contents" topic), which lists pages and sections by link.
_CLASS = 'contains(concat(" ", normalize-space(@class), " "), " {} ")'
_REFERENCE = (
    f'//*[@role="main"]//a[{_CLASS.format("reference")}]'
    f"[not(ancestor::*[{_CLASS.format('toctree-wrapper')} or {_CLASS.format('contents')}])]"
)
_SECTION = '(self::section or (self::div and contains(concat(" ", @class, " "), " section ")))'


def unfold_descriptions(tree: Any) -> bool:
    """Rewrite the lxml `tree` in place: permalink marks dropped, and every definition list
    whose terms carry one made headings over their descriptions; whether anything changed."""
    from lxml import html

    links = tree.xpath(_PERMALINK)
    described = [
        (link.getparent(), _level(link.getparent()))
        for link in links
        if link.getparent() is not None and link.getparent().tag == "dt"
    ]
    for link in links:
        link.drop_tree()
    if links:
        for line in tree.xpath(_LINE):
            line.tag = "p"
        for reference in tree.xpath(_REFERENCE):
            reference.drop_tag()  # its text stays
        for literal in tree.xpath(f"//code[{_CLASS.format('literal')}]"):
            _one_line(literal)
    lists = []
    for term, level in described:
        entry = term.getparent()
        if entry is not None and entry.tag == "dl" and entry not in lists:
            lists.append(entry)
            entry.set("data-crag-level", str(level))
    for entry in reversed(lists):  # innermost first: a class's methods inside its description
        level = int(entry.get("data-crag-level"))
        unfolded = html.Element("div")
        signatures = 0
        for child in list(entry):
            if child.tag == "dt":
                text = " ".join(child.text_content().split())
                if not text:
                    continue
                signatures += 1
                # the first signature titles the section; an overload's follows as code
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
                    link.drop_tag()  # its text stays
                unfolded.append(child)
        unfolded.tail = entry.tail
        parent = entry.getparent()
        if parent is not None:
            parent.replace(entry, unfolded)
    return bool(links)


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
    class); at most 6."""
    sections = len(term.xpath(f"ancestor::*[{_SECTION}]"))
    within = len(term.xpath(f"ancestor::dd[../dt{_PERMALINK}]"))
    return max(2, min(6, sections + 1 + within))

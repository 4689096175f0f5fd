"""A rustdoc page (Rust API documentation: `cargo doc`, docs.rs, rustup's standard library) as
its reader sees it: each item's signature a heading over its description, without the page's
controls.

Why: rustdoc writes every method as `<details class="toggle method-toggle"><summary><section
class="method"><span class="rightside">1.5.0 · <a class="src">Source</a></span><h4
class="code-header">pub fn into_sorted_vec(self) -> Vec<T, A></h4></section></summary><div
class="docblock">…</div></details>`. trafilatura makes every <summary> a second-level heading,
so the method's signature came out as "## 1.5.0 · Source" followed by "#### pub fn
into_sorted_vec(…)": a heading per method that names a version and a link, and that closed
the "Implementations" section the method stands in (and, with the version gone, the two ran
together as "## #### pub fn …"). The summary and details elements are taken away, their
content kept, so the signature is the heading of its own description, at rustdoc's level.

The page's controls come through as text otherwise: the "§" after every heading (a permalink,
`a.doc-anchor` and `a.anchor`: "§Examples. Basic usage: …" began strips), "Source" links,
"Expand description", "Copy item path", the "ⓘ" after a return type (`a.tooltip`, the notable
traits pop-up), "Read more" after each trait method's first line, and on a source page
(`src/…/fs.rs.html`) the line numbers, which ran into each line ("1//! Filesystem manipulation
operations."). And the "Blanket Implementations" section is the same on every type's page
(`impl<T> From<T> for T`, "Returns the argument unchanged.", `impl<T, U> Into<U> for T` …):
trafilatura dropped it inside its collapsed <details>, and unwrapped it would come through once
per type, so it is dropped. (The auto trait implementations, headings with no text under them,
do not come through either way.) The version an item is stable since, which stood beside its
"Source" link, goes into its signature heading ("pub fn into_sorted_vec(self) -> Vec<T, A>
(Stable since Rust version 1.5.0)"): there it answers "since when", and takes no sentence from
the description's strip.
"""

from __future__ import annotations

from typing import Any

__all__ = ["is_rustdoc", "tidy_rustdoc"]

_CLASS = 'contains(concat(" ", normalize-space(@class), " "), " {} ")'  # the element's class
_CONTROLS = " | ".join(
    [
        f"//a[{_CLASS.format('doc-anchor')} or {_CLASS.format('anchor')}]",  # "§"
        f"//a[{_CLASS.format('src')}]",  # "Source"
        f"//summary[{_CLASS.format('hideme')}]",  # "Expand description"
        f"//a[{_CLASS.format('tooltip')}]",  # "ⓘ"
        "//button",  # "Copy item path"
        "//*[@data-nosnippet]",  # a source page's line numbers: "1//! Filesystem …"
        '//a[normalize-space(.)="Read more"]',
        '//h2[@id="blanket-implementations"]',
        '//*[@id="blanket-implementations-list"]',
    ]
)


def is_rustdoc(tree: Any) -> bool:
    """Whether the lxml `tree` is a page rustdoc generated (its `<meta name="generator">`)."""
    return bool(tree.xpath('//meta[@name="generator"][@content="rustdoc"]'))


def tidy_rustdoc(tree: Any) -> bool:
    """Rewrite the lxml `tree` in place, where rustdoc generated it: the page's controls and
    its blanket implementations dropped, each "since" version moved into the signature it
    dates, and every <details>/<summary> unwrapped (their content kept in place); whether it
    was a rustdoc page."""
    if not is_rustdoc(tree):
        return False
    for element in tree.xpath(_CONTROLS):
        if element.getparent() is not None:  # not inside one already dropped
            element.drop_tree()
    for element in tree.xpath(f"//span[{_CLASS.format('rightside')}]"):
        _since_in_heading(element)
    for element in tree.xpath(f"//span[{_CLASS.format('sub-heading')}]"):
        _since_as_sentence(element)
    for element in tree.xpath("//summary | //details"):
        element.drop_tag()
    for notice in tree.xpath(f"//div[{_CLASS.format('stab')}]"):
        _as_paragraph(notice)
    _path_in_title(tree)
    return True


def _path_in_title(tree: Any) -> None:
    """The page's title with the module path its breadcrumbs give: "Struct
    std::collections::hash_map::Entry", not "Struct Entry", which `btree_map`'s page is too
    (and fifteen `Iter`s of the standard library). The title labels every chunk of the
    page where pages of several titles are read together (`crag.titles`)."""
    crumbs = tree.xpath(f"//div[{_CLASS.format('rustdoc-breadcrumbs')}]")
    heading = tree.xpath("//h1")
    if not crumbs or not heading:
        return
    path = "".join(crumbs[0].itertext()).strip()
    name = heading[0].xpath(".//span")
    if not path or not name:
        return
    item, text = name[0], "".join(name[0].itertext())  # "Binary<wbr>Heap": its pieces
    item.clear(keep_tail=True)
    item.text = f"{path}::{text}"


def _as_paragraph(notice: Any) -> None:
    """A stability notice ("🔬This is a nightly-only experimental API. (`allocator_api`
    #32838)", "Deprecated since 1.0.0") as one paragraph. As rustdoc writes it, spans in a
    <div>, trafilatura kept only what followed its <code>: "`allocator_api` #32838)"."""
    for span in notice.xpath(".//span"):
        span.drop_tag()
    notice.tag = "p"


def _since(element: Any) -> str:
    """The Rust version an item is stable since, as rustdoc's tooltip says it ("Stable since
    Rust version 1.5.0"), or ""."""
    titles = element.xpath(f".//span[{_CLASS.format('since')}]/@title")
    return " ".join(str(titles[0]).split()) if titles else ""


def _since_in_heading(rightside: Any) -> None:
    """Drop a method's or impl's "1.5.0 · Source" and give its version to the signature
    heading it stands beside: "pub fn into_sorted_vec(self) -> Vec<T, A> (Stable since Rust
    version 1.5.0)". In the heading it costs the description none of its sentences."""
    since, parent = _since(rightside), rightside.getparent()
    rightside.drop_tree()
    if not since or parent is None:
        return
    headings = parent.xpath("./*[self::h2 or self::h3 or self::h4 or self::h5 or self::h6]")
    if headings:
        heading = headings[0]
        last = heading[-1] if len(heading) else None
        if last is None:
            heading.text = f"{heading.text or ''} ({since})"
        else:
            last.tail = f"{last.tail or ''} ({since})"


def _since_as_sentence(sub_heading: Any) -> None:
    """The item's own "1.0.0 · Source" under its title, as the sentence its tooltip says."""
    since = _since(sub_heading)
    if not since:
        sub_heading.drop_tree()
        return
    sub_heading.clear(keep_tail=True)  # children, text and attributes
    sub_heading.tag, sub_heading.text = "p", f"{since}."

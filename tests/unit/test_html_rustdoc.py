"""A rustdoc page read as its text reads (`crag.html_rustdoc`), through the HTML loader and the
real trafilatura."""

from __future__ import annotations

from lxml import html as lxml_html

from crag.html_rustdoc import is_rustdoc, tidy_rustdoc
from crag.ingest.chunking import Chunker
from crag.ingest.documents import load_html

_FILLER = "The harbour keeps its tide tables for every quay and every ferry that calls. " * 4


def _method(name: str, since: str, text: str) -> str:
    """One method as rustdoc 1.95 writes it: a <details> whose <summary> holds the version,
    the source link, the permalink and the signature heading, then its description."""
    return f"""<details class="toggle method-toggle" open><summary>
<section id="method.{name}" class="method"><span class="rightside"><span class="since"
title="Stable since Rust version {since}">{since}</span> · <a class="src"
href="../src/harbour/lib.rs.html#10">Source</a></span><a href="#method.{name}"
class="anchor">§</a><h4 class="code-header">pub fn <a href="#method.{name}"
class="fn">{name}</a>(&amp;self) -&gt; <a class="struct" href="struct.Tide.html">Tide</a><a
href="#" class="tooltip" data-notable-ty="Tide">ⓘ</a></h4></section></summary>
<div class="docblock"><p>{text}</p>
<h5 id="examples"><a class="doc-anchor" href="#examples">§</a>Examples</h5>
<div class="example-wrap"><pre class="rust rust-example-rendered"><code>let t = h.{name}();
</code></pre></div></div></details>"""


_PAGE = f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="generator" content="rustdoc"><title>Harbour in harbour - Rust</title></head>
<body class="rustdoc struct"><nav class="sidebar"><ul><li><a
href="#method.high_water">high_water</a></li></ul></nav><main><div class="width-limiter">
<section id="main-content" class="content">
<div class="main-heading"><div class="rustdoc-breadcrumbs"><a href="index.html">harbour</a>::<wbr><a
href="index.html">quays</a></div><h1>Struct <span class="struct">Harbour</span>&nbsp;<button
id="copy-path" title="Copy item path to clipboard">Copy item path</button></h1><span
class="sub-heading"><span class="since" title="Stable since Rust version 1.2.0">1.2.0</span> ·
<a class="src" href="../src/harbour/lib.rs.html#1">Source</a> </span></div>
<details class="toggle top-doc" open><summary class="hideme"><span>Expand description</span>
</summary><div class="docblock"><p>A harbour with its quays. {_FILLER}</p></div></details>
<h2 id="implementations" class="section-header">Implementations<a href="#implementations"
class="anchor">§</a></h2><div id="implementations-list"><details class="toggle implementors-toggle"
open><summary><section id="impl-Harbour" class="impl"><a class="src rightside"
href="../src/harbour/lib.rs.html#5">Source</a><a href="#impl-Harbour" class="anchor">§</a><h3
class="code-header">impl Harbour</h3></section></summary><div class="impl-items">
{_method("high_water", "1.5.0", "Returns the next high water at the harbour's north quay.")}
{_method("low_water", "1.7.0", "Returns the next low water, in metres below chart datum.")}
</div></details></div>
<h2 id="trait-implementations" class="section-header">Trait Implementations<a
href="#trait-implementations" class="anchor">§</a></h2><div id="trait-implementations-list">
<details class="toggle implementors-toggle" open><summary><section id="impl-Clone-for-Harbour"
class="impl"><h3 class="code-header">impl Clone for Harbour</h3></section></summary>
<div class="impl-items"><details class="toggle method-toggle" open><summary><section
id="method.clone" class="method trait-impl"><h4 class="code-header">fn clone(&amp;self) -&gt;
Harbour</h4></section></summary><div class="docblock"><p>Returns a duplicate of the harbour.
<a href="https://doc.rust-lang.org/std/clone/trait.Clone.html#tymethod.clone">Read more</a></p>
</div></details></div></details></div>
<h2 id="blanket-implementations" class="section-header">Blanket Implementations<a
href="#blanket-implementations" class="anchor">§</a></h2><div id="blanket-implementations-list">
<details class="toggle implementors-toggle"><summary><section id="impl-From-for-T"
class="impl"><h3 class="code-header">impl&lt;T&gt; From&lt;T&gt; for T</h3></section></summary>
<div class="impl-items"><section id="method.from" class="method trait-impl"><h4
class="code-header">fn from(t: T) -&gt; T</h4></section><div class="docblock"><p>Returns the
argument unchanged.</p></div></div></details></div>
</section></div></main></body></html>"""


def _text() -> str:
    (doc,), warnings = load_html("struct.Harbour.html", _PAGE)
    assert warnings == []
    # its module path from the breadcrumbs, and without "Copy item path"
    assert doc.title == "Struct harbour::quays::Harbour"
    return doc.text


def test_the_pages_controls_are_not_text() -> None:
    text = _text()
    for control in ("§", "Source", "Expand description", "ⓘ", "Read more", "Copy item path"):
        assert control not in text, control
    assert "Returns a duplicate of the harbour." in text  # the sentence before "Read more"


def test_each_signature_heads_its_description_with_its_version() -> None:
    text = _text()
    heading = "#### pub fn high_water(&self) -> Tide (Stable since Rust version 1.5.0)\n"
    assert heading in text
    after = text[text.index(heading) + len(heading) :].lstrip()
    assert after.startswith("Returns the next high water at the harbour's north quay.")
    assert "\n## " not in text.split("## Implementations")[1].split("## Trait")[0]
    assert "### impl Harbour\n" in text
    assert "Stable since Rust version 1.2.0." in text  # the item's own, as a sentence


def test_blanket_implementations_are_dropped_and_the_types_own_kept() -> None:
    text = _text()
    assert "Blanket Implementations" not in text
    assert "Returns the argument unchanged." not in text
    assert "### impl Clone for Harbour" in text


def test_a_methods_chunks_stand_under_its_signature() -> None:
    (doc,), _ = load_html("struct.Harbour.html", _PAGE)
    chunks = Chunker(300, 0).split(doc)
    low = next(c for c in chunks if "low water, in metres" in c.text)
    where = str(low.metadata.get("heading", "")) + low.text.split("\n")[0]
    assert "pub fn low_water(&self) -> Tide" in where
    assert "impl Harbour" in where


def test_other_pages_are_left_alone() -> None:
    page = _PAGE.replace('<meta name="generator" content="rustdoc">', "")
    tree = lxml_html.fromstring(page)
    assert not is_rustdoc(tree)
    assert tidy_rustdoc(tree) is False
    assert tree.xpath('//span[@class="rightside"]')


def test_a_source_pages_line_numbers_are_not_text() -> None:
    page = (
        '<html><head><meta name="generator" content="rustdoc"><title>fs.rs - source</title>'
        '</head><body><main><h1>std/fs.rs</h1><pre class="rust"><code><a href=#1 id=1 '
        'data-nosnippet>1</a><span class="doccomment">//! Filesystem operations.\n</span>'
        "<a href=#2 id=2 data-nosnippet>2</a>pub fn read() {}\n</code></pre></main></body></html>"
    )
    (doc,), _ = load_html("fs.rs.html", page)
    assert "//! Filesystem operations.\npub fn read() {}" in doc.text


def test_a_stability_notice_reads_whole() -> None:
    # as rustdoc writes it (spans in a <div> in the method's <summary>); among a dozen methods,
    # trafilatura kept only what followed its <code>: "`harbour_tides` #1)"
    notice = (
        '<span class="item-info"><div class="stab unstable"><span class="emoji">🔬</span>'
        "<span>This is a nightly-only experimental API. (<code>harbour_tides</code>&nbsp;"
        '<a href="https://github.com/rust-lang/rust/issues/1">#1</a>)</span></div></span>'
    )
    methods = []
    for i in range(12):
        method = _method(f"tide_{i}", "1.5.0", f"Returns tide {i} at the harbour's quay.")
        if i % 3 == 0:
            end = "</h4></section></summary>"
            method = method.replace(end, end.replace("</summary>", f"{notice}</summary>"))
        methods.append(method)
    page = _PAGE.replace(
        '<div class="impl-items">', '<div class="impl-items">' + "".join(methods), 1
    )
    (doc,), _ = load_html("struct.Harbour.html", page)
    notices = doc.text.count("🔬This is a nightly-only experimental API. (`harbour_tides`")
    assert notices == 4

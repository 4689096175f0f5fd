"""A Sphinx page's object descriptions as headed sections (`crag.html_sphinx`), through the
HTML loader and the real trafilatura."""

from __future__ import annotations

import pytest

from crag.html_sphinx import unfold_descriptions
from crag.ingest.chunking import Chunker
from crag.ingest.documents import load_html

_LINK = '<a class="headerlink" href="#" title="Permalink to this definition">¶</a>'
_FILLER = "The harbour keeps its tide tables for every quay and every ferry that calls. " * 4

# The shape Sphinx 5 writes for the Python library reference (functools, logging), shortened:
# a section per heading, a <dl> per described object, a class's methods inside its <dd>.
_PAGE = f"""<html><head><title>tides — Tide tables — Harbour 1.0 documentation</title></head>
<body><div class="document"><div class="body" role="main">
<section id="module-tides"><h1><code>tides</code> — Tide tables{_LINK}</h1>
<p>The <code>tides</code> module reads tide tables. {_FILLER}</p>
<section id="functions"><h2>Functions{_LINK}</h2>
<dl class="py function">
<dt class="sig sig-object py" id="tides.cache"><span class="sig-prename">tides.</span>
<span class="sig-name">high_water</span>(<em>quay</em>){_LINK}</dt>
<dt class="sig sig-object py"><span class="sig-prename">tides.</span>
<span class="sig-name">high_water</span>(<em>quay, days=7</em>){_LINK}</dt>
<dd><p>Return the next high water at <em>quay</em>. {_FILLER}</p>
<p>For example:</p>
<div class="highlight"><pre>&gt;&gt;&gt; high_water("north")
'06:12'
&gt;&gt;&gt; high_water("south")
'06:40'</pre></div>
<dl class="field-list simple"><dt class="field-odd">Raises</dt>
<dd class="field-odd"><p>KeyError – an unknown quay</p></dd></dl>
<p>{_FILLER}</p>
<div class="versionadded"><p><span class="added">New in version 3.9.</span></p></div>
</dd></dl>
<dl class="py class">
<dt class="sig sig-object py" id="tides.Table"><em>class </em>tides.Table(<em>port</em>){_LINK}</dt>
<dd><p>A port's table. {_FILLER}</p>
<dl class="py method">
<dt class="sig sig-object py" id="tides.Table.lowest">lowest(<em>month</em>){_LINK}</dt>
<dd><p>{_FILLER}</p><p>The lowest water of the month, in metres below chart datum.</p></dd></dl>
</dd></dl>
</section></section></div></div></body></html>"""


def _page() -> tuple[str, str]:
    (doc,), warnings = load_html("tides.html", _PAGE)
    assert warnings == []
    return doc.title, doc.text


def test_permalink_marks_are_dropped_from_titles_and_headings() -> None:
    title, text = _page()
    assert "¶" not in title
    assert "¶" not in text
    assert "# `tides` — Tide tables\n" in text


def test_a_described_object_is_a_heading_over_its_description() -> None:
    _, text = _page()
    assert "### tides. high_water(quay)" in text  # one below its section, "Functions"
    assert "`tides. high_water(quay, days=7)`" in text  # the overload, under it
    assert "#### lowest(month)" in text  # a method, one below its class
    assert "- tides" not in text  # no longer a list item


def test_each_chunk_of_a_description_stands_under_its_object() -> None:
    (doc,), _ = load_html("tides.html", _PAGE)
    chunks = Chunker(300, 0).split(doc)

    def where(words: str) -> str:
        chunk = next(c for c in chunks if words in c.text)
        return str(chunk.metadata.get("heading", "")) + chunk.text.split("\n")[0]

    assert "high_water(quay)" in where("New in version 3.9.")
    assert "lowest(month)" in where("below chart datum")
    assert "class tides.Table(port)" in where("below chart datum")


def test_examples_stay_code_and_field_lists_stay_lists() -> None:
    _, text = _page()
    assert '```\n>>> high_water("north")\n\'06:12\'\n>>> high_water("south")' in text
    assert "Raises" in text and "KeyError" in text


@pytest.mark.parametrize(
    "page",
    [
        "<html><body><dl><dt>term</dt><dd>meaning</dd></dl></body></html>",  # no permalinks
        '<html><body><dl><dt id="x">term</dt><dd>meaning</dd></dl></body></html>',
    ],
)
def test_a_page_without_permalinks_is_left_alone(page: str) -> None:
    from lxml import html

    tree = html.fromstring(page)
    before = html.tostring(tree)
    assert unfold_descriptions(tree) is False
    assert html.tostring(tree) == before


def test_a_glossary_term_with_a_permalink_heads_its_definition() -> None:
    from lxml import html

    tree = html.fromstring(
        '<html><body><section><h1>Glossary</h1><dl class="glossary">'
        f'<dt id="term-quay">quay{_LINK}</dt><dd><p>Where ferries berth.</p></dd>'
        "</dl></section></body></html>"
    )
    assert unfold_descriptions(tree) is True
    assert tree.xpath("//h2/text()") == ["quay"]
    assert tree.xpath("//h2/following-sibling::div/p/text()") == ["Where ferries berth."]


def test_a_code_block_opened_after_text_opens_its_own_line() -> None:
    # an inline literal that holds a line break (itertools' "such as: ``(start + step * i
    # for i in count())``") comes out of trafilatura as a fence after the text
    filler = "<p>" + _FILLER + "</p>"
    page = (
        "<html><body><article><h1>Counting</h1>"
        f"{filler}<p>Write code such as: <code>(start + step * i\nfor i in count())</code>.</p>"
        f"{filler}<pre>def count(start=0):\n    n = start\n    while True:\n        yield n</pre>"
        f"<h2>Cycling</h2>{filler}</article></body></html>"
    )
    (doc,), _ = load_html("count.html", page)
    assert "Write code such as:\n```\n(start + step * i" in doc.text
    # the block after it keeps its lines, and the heading after that is a heading
    assert "def count(start=0):\n    n = start\n" in doc.text
    from crag.headings import sections

    assert "Cycling" in [heading for heading, _ in sections(doc.text)]


_SUMMARY = f"""<html><body><div class="sphinxsidebar"><ul><li>
<a class="reference internal" href="#">Table of contents</a></li></ul></div>
<div class="body" role="main"><section><h1>tides{_LINK}</h1><p>{_FILLER}</p>
<div class="toctree-wrapper"><ul><li><a class="reference internal" href="a.html">Quays</a></li>
</ul></div>
<table><tr><td><p><a class="reference internal" href="#tides.unique"><code class="xref">unique()
</code></a></p></td><td><p>Makes sure no two quays share a name.</p></td></tr>
<tr><td><p><a class="reference internal" href="#tides.verify"><code class="xref">verify()</code>
</a></p></td><td><p>Checks a table's constraints.</p></td></tr></table>
<p><a class="reference internal" href="#tides.property"><code class="xref">property()</code></a></p>
<blockquote><div><p>Gives members attributes.</p></div></blockquote>
<p>The result is <code class="docutils literal"><span class="pre">math.floor(a</span>
<span class="pre">/</span>
<span class="pre">b)</span></code> or one less. {_FILLER}</p>
</section></div></body></html>"""


def test_cross_references_in_the_main_text_read_as_their_text() -> None:
    (doc,), _ = load_html("tides.html", _SUMMARY)
    assert "unique()" in doc.text and "verify()" in doc.text  # a table's column of links
    assert "property()" in doc.text  # a paragraph that is one link


def test_a_table_of_contents_keeps_its_links() -> None:
    from lxml import html

    tree = html.fromstring(_SUMMARY)
    unfold_descriptions(tree)
    assert tree.xpath('//div[@class="toctree-wrapper"]//a/text()') == ["Quays"]
    assert tree.xpath('//div[@class="sphinxsidebar"]//a/text()') == ["Table of contents"]
    assert not tree.xpath('//*[@role="main"]//table//a')


def test_a_wrapped_inline_literal_stays_in_its_sentence() -> None:
    (doc,), _ = load_html("tides.html", _SUMMARY)
    assert "The result is `math.floor(a / b)` or one less." in doc.text

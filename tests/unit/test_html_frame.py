"""What trafilatura is given of an HTML page (`crag.html_frame`), and what the HTML
loader makes of a generated manual's page through the real trafilatura."""

from __future__ import annotations

from crag.html_frame import framed
from crag.ingest.chunking import Chunker
from crag.ingest.documents import load_html

# The shape DocBook's XSL writes (Valgrind's manual): sections in plain divs, each title three
# divs deep behind an empty <a name> anchor, and no <article>, <main> or "content" frame.
_SECTION = """<div class="sect1">
<div class="titlepage"><div><div><h2 class="title" style="clear: both">
<a name="core.{name}"></a>{number}. {title}</h2></div></div></div>
{paragraphs}
</div>"""

_PAGE = """<html><head><title>2. Using the core</title></head><body>
<div><table class="nav" summary="Navigation header"><tr><td><a href="intro.html">Prev</a></td>
<td><a href="index.html">Home</a></td><td><a href="adv.html">Next</a></td></tr></table></div>
<div class="chapter">
<div class="titlepage"><div><div><h1 class="title"><a name="core"></a>2. Using the core</h1>
</div></div></div>
{sections}
</div></body></html>"""


def _paragraphs(subject: str) -> str:
    sentence = f"The harbour core handles {subject} for every ferry that calls at the quay. "
    return "\n".join(f"<p>{sentence * 3}Paragraph {n} about {subject}.</p>" for n in range(4))


def _page() -> str:
    sections = [
        _SECTION.format(name=name, number=number, title=title, paragraphs=_paragraphs(name))
        for name, number, title in (
            ("moorings", "2.1", "Moorings and berths"),
            ("tickets", "2.2", "Tickets and fares"),
            ("weather", "2.3", "Weather warnings"),
        )
    ]
    return _PAGE.format(sections="\n".join(sections))


def test_a_generated_manual_keeps_its_section_titles() -> None:
    (doc,), _ = load_html("core.html", _page())
    lines = doc.text.splitlines()
    for title in ("Moorings and berths", "Tickets and fares", "Weather warnings"):
        assert any(line.startswith("#") and title in line for line in lines), title
    assert "Prev" not in doc.text and "Home" not in doc.text  # the navigation stays out
    chunks = Chunker(300, 0).split(doc)
    fares = [c for c in chunks if "handles tickets" in c.text]
    # a chunk stands under the section, or opens with its title
    assert fares and all(
        "Tickets and fares" in c.metadata.get("heading", "") or c.text.startswith("## 2.2.")
        for c in fares
    )


def test_empty_anchors_go_and_anchors_with_text_stay() -> None:
    html = (
        '<html><body><main><h2><a name="x"></a>Title</h2><p><a href="/d">docs</a></p>'
        "</main></body></html>"
    )
    out = framed(html)
    assert '<a name="x">' not in out and '<a href="/d">docs</a>' in out
    assert "<article>" not in out  # <main> is a frame trafilatura knows: left as it is


def test_a_page_without_a_frame_is_framed_as_one_article() -> None:
    out = framed("<html><body class='x'><div><p>Text.</p></div></body></html>")
    assert out == "<html><body class='x'><article><div><p>Text.</p></div></article></body></html>"
    assert framed("<p>Only a fragment.</p>") == "<article><p>Only a fragment.</p></article>"


def test_a_texinfo_manuals_node_menus_are_dropped() -> None:
    """Framed, a Texinfo page's menu of its other nodes came through as rows of links."""
    menu = (
        '<table class="menu" border="0" cellspacing="0"><tr><td>&bull; '
        '<a href="#Tides">Tides</a>:</td><td>&nbsp;&nbsp;</td><td>When the water turns.</td>'
        "</tr></table>"
    )
    page = _page().replace('<div class="chapter">', f'<div class="chapter">{menu}', 1)
    (doc,), _ = load_html("core.html", page)
    assert "When the water turns" not in doc.text and "|" not in doc.text
    assert "Tickets and fares" in doc.text

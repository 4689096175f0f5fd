"""A DocBook FAQ unfolded into headed answers (`crag.html_qanda`), through the HTML
loader and the real trafilatura."""

from __future__ import annotations

from crag.ingest.chunking import Chunker
from crag.ingest.documents import load_html

# The shape DocBook's XSL writes for a <qandaset> (Valgrind's FAQ, shortened).
_FAQ = """<html><head><title>Harbour FAQ</title></head><body>
<div class="article"><div class="titlepage"><div><div><h1 class="title">
<a name="faq"></a>Harbour Frequently Asked Questions</h1></div></div><hr></div>
<div class="qandaset">
<dl><dt>1. <a href="faq.html#faq.ferries">Ferries</a></dt>
<dd>1.1. <a href="faq.html#faq.night">Does the ferry run at night?</a></dd>
<dd>1.2. <a href="faq.html#faq.bikes">Can I take a bicycle on board?</a></dd></dl>
<table width="100%" summary="Q and A Div" border="0">
<tr class="qandadiv"><td colspan="2"><a name="faq.ferries"></a><h3 class="title">
<a name="faq.ferries"></a>1. Ferries</h3></td></tr>
<tr class="toc"><td colspan="2">1.1. <a href="faq.html#faq.night">Does the ferry run at night?</a>
<br>1.2. <a href="faq.html#faq.bikes">Can I take a bicycle on board?</a><br></td></tr>
<tr><td colspan="2"> </td></tr>
<tr class="question"><td><a name="faq.night"></a><b>1.1.</b></td>
<td><b>Does the ferry run at night?</b></td></tr>
<tr class="answer"><td><a name="a-night"></a></td><td>
<p>No. The last crossing leaves the quay at eleven in the evening, and the first one at six in
the morning. {filler}</p>
<p>In summer a late boat runs on Saturdays.</p></td></tr>
<tr><td colspan="2"> </td></tr>
<tr class="question"><td><a name="faq.bikes"></a><b>1.2.</b></td>
<td><b>Can I take a bicycle on board?</b></td></tr>
<tr class="answer"><td></td><td><p>Yes, for a small fare, on the lower deck. {filler}</p></td></tr>
</table></div></div></body></html>"""


def _faq() -> str:
    return _FAQ.format(filler="Ask the crew where to stand while the boat docks. " * 6)


def test_each_answer_stands_under_its_question() -> None:
    (doc,), _ = load_html("faq.html", _faq())
    assert doc.text.count("Does the ferry run at night?") == 1  # not in link lists or rows
    assert "|" not in doc.text  # no table left
    assert "#### 1.1. Does the ferry run at night?" in doc.text
    chunks = Chunker(250, 0).split(doc)
    for answer, question in (("late boat", "Does the ferry run"), ("lower deck", "Can I take")):
        chunk = next(c for c in chunks if answer in c.text)
        # the chunk stands under its question, or opens with it
        assert question in chunk.metadata.get("heading", "") + chunk.text.split("\n")[0]


def test_a_page_without_a_faq_is_not_rewritten() -> None:
    page = "<html><body><main><table><tr class='question'><td>Q?</td></tr></table></main>"
    (doc,), _ = load_html("t.html", page.replace("Q?", "Which berth is free? " * 5))
    assert "|" in doc.text  # an ordinary table stays a table

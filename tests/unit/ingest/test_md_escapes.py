"""trafilatura's inline escapes taken out of a page's Markdown (`crag.ingest.md_escapes`)."""

from __future__ import annotations

from crag.ingest.documents import load_html
from crag.ingest.md_escapes import unescape_inline


def test_inline_escapes_go() -> None:
    text = r"Run ms\_print on it; mail \<doko@debian.org>; see \~/dir, a\[i\] and char \*\*p."
    plain = "Run ms_print on it; mail <doko@debian.org>; see ~/dir, a[i] and char **p."
    assert unescape_inline(text) == plain


def test_code_and_block_syntax_keep_their_backslashes() -> None:
    assert unescape_inline(r"\* not a list item, x\_y") == r"\* not a list item, x_y"
    assert unescape_inline(r"  \[x] indented") == r"  \[x] indented"
    assert unescape_inline(r"span `re\_x` and a\_b") == r"span `re\_x` and a_b"
    fenced = "```\n" + r"a\_b" + "\n```\n" + r"c\_d"
    assert unescape_inline(fenced) == "```\n" + r"a\_b" + "\n```\nc_d"
    assert unescape_inline(r"\# 1\. \> \- \+ \`") == r"\# 1\. \> \- \+ \`"
    # trafilatura also opens a fence after text on a line: the code is the page's own
    mid = "magic bytes (```\n" + r"a\_b" + "\n```\nthen " + r"c\_d"
    assert unescape_inline(mid) == "magic bytes (```\n" + r"a\_b" + "\n```\nthen c_d"
    assert unescape_inline("an even run \\\\_ stays") == "an even run \\\\_ stays"
    # the page's own backslash before an escaped character, doubled by trafilatura
    assert unescape_inline("path C:\\\\\\_tmp") == "path C:\\_tmp"


def test_an_html_page_reads_as_written() -> None:
    page = (
        "<html><body><article><h1>zpipe</h1><p>"
        + "Call deflate_init with the level; mail <i>doko@debian.org</i> &lt;here&gt;. " * 4
        + "</p><pre>x\\_y = 1</pre></article></body></html>"
    )
    (doc,), _ = load_html("z.html", page)
    assert "deflate_init" in doc.text and "x\\_y = 1" in doc.text  # the page's own backslash
    assert "<here>" in doc.text

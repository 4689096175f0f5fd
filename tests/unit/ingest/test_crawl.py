"""The crawler's pure parts: which links a page offers and what counts as one site. (The
crawl itself runs against a real local site: tests/integration/test_ingest_urls.py.)"""

from __future__ import annotations

from crag.ingest.crawl import is_url, links_of, site_of
from crag.web.fetch import FetchedPage


def _page(html: str, url: str = "http://h.test/a/b.html") -> FetchedPage:
    return FetchedPage(url, url, "text/html", html.encode(), False, 1.0)


def test_links_are_absolute_deduplicated_pages_only() -> None:
    html = (
        '<a href="c.html#top">c</a> <a href="/d">d</a> <a href="c.html">again</a> '
        '<a href="mailto:x@y">mail</a> <a href="pic.PNG">pic</a> <link href="/style.css"> '
        '<a href="https://other.test/e">e</a>'
    )
    assert links_of(_page(html)) == [
        "http://h.test/a/c.html",
        "http://h.test/d",
        "https://other.test/e",
    ]
    assert links_of(_page("")) == []
    assert links_of(FetchedPage("u", "u", "text/plain", b"<a href='x'>", False, 1.0)) == []


def test_site_is_scheme_host_and_port() -> None:
    assert site_of("http://H.test/x") == site_of("http://h.test:80/y") == "http://h.test:80"
    assert site_of("https://h.test/") != site_of("http://h.test/")
    assert is_url("HTTPS://x") and not is_url("/home/x") and not is_url("ftp://x")

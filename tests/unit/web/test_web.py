"""Web correction without models: providers against a real HTTP search double on 127.0.0.1,
the SSRF guard, page limits, extraction, the cache, query-rewrite parsing, and the pipeline
turning every provider failure into an honest refusal instead of a crash."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from tests.support.web_helpers import KEY, ReplyLLM, fetcher

from crag.errors import (
    BlockedAddressError,
    LLMError,
    PageFetchError,
    WebSearchError,
    WebSearchResponseError,
    WebSearchTimeout,
    WebSearchUnavailable,
)
from crag.refine.rewrite import QueryRewriter, keyword_query, parse_keywords
from crag.web import (
    DuckDuckGoSearch,
    PageFetcher,
    SearxngSearch,
    TavilySearch,
    WebCache,
    WebResult,
    WebSearch,
    check_public,
    extract_text,
    page_title,
    prefer_wikipedia,
)

# -- providers over real HTTP -------------------------------------------------------------


def test_tavily_and_searxng_search_the_double(double) -> None:
    for provider in (TavilySearch(api_key=KEY, base_url=double.url), SearxngSearch(double.url)):
        assert isinstance(provider, WebSearch)
        results = provider.search("Zorblat festival town", 3)
        assert results and results[0].url == f"{double.url}/page/festival"
        assert results[0].title == "Zorblat Festival" and "Quillmere" in results[0].snippet
    assert ("POST", "/search") in double.requests
    assert any(m == "GET" and p.startswith("/search?") and "format=json" in p
               for m, p in double.requests)  # fmt: skip


def test_every_registered_provider_conforms_to_the_protocol() -> None:
    from crag.config import WebSettings
    from crag.web import PROVIDERS, make_web_search

    assert set(PROVIDERS) == {"tavily", "searxng", "duckduckgo"}
    for name in PROVIDERS:
        provider = make_web_search(WebSettings(provider=name, searxng_url="http://s.example"))
        assert isinstance(provider, WebSearch) and provider.name == name
    assert make_web_search(WebSettings()) is None  # "none": offline


def test_tavily_key_missing_or_wrong_is_unavailable(double, monkeypatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    with pytest.raises(WebSearchUnavailable, match="TAVILY_API_KEY"):
        TavilySearch(base_url=double.url).search("q", 3)
    assert double.requests == []  # no request without a key
    with pytest.raises(WebSearchUnavailable, match="401"):
        TavilySearch(api_key="wrong", base_url=double.url).search("q", 3)
    monkeypatch.setenv("TAVILY_API_KEY", KEY)  # the environment is where the key comes from
    assert TavilySearch(base_url=double.url).search("Zorblat", 3)


@pytest.mark.parametrize("make", ["tavily", "searxng"])
def test_provider_faults_are_typed(double, make) -> None:
    def provider(timeout: float = 5.0):
        if make == "tavily":
            return TavilySearch(api_key=KEY, base_url=double.url, timeout=timeout)
        return SearxngSearch(double.url, timeout=timeout)

    double.fault = "timeout"
    started = time.perf_counter()
    with pytest.raises(WebSearchTimeout):
        provider(timeout=0.3).search("zorblat", 3)
    assert time.perf_counter() - started < 1.5
    double.fault = "500"
    with pytest.raises(WebSearchResponseError, match="HTTP 500"):
        provider().search("zorblat", 3)
    double.fault = "malformed"
    with pytest.raises(WebSearchResponseError, match="not JSON"):
        provider().search("zorblat", 3)
    double.fault = "empty"
    assert provider().search("zorblat", 3) == []


def test_unreachable_provider_and_searxng_without_json(double) -> None:
    port = httpx.URL(double.url).port
    double.stop()
    with pytest.raises(WebSearchUnavailable, match="cannot reach"):
        SearxngSearch(f"http://127.0.0.1:{port}").search("zorblat", 3)
    with pytest.raises(WebSearchUnavailable, match="searxng_url"):
        SearxngSearch(None).search("zorblat", 3)


def test_searxng_403_names_the_setting_to_change() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(403, text="Forbidden"))
    with pytest.raises(WebSearchUnavailable, match=r"search\.formats"):
        SearxngSearch("http://searx.example", transport=transport).search("q", 3)


def test_duckduckgo_degrades_cleanly_offline(monkeypatch) -> None:
    # Offline made certain: every request goes to a closed port on loopback.
    monkeypatch.setenv("DDGS_PROXY", "http://127.0.0.1:9")
    started = time.perf_counter()
    with pytest.raises(WebSearchError) as caught:
        DuckDuckGoSearch(timeout=2).search("python programming language", 3)
    assert isinstance(caught.value, WebSearchUnavailable | WebSearchTimeout)
    assert "duckduckgo" in str(caught.value)
    assert time.perf_counter() - started < 30


def test_prefer_wikipedia_ranks_wikipedia_first() -> None:
    results = [
        WebResult("https://a.com/x", "", ""),
        WebResult("https://en.wikipedia.org/y", "", ""),
    ]
    assert next(r.url for r in prefer_wikipedia(results)) == "https://en.wikipedia.org/y"


# -- SSRF, page limits, extraction --------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/", "http://10.1.2.3/", "http://192.168.0.1/", "http://172.16.0.1/",
        "http://169.254.169.254/latest/meta-data", "http://[::1]/", "http://[::ffff:127.0.0.1]/",
        "http://0.0.0.0/", "http://224.0.0.1/", "http://100.64.0.1/", "http://[fe80::1]/",
        "file:///etc/passwd", "ftp://example.com/",
    ],
)  # fmt: skip
def test_ssrf_blocks_internal_addresses(url: str) -> None:
    with pytest.raises(BlockedAddressError):
        check_public(url, resolver=lambda h, p: ["93.184.216.34"])


def test_ssrf_checks_every_resolved_address() -> None:
    check_public("http://public.test/", resolver=lambda h, p: ["93.184.216.34"])
    with pytest.raises(BlockedAddressError, match=r"10\.0\.0\.5"):
        check_public("http://mixed.test/", resolver=lambda h, p: ["93.184.216.34", "10.0.0.5"])
    with pytest.raises(BlockedAddressError, match=r"127\.0\.0\.1"):
        check_public("http://localhost/")  # the real resolver


def test_ssrf_on_by_default_never_contacts_loopback(double) -> None:
    with pytest.raises(BlockedAddressError, match="SSRF"):
        PageFetcher().fetch(f"{double.url}/page/festival")
    assert double.requests == []


def test_every_redirect_hop_is_checked() -> None:
    def app(request: httpx.Request) -> httpx.Response:
        assert request.url.host == "public.test", "the internal hop must never be requested"
        return httpx.Response(302, headers={"Location": "http://169.254.169.254/latest/"})

    f = PageFetcher(transport=httpx.MockTransport(app), resolver=lambda h, p: ["93.184.216.34"])
    with pytest.raises(BlockedAddressError, match=r"169\.254\.169\.254"):
        f.fetch("http://public.test/start")


def test_fetch_reads_html_and_follows_redirects(double) -> None:
    double.add([{"id": "moved", "kind": "redirect", "target": "/page/festival", "text": "x"}])
    page = fetcher().fetch(f"{double.url}/page/moved")
    assert page.final_url.endswith("/page/festival") and not page.truncated
    text = extract_text(page.body, page.content_type, page.final_url)
    assert "Quillmere" in text
    assert "SCRIPT-TEXT" not in text and "font-family" not in text  # script/style stripped
    assert page_title(page.body) == "Zorblat Festival"


def test_page_that_never_ends_is_cut_at_the_size_cap(double) -> None:
    started = time.perf_counter()
    page = fetcher(max_bytes=50_000).fetch(f"{double.url}/page/endless")
    assert page.truncated and len(page.body) == 50_000
    assert time.perf_counter() - started < 5


def test_page_that_trickles_forever_hits_the_deadline(double) -> None:
    started = time.perf_counter()
    with pytest.raises(PageFetchError, match="timed out"):
        fetcher(timeout=1.0).fetch(f"{double.url}/page/slow")
    assert time.perf_counter() - started < 3


def test_non_html_and_missing_pages_are_refused(double) -> None:
    with pytest.raises(PageFetchError, match="octet-stream"):
        fetcher().fetch(f"{double.url}/page/binary")
    with pytest.raises(PageFetchError, match="HTTP 404"):
        fetcher().fetch(f"{double.url}/page/nope")


def test_extract_strips_scripts_even_without_main_text() -> None:
    html = b"<html><script>alert('x')</script><style>p{}</style><b>Short bit</b></html>"
    assert extract_text(html) == "Short bit"
    assert extract_text(b"plain  text\nhere", "text/plain") == "plain text here"


# -- cache ----------------------------------------------------------------------------------


def test_cache_expires_and_persists(tmp_path: Path) -> None:
    now = [1000.0]
    cache = WebCache(tmp_path / "c.sqlite3", ttl=60, clock=lambda: now[0])
    cache.put("tavily", "Zorblat  Festival", {"results": [["u", "t", "s"]]})
    assert cache.get("tavily", "zorblat festival") == {"results": [["u", "t", "s"]]}
    assert cache.get("searxng", "zorblat festival") is None  # per provider
    cache.close()
    again = WebCache(tmp_path / "c.sqlite3", ttl=60, clock=lambda: now[0])
    assert again.get("tavily", "zorblat festival") is not None  # on disk
    now[0] += 61
    assert again.get("tavily", "zorblat festival") is None
    assert WebCache(tmp_path / "d.sqlite3", ttl=0).get("tavily", "x") is None


# -- query rewriting ------------------------------------------------------------------------


Q = "who played worf on star trek the next generation?"


@pytest.mark.parametrize(
    ("reply", "method", "query"),
    [
        ("Worf, Star Trek, Next Generation", "llm", "Worf Star Trek Next Generation"),
        ("Query: worf, star trek: the next generation", "llm", None),
        # adds words the question does not have: rejected whole (crag.refine.rewrite_check)
        ("Query: worf, star trek: the next generation, actor, extra", "rejected", None),
        ("", "fallback", None),
        ("Michael Dorn", "rejected", None),  # an answer, not keywords
        ("I'm sorry, as an AI I cannot browse. " * 5, "rejected", None),  # adds 'sorry'…
        (LLMError("model crashed"), "fallback", None),
    ],
)
def test_rewrite_keeps_good_keywords_and_falls_back_on_junk(reply, method, query) -> None:
    rewrite = QueryRewriter(ReplyLLM(reply)).rewrite(Q)
    assert rewrite.method == method
    assert 1 <= len(rewrite.keywords) <= 3
    if query:
        assert rewrite.query == query
    if method in ("fallback", "rejected"):
        assert rewrite.keywords == keyword_query(Q)
        assert bool(rewrite.reason) == (method == "rejected")


def test_keyword_helpers() -> None:
    assert keyword_query(Q) == ("played worf", "star trek", "next generation")
    assert keyword_query("what is it?") == ("what is it?",)
    assert parse_keywords("keywords: a b c, d", "a question about d") == ("a b c", "d")
    assert QueryRewriter(None).rewrite(Q).method == "keywords"

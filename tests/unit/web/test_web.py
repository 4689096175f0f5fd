"""Web correction without models: providers against a real HTTP search double on 127.0.0.1,
the SSRF guard, page limits, extraction, the cache, query-rewrite parsing, and the pipeline
turning every provider failure into an honest refusal instead of a crash."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from tests.servers.search_double import SearchDouble
from tests.support.web_helpers import FESTIVAL, ListRetriever, OverlapEvaluator, ReplyLLM

from crag.errors import (
    BlockedAddressError,
    LLMError,
    PageFetchError,
    WebSearchError,
    WebSearchResponseError,
    WebSearchTimeout,
    WebSearchUnavailable,
)
from crag.generate import Generator
from crag.grading import ActionTrigger
from crag.models.llm.base import ChatResult
from crag.pipeline import Components, Pipeline
from crag.refine import Refiner
from crag.refine.rewrite import QueryRewriter, keyword_query, parse_keywords
from crag.types import Verdict
from crag.web import (
    DuckDuckGoSearch,
    PageFetcher,
    SearxngSearch,
    TavilySearch,
    WebCache,
    WebCorrector,
    WebResult,
    WebSearch,
    check_public,
    extract_text,
    page_title,
    prefer_wikipedia,
)

KEY = "tvly-test-key"
DOCS = [
    FESTIVAL,
    {
        "id": "bees",
        "text": "Honey bees perform a waggle dance to tell nest mates where flowers are.",
    },
    {"id": "endless", "kind": "endless", "title": "Endless", "text": "zorblat endless filler"},
    {"id": "slow", "kind": "slow", "title": "Slow", "text": "zorblat slow trickle"},
    {"id": "binary", "kind": "binary", "title": "Binary", "text": "zorblat binary blob"},
]


@pytest.fixture
def double():
    with SearchDouble(DOCS, api_key=KEY, delay=2.0) as server:
        yield server


def fetcher(**kw) -> PageFetcher:
    return PageFetcher(allow_private_addresses=True, **{"timeout": 1.5, "max_bytes": 100_000, **kw})


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


# -- the corrector and the pipeline ---------------------------------------------------------


def corrector(double, provider=None, **kw) -> WebCorrector:
    provider = provider or TavilySearch(api_key=KEY, base_url=double.url, timeout=1.0)
    return WebCorrector(
        provider,
        QueryRewriter(None),
        Refiner(OverlapEvaluator(), mode="excerption", top_k=3, floor=0.3),
        fetcher=kw.pop("fetcher", fetcher()),
        **kw,
    )


def test_corrector_reads_pages_scores_strips_and_caches(double, tmp_path: Path) -> None:
    web = corrector(double, cache=WebCache(tmp_path / "cache.sqlite3", ttl=3600))
    outcome = web.correct("Where is the Zorblat Festival held?")
    assert not outcome.error and outcome.strips
    strip = outcome.strips[0]
    assert strip.chunk.url == f"{double.url}/page/festival" and strip.chunk.origin == "web"
    assert strip.chunk.title == "Zorblat Festival" and "Quillmere" in strip.text
    rec = outcome.record
    assert rec.provider == "tavily" and rec.cache == "miss"
    assert rec.pages[0].status == "read" and rec.results
    assert {"rewrite", "search", "fetch", "score"} <= set(rec.timings_ms)
    seen = len(double.requests)
    again = web.correct("Where is the Zorblat Festival held?")
    assert again.record.cache == "hit" and len(double.requests) == seen  # cost nothing
    assert [s.text for s in again.strips] == [s.text for s in outcome.strips]


def test_corrector_falls_back_to_snippets_when_ssrf_blocks_pages(double) -> None:
    web = corrector(double, fetcher=PageFetcher())  # SSRF protection on
    outcome = web.correct("Where is the Zorblat Festival held?")
    assert all(p.status == "blocked" for p in outcome.record.pages)
    assert not [p for m, p in double.requests if p.startswith("/page/")]  # never fetched
    assert outcome.strips and outcome.strips[0].chunk.doc_id == "snippet"
    assert "Quillmere" in outcome.strips[0].text


def test_corrector_never_raises_for_provider_failures(double) -> None:
    double.fault = "500"
    outcome = corrector(double).correct("Where is the Zorblat Festival held?")
    assert outcome.strips == [] and "HTTP 500" in outcome.error
    assert outcome.record.error_type == "WebSearchResponseError"


class MustNotGenerate:
    name = "must-not-generate"

    def chat(self, request) -> ChatResult:
        raise AssertionError("the generator must not be called without sources")


def pipeline(web) -> Pipeline:
    evaluator = OverlapEvaluator()
    return Pipeline(
        Components(
            retriever=ListRetriever(["Paris is the capital of France."]),
            evaluator=evaluator,
            trigger=ActionTrigger(upper=0.9, lower=0.5),
            refiner=Refiner(evaluator, top_k=3, floor=0.5),
            generator=Generator(MustNotGenerate()),
            web=web,
        )
    )


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        ("timeout", "web search failed"),
        ("500", "HTTP 500"),
        ("malformed", "not JSON"),
        ("empty", "found nothing relevant"),
    ],
)
def test_pipeline_turns_provider_faults_into_an_honest_refusal(double, fault, expected) -> None:
    double.fault = fault
    answer = pipeline(corrector(double)).ask("Where is the Zorblat Festival held?")
    assert answer.verdict is Verdict.INCORRECT
    assert answer.refused and not answer.citations
    assert expected in answer.text and "web search" in answer.text
    t = answer.trace
    assert t.web is not None and t.web.provider == "tavily" and t.web_query
    assert "web_search" in t.stages_ms
    if fault != "empty":
        assert t.web.error and any("web search failed" in n for n in t.notes)


def test_pipeline_with_duckduckgo_offline_degrades(monkeypatch, double) -> None:
    monkeypatch.setenv("DDGS_PROXY", "http://127.0.0.1:9")
    answer = pipeline(corrector(double, provider=DuckDuckGoSearch(timeout=2))).ask(
        "Where is the Zorblat Festival held?"
    )
    assert answer.refused and "duckduckgo" in answer.text
    web = answer.trace.web
    assert web is not None and web.provider == "duckduckgo" and web.error


def test_searxng_url_from_environment(monkeypatch, tmp_path) -> None:
    from crag.config import load_settings

    monkeypatch.setenv("CRAG_SEARXNG_URL", "http://searx.local:8888")
    monkeypatch.setenv("CRAG_WEB__PROVIDER", "searxng")
    settings = load_settings(data_dir=tmp_path)
    assert settings.web.provider == "searxng"
    assert settings.web.searxng_url == "http://searx.local:8888"


def test_cli_output_tells_local_and_web_sources_apart() -> None:
    from crag.cli.ask import _print_answer, _print_trace
    from crag.cli.common import console
    from crag.trace import PageRecord, RewriteRecord, Trace, WebRecord, WebResultRecord
    from crag.trace import WebStripRecord as Kept
    from crag.types import Answer, Citation

    url = "https://a.example/z"
    web = WebRecord(
        provider="tavily",
        query="zorblat festival",
        rewrite=RewriteRecord(method="llm"),
        cache="miss",
        results=[WebResultRecord(url=url, title="Z", snippet="s")],
        pages=[PageRecord(url=url, status="blocked", reason="internal")],
        strips=[Kept(url=url, kind="page", score=0.9, kept=True, text="Zorblat")],
    )
    trace = Trace(question="q", mode="crag", total_ms=1200.0, web_query="zorblat festival", web=web)
    answer = Answer(
        question="q",
        text="It is in Quillmere [1][2].",
        citations=[
            Citation(1, "c1", "/kb/doc.txt › text chars 0-10", "/kb/doc.txt"),
            Citation(
                2,
                "c2",
                "https://a.example/z › Z",
                "https://a.example/z",
                url="https://a.example/z",
                origin="web",
            ),
        ],
        verdict=Verdict.AMBIGUOUS,
        refused=False,
        trace=trace,
    )
    with console.capture() as out:
        _print_answer(answer)
        _print_trace(answer)
    text = out.get()
    assert "[1] local /kb/doc.txt" in text and "[2] web   https://a.example/z" in text
    assert "web search: tavily" in text and "blocked: internal" in text

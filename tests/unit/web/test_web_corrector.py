"""The web corrector and the pipeline around it, without models: pages read, strips scored
and cached, snippets when pages are blocked, and every provider failure an honest refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.web_helpers import KEY, ListRetriever, OverlapEvaluator, fetcher

from crag.generate import Generator
from crag.grading import ActionTrigger
from crag.models.llm.base import ChatResult
from crag.pipeline import Components, Pipeline
from crag.refine import Refiner
from crag.refine.rewrite import QueryRewriter
from crag.types import Verdict
from crag.web import DuckDuckGoSearch, PageFetcher, TavilySearch, WebCache, WebCorrector

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

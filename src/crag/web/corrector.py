"""Web correction: question → keyword query → search → read pages → strips → scored, top k.

The INCORRECT and AMBIGUOUS branches of CRAG call `WebCorrector.correct(question)`:

1. the grader rewrites the question into at most three keywords (`QueryRewriter`);
2. the provider searches (`WebSearch`), or the cache answers for (provider, query);
3. the top `fetch_pages` result pages are fetched (`PageFetcher`: SSRF check on every hop,
   deadline, size cap) and their main text extracted; any result whose page was not read
   contributes its snippet instead;
4. each page or snippet becomes a `Chunk` carrying its URL and title, is decomposed into
   strips by the same `Refiner` rules as local chunks, pre-filtered by word overlap when
   there are more than `max_strips`, and scored by the *same* evaluator on the *original*
   question; the top k at or above the floor are kept.

A provider failure is not raised: the outcome carries the error and the pipeline answers from
what it has (or refuses, saying why). Everything decided is in `outcome.record`
(`crag.trace.WebRecord`), the trace's `web` entry.
"""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from crag.errors import BlockedAddressError, PageFetchError, WebSearchError
from crag.index.analyzer import Analyzer
from crag.refine.rewrite import STOPWORDS, QueryRewriter
from crag.refine.strips import Refiner
from crag.trace import (
    PageRecord,
    RewriteRecord,
    WebRecord,
    WebResultRecord,
    WebStripRecord,
)
from crag.types import Chunk, Strip
from crag.web.base import WebResult, WebSearch, prefer_wikipedia
from crag.web.cache import WebCache
from crag.web.extract import extract_text, page_title
from crag.web.fetch import PageFetcher

__all__ = ["WebCorrector", "WebOutcome"]

MIN_PAGE_CHARS = 80  # less main text than this: the page is treated as unread (snippet used)


@dataclass(slots=True)
class WebOutcome:
    strips: list[Strip]  # kept, reading order
    query: str
    record: WebRecord
    scored: list[Strip] = field(default_factory=list)
    error: str = ""  # the provider's failure, "" when the search itself worked


def _page_record(url: str, page: dict[str, Any]) -> PageRecord:
    """The trace's record of a page read (or not): the cached page dict without its text."""
    return PageRecord.model_validate(
        {"url": url, **{k: v for k, v in page.items() if k not in ("text", "url")}}
    )


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


class WebCorrector:
    def __init__(
        self,
        search: WebSearch,
        rewriter: QueryRewriter,
        refiner: Refiner,
        *,
        fetcher: PageFetcher | None = None,
        cache: WebCache | None = None,
        max_results: int = 5,
        fetch_pages: int = 3,
        max_strips: int = 24,
        prefer_wikipedia: bool = False,
    ) -> None:
        self.search = search
        self.rewriter = rewriter
        self.refiner = refiner
        self.fetcher = fetcher
        self.cache = cache
        self.max_results = max_results
        self.fetch_pages = fetch_pages if fetcher is not None else 0
        self.max_strips = max_strips
        self.prefer_wikipedia = prefer_wikipedia
        self._analyzer = Analyzer("english")
        self._stop = set(self._analyzer.terms(" ".join(STOPWORDS)))

    def correct(self, question: str) -> WebOutcome:
        timings: dict[str, float] = {}
        started = time.perf_counter()
        rewrite = self.rewriter.rewrite(question)
        timings["rewrite"] = _ms(started)
        query = f"Wikipedia, {rewrite.query}" if self.prefer_wikipedia else rewrite.query
        record = WebRecord(
            provider=self.search.name,
            query=query,
            rewrite=RewriteRecord(
                method=rewrite.method,
                keywords=list(rewrite.keywords),
                raw=rewrite.raw[:200],
                reason=rewrite.reason,
            ),
            timings_ms=timings,
        )
        try:
            results, pages, cached = self._lookup(query, timings)
        except WebSearchError as exc:
            failed = record.model_copy(
                update={"error": str(exc), "error_type": type(exc).__name__, "timings_ms": timings}
            )
            return WebOutcome([], query, failed, error=str(exc))
        chunks = self._chunks(results, pages, query)
        strips = self.refiner.decompose(chunks)
        candidates = self._prefilter(question, query, strips)
        started = time.perf_counter()
        kept, scored = self.refiner.select(question, candidates)
        timings["score"] = _ms(started)
        kept_orders = {s.order for s in kept}
        record = record.model_copy(
            update={
                "cache": "hit" if cached else ("miss" if self._caching else "off"),
                "results": [
                    WebResultRecord(url=r.url, title=r.title, snippet=r.snippet[:300])
                    for r in results
                ],
                "pages": [_page_record(url, p) for url, p in pages.items()],
                "strips_considered": len(strips),
                "strips": [
                    WebStripRecord(
                        url=s.chunk.url,
                        kind=s.chunk.doc_id,
                        score=round(s.score, 4),
                        kept=s.order in kept_orders,
                        text=s.text,
                    )
                    for s in scored
                ],
                "timings_ms": timings,
            }
        )
        return WebOutcome(kept, query, record, scored)

    @property
    def _caching(self) -> bool:
        return self.cache is not None and self.cache.ttl > 0

    def _lookup(
        self, query: str, timings: dict[str, float]
    ) -> tuple[list[WebResult], dict[str, dict[str, Any]], bool]:
        """(results, url → page record, from cache?) — the only part that costs requests."""
        if self.cache is not None:
            hit = self.cache.get(self.search.name, query)
            if hit is not None:
                results = [WebResult(*r) for r in hit.get("results", [])]
                return results, hit.get("pages", {}), True
        started = time.perf_counter()
        results = self.search.search(query, self.max_results)
        timings["search"] = _ms(started)
        unique: dict[str, WebResult] = {}
        for r in results:
            unique.setdefault(r.url, r)
        results = list(unique.values())
        if self.prefer_wikipedia:
            results = prefer_wikipedia(results)
        started = time.perf_counter()
        pages = self._read(results[: self.fetch_pages])
        timings["fetch"] = _ms(started)
        if self.cache is not None:
            self.cache.put(
                self.search.name,
                query,
                {"results": [[r.url, r.title, r.snippet] for r in results], "pages": pages},
            )
        return results, pages, False

    def _read(self, results: list[WebResult]) -> dict[str, dict[str, Any]]:
        if not results or self.fetcher is None:
            return {}
        with ThreadPoolExecutor(max_workers=len(results)) as pool:
            records = list(pool.map(self._read_one, results))
        return {r.url: rec for r, rec in zip(results, records, strict=True)}

    def _read_one(self, result: WebResult) -> dict[str, Any]:
        assert self.fetcher is not None
        started = time.perf_counter()
        try:
            page = self.fetcher.fetch(result.url)
        except BlockedAddressError as exc:
            return {"status": "blocked", "reason": exc.reason, "ms": _ms(started)}
        except PageFetchError as exc:
            return {"status": "failed", "reason": exc.reason, "ms": _ms(started)}
        text = extract_text(page.body, page.content_type, page.final_url)
        out: dict[str, Any] = {
            "status": "read",
            "final_url": page.final_url,
            "bytes": len(page.body),
            "chars": len(text),
            "truncated": page.truncated,
            "ms": _ms(started),
            "title": page_title(page.body),
            "text": text,
        }
        if len(text) < MIN_PAGE_CHARS:
            out.update(status="failed", reason=f"only {len(text)} characters of main text")
        return out

    def _chunks(
        self, results: list[WebResult], pages: dict[str, dict[str, Any]], query: str
    ) -> list[Chunk]:
        chunks = []
        for rank, r in enumerate(results):
            page = pages.get(r.url, {})
            read = page.get("status") == "read"
            text = page["text"] if read else r.snippet.strip()
            if not text:
                continue
            kind = "page" if read else "snippet"
            title = r.title or page.get("title", "")
            cid = hashlib.sha256(f"{r.url}\x00{kind}\x00{text}".encode()).hexdigest()
            chunks.append(
                Chunk(
                    id=cid,
                    text=text,
                    source=r.url,
                    doc_id=kind,
                    position=rank,
                    start=0,
                    end=len(text),
                    title=title,
                    url=r.url,
                    metadata={"origin": "web", "provider": self.search.name, "query": query},
                )
            )
        return chunks

    def _prefilter(self, question: str, query: str, strips: list[Strip]) -> list[Strip]:
        """At most `max_strips`: those sharing the most words with the question and query."""
        if len(strips) <= self.max_strips:
            return strips
        wanted = set(self._analyzer.terms(f"{question} {query}")) - self._stop

        def overlap(s: Strip) -> int:
            return len(wanted & set(self._analyzer.terms(s.text)))

        best = sorted(strips, key=lambda s: (-overlap(s), s.order))[: self.max_strips]
        return sorted(best, key=lambda s: s.order)

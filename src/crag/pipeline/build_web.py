"""The web corrector from settings: what `build_pipeline` wires in when `web.provider` is set.

Kept apart from `crag.pipeline.build` because it assembles a whole stage of its own (search,
rewrite, page reading, cache, and a refiner for the pages' strips) from `settings.web`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crag.config import Settings
from crag.models.llm import LLM

if TYPE_CHECKING:
    from crag.grading.base import RetrievalEvaluator
    from crag.web import WebCorrector, WebSearch

__all__ = ["make_web_corrector"]


def make_web_corrector(
    settings: Settings,
    grader: LLM,
    evaluator: RetrievalEvaluator,
    floor: float,
    search: WebSearch | None = None,
) -> WebCorrector | None:
    """The web corrector for `settings.web`, or None when `web.provider` is "none".

    Its strips are judged by the same `evaluator` as local strips and kept from `floor` up:
    no page's best strip is kept whatever its score, as a leading local chunk's is
    (`refine.keep_best_of`): a local chunk's rank is retrieval evidence, a page's place in
    the search results is not (on NQ questions whose passage exists nowhere, pages scored
    0.02 were read and answered from). `search` replaces the configured provider (tests,
    other providers).
    """
    from crag.refine import Refiner
    from crag.refine.rewrite import QueryRewriter
    from crag.web import PageFetcher, WebCache, WebCorrector, make_web_search

    web = settings.web
    search = search or make_web_search(web)
    if search is None:
        return None
    return WebCorrector(
        search,
        QueryRewriter(grader if web.rewrite else None),
        Refiner(
            evaluator,
            mode=settings.refine.mode,
            top_k=web.top_k,
            floor=floor,
            keep_best_of=0,
            excerpt_sentences=settings.refine.excerpt_sentences,
            excerpt_chars=settings.refine.excerpt_chars,
            window_words=settings.refine.window_words,
        ),
        fetcher=PageFetcher(
            timeout=web.fetch_timeout,
            max_bytes=web.max_page_bytes,
            max_redirects=web.max_redirects,
            allow_private_addresses=web.allow_private_addresses,
            user_agent=web.user_agent,
        )
        if web.fetch_pages
        else None,
        cache=WebCache(settings.data_dir / "web-cache.sqlite3", web.cache_ttl)
        if web.cache_ttl > 0
        else None,
        max_results=web.max_results,
        fetch_pages=web.fetch_pages,
        max_strips=web.max_strips,
        prefer_wikipedia=web.prefer_wikipedia,
    )

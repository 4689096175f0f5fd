"""Web correction: search providers, safe page reading, extraction, cache, and the corrector.

Providers implement `WebSearch` (one method, `search(query, max_results)`); `WebCorrector`
turns a question into scored web strips for the pipeline's INCORRECT and AMBIGUOUS branches.
"""

from crag.web.base import WebResult, WebSearch, prefer_wikipedia
from crag.web.cache import WebCache
from crag.web.corrector import WebCorrector, WebOutcome
from crag.web.duckduckgo import DuckDuckGoSearch
from crag.web.extract import extract_text, page_title
from crag.web.fetch import FetchedPage, PageFetcher, check_public
from crag.web.registry import PROVIDERS, make_web_search
from crag.web.searxng import SearxngSearch
from crag.web.tavily import TavilySearch

__all__ = [
    "PROVIDERS",
    "DuckDuckGoSearch",
    "FetchedPage",
    "PageFetcher",
    "SearxngSearch",
    "TavilySearch",
    "WebCache",
    "WebCorrector",
    "WebOutcome",
    "WebResult",
    "WebSearch",
    "check_public",
    "extract_text",
    "make_web_search",
    "page_title",
    "prefer_wikipedia",
]

"""Providers by name, as configured in `web.provider`: the one place that maps names to classes.

`make_web_search(settings.web)` returns None for "none" (the offline default). Adding a
provider is one entry in `PROVIDERS`: a function from `WebSettings` to a `WebSearch`.
"""

from __future__ import annotations

from collections.abc import Callable

from crag.config import WebSettings
from crag.errors import ConfigError
from crag.web.base import WebSearch
from crag.web.duckduckgo import DuckDuckGoSearch
from crag.web.searxng import SearxngSearch
from crag.web.tavily import TavilySearch

__all__ = ["PROVIDERS", "make_web_search"]

PROVIDERS: dict[str, Callable[[WebSettings], WebSearch]] = {
    "tavily": lambda w: TavilySearch(base_url=w.tavily_url, timeout=w.search_timeout),
    "searxng": lambda w: SearxngSearch(w.searxng_url, timeout=w.search_timeout),
    "duckduckgo": lambda w: DuckDuckGoSearch(timeout=w.search_timeout),
}


def make_web_search(web: WebSettings) -> WebSearch | None:
    """The configured provider, or None when web search is off (`provider = "none"`)."""
    if web.provider == "none":
        return None
    factory = PROVIDERS.get(web.provider)
    if factory is None:  # pragma: no cover - the settings validate the name
        raise ConfigError(f"web.provider={web.provider!r}: use one of none, {', '.join(PROVIDERS)}")
    return factory(web)

"""The `WebSearch` protocol: a query in, a ranked list of (url, title, snippet) out.

One required method, `search`, so a provider is a thin translation of one HTTP API (Tavily,
SearXNG) or library (ddgs). Providers raise only `WebSearchError` subclasses
(`WebSearchUnavailable`, `WebSearchTimeout`, `WebSearchResponseError`); everything after the
search — reading pages, strips, scoring — is shared and lives in `WebCorrector`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable
from urllib.parse import urlsplit

__all__ = ["WebResult", "WebSearch", "prefer_wikipedia"]


@dataclass(frozen=True, slots=True)
class WebResult:
    """One search hit. `snippet` is the provider's text for it (used when the page cannot be
    read)."""

    url: str
    title: str
    snippet: str

    @property
    def host(self) -> str:
        return (urlsplit(self.url).hostname or "").lower()


@runtime_checkable
class WebSearch(Protocol):
    """A search provider. `name` identifies it in traces and in the cache key."""

    name: str

    def search(self, query: str, max_results: int) -> list[WebResult]:
        """Up to `max_results` results, best first; raises `WebSearchError` on failure."""
        ...


def prefer_wikipedia(results: list[WebResult]) -> list[WebResult]:
    """Wikipedia pages first, otherwise in the provider's order (the official CRAG code's
    "wiki" mode reads only wikipedia.org pages; we rank them first and keep the rest)."""

    def is_wiki(r: WebResult) -> bool:
        return r.host == "wikipedia.org" or r.host.endswith(".wikipedia.org")

    return sorted(results, key=lambda r: not is_wiki(r))

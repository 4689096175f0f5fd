"""DuckDuckGo through the `ddgs` library: no key, no account.

`ddgs` is an optional extra (`pip install 'crag[web]'`). Offline, or when DuckDuckGo limits
the rate, it raises its own exceptions; they become `WebSearchUnavailable` /
`WebSearchTimeout`, so the pipeline degrades instead of crashing.
"""

from __future__ import annotations

from typing import Any

from crag.errors import WebSearchTimeout, WebSearchUnavailable
from crag.web.base import WebResult

__all__ = ["DuckDuckGoSearch"]


class DuckDuckGoSearch:
    name = "duckduckgo"

    def __init__(self, *, timeout: float = 10.0, backend: str = "duckduckgo") -> None:
        self._timeout = timeout
        self._backend = backend

    def _client(self) -> Any:
        try:
            from ddgs import DDGS
        except ImportError as exc:
            raise WebSearchUnavailable(
                self.name, "the 'ddgs' package is missing: pip install 'crag[web]'"
            ) from exc
        return DDGS(timeout=max(1, round(self._timeout)))

    def search(self, query: str, max_results: int) -> list[WebResult]:
        client = self._client()
        from ddgs.exceptions import DDGSException, TimeoutException

        try:
            items = client.text(query, max_results=max_results, backend=self._backend)
        except TimeoutException as exc:
            raise WebSearchTimeout(self.name, f"no answer within {self._timeout}s: {exc}") from exc
        except DDGSException as exc:
            if "no results" in str(exc).lower():
                return []
            raise WebSearchUnavailable(
                self.name, f"search failed ({exc}); offline, or rate-limited: try again later"
            ) from exc
        out = []
        for item in items or []:
            url = str(item.get("href") or item.get("url") or "")
            if url:
                out.append(
                    WebResult(url, str(item.get("title") or ""), str(item.get("body") or ""))
                )
        return out[:max_results]

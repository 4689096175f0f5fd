"""SearXNG: `GET {base}/search?q=...&format=json` on any instance with the JSON format enabled.

The base URL comes from `web.searxng_url` or `CRAG_SEARXNG_URL`. An instance without the JSON
format answers 403; the error says which setting to change there.
"""

from __future__ import annotations

import httpx

from crag.errors import WebSearchUnavailable
from crag.web._http import request_json, web_results
from crag.web.base import WebResult

__all__ = ["SearxngSearch"]


class SearxngSearch:
    name = "searxng"

    def __init__(
        self,
        base_url: str | None,
        *,
        timeout: float = 10.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._base = (base_url or "").rstrip("/")
        self._client = httpx.Client(timeout=timeout, transport=transport)

    def search(self, query: str, max_results: int) -> list[WebResult]:
        if not self._base:
            raise WebSearchUnavailable(
                self.name, "no instance: set web.searxng_url or CRAG_SEARXNG_URL"
            )
        url = f"{self._base}/search"
        try:
            data = request_json(
                self._client, self.name, "GET", url, params={"q": query, "format": "json"}
            )
        except WebSearchUnavailable as exc:
            if "HTTP 403" in str(exc):
                raise WebSearchUnavailable(
                    self.name,
                    f"{url} refused format=json (HTTP 403): enable it under search.formats "
                    "in the instance's settings.yml",
                ) from exc
            raise
        return web_results(data, self.name, max_results)

    def close(self) -> None:
        self._client.close()

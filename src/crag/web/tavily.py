"""Tavily: `POST {base}/search` with a JSON body, the key as a bearer token.

The key comes only from the environment (`TAVILY_API_KEY`), never from crag.toml. The base URL
is configurable (`web.tavily_url`) so a proxy, or the loopback test double in
`bench/search_double.py`, can stand in for the hosted API.
"""

from __future__ import annotations

import os

import httpx

from crag.errors import WebSearchUnavailable
from crag.web._http import request_json, web_results
from crag.web.base import WebResult

__all__ = ["TavilySearch"]

KEY_ENV = "TAVILY_API_KEY"


class TavilySearch:
    name = "tavily"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str = "https://api.tavily.com",
        timeout: float = 10.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._key = api_key if api_key is not None else os.environ.get(KEY_ENV, "")
        self._url = base_url.rstrip("/") + "/search"
        self._client = httpx.Client(timeout=timeout, transport=transport)

    def search(self, query: str, max_results: int) -> list[WebResult]:
        if not self._key:
            raise WebSearchUnavailable(
                self.name,
                f"no API key: set {KEY_ENV} in the environment (crag.toml never holds it)",
            )
        data = request_json(
            self._client,
            self.name,
            "POST",
            self._url,
            json={
                "query": query,
                "max_results": max_results,
                "search_depth": "basic",
                "include_answer": False,
                "include_raw_content": False,
            },
            headers={"Authorization": f"Bearer {self._key}"},
        )
        return web_results(data, self.name, max_results)

    def close(self) -> None:
        self._client.close()

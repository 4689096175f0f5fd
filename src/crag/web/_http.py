"""One JSON request for the HTTP providers, with httpx's failures mapped onto crag's errors.

Why one helper: Tavily and SearXNG differ only in the request they send and the JSON they
read; timeouts, refused connections, error statuses and bodies that are not JSON must read the
same in every trace and fail the same way in every test.
"""

from __future__ import annotations

from typing import Any

import httpx

from crag.errors import WebSearchResponseError, WebSearchTimeout, WebSearchUnavailable
from crag.web.base import WebResult

__all__ = ["request_json", "results_list", "web_results"]


def request_json(
    client: httpx.Client, provider: str, method: str, url: str, **kwargs: Any
) -> dict[str, Any]:
    """Send the request and return its JSON object, or raise a `WebSearchError`."""
    try:
        response = client.request(method, url, **kwargs)
    except httpx.TimeoutException as exc:
        raise WebSearchTimeout(
            provider, f"no answer from {url} within {client.timeout.read}s ({type(exc).__name__})"
        ) from exc
    except httpx.HTTPError as exc:
        raise WebSearchUnavailable(
            provider, f"cannot reach {url}: {exc or type(exc).__name__}; check the URL"
        ) from exc
    if response.status_code in (401, 403):
        raise WebSearchUnavailable(
            provider, f"{url} refused access (HTTP {response.status_code}): {_brief(response)}"
        )
    if response.status_code >= 400:
        raise WebSearchResponseError(
            provider, f"{url} answered HTTP {response.status_code}: {_brief(response)}"
        )
    try:
        data = response.json()
    except ValueError as exc:
        raise WebSearchResponseError(
            provider, f"{url} answered with a body that is not JSON: {_brief(response)}"
        ) from exc
    if not isinstance(data, dict):
        raise WebSearchResponseError(
            provider, f"{url} answered JSON of type {type(data).__name__}, not an object"
        )
    return data


def _brief(response: httpx.Response) -> str:
    text = " ".join(response.text.split())
    return repr(text[:160] + ("…" if len(text) > 160 else ""))


def results_list(data: dict[str, Any], provider: str, key: str = "results") -> list[dict[str, Any]]:
    """`data[key]` as a list of objects; anything else is a `WebSearchResponseError`."""
    items = data.get(key)
    if items is None:
        raise WebSearchResponseError(provider, f"the response has no {key!r} list")
    if not isinstance(items, list):
        raise WebSearchResponseError(provider, f"{key!r} is {type(items).__name__}, not a list")
    return [item for item in items if isinstance(item, dict)]


def web_results(data: dict[str, Any], provider: str, max_results: int) -> list[WebResult]:
    """The `results` list of a Tavily or SearXNG answer — both name the fields `url`, `title`,
    `content` — as `WebResult`s, results without a URL skipped, at most `max_results`."""
    out = []
    for item in results_list(data, provider):
        url = str(item.get("url") or "")
        if url:
            out.append(WebResult(url, str(item.get("title") or ""), str(item.get("content") or "")))
    return out[:max_results]

"""Reading result pages safely: SSRF check on every hop, a deadline, a size cap, HTML only.

A search result is a URL chosen by someone else. Each request (the first and every redirect,
which are followed by hand for that reason) may reach public addresses only: the host is
resolved once, as the connection is made, every address it resolves to must be public, and the
connection goes to a checked address (`crag.web.addresses`), so a DNS server that answers
differently for a check and a connection (DNS rebinding) gains nothing. `allow_private_addresses`
turns this off for local test servers only. With an injected `transport`, whose connections
are its own, each hop's host is checked before the request instead.

The body is streamed and cut at `max_bytes` (the page is kept, marked truncated), and only
HTML, XHTML and plain text are read. One wall-clock `timeout` bounds the whole fetch: name
resolution, connect, headers, body and every redirect hop together, enforced at the socket
(`crag.web.deadline`), so a slow resolver, a server that trickles its headers or body, a
redirect chain or a slow connect ends it within the deadline.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from crag.errors import BlockedAddressError, PageFetchError
from crag.web.addresses import (
    Resolver,
    check_public,
    check_target,
    public_addresses,
    resolve_within,
    system_resolver,
)
from crag.web.deadline import Deadline, deadline_transport

__all__ = ["FetchedPage", "PageFetcher", "check_public"]

READABLE = ("text/html", "application/xhtml+xml", "text/plain")


@dataclass(frozen=True, slots=True)
class FetchedPage:
    url: str  # as asked
    final_url: str  # after redirects
    content_type: str
    body: bytes
    truncated: bool
    ms: float


class PageFetcher:
    """GET one page under the rules above; raises `PageFetchError` (or `BlockedAddressError`)."""

    def __init__(
        self,
        *,
        timeout: float = 8.0,
        max_bytes: int = 1_000_000,
        max_redirects: int = 5,
        allow_private_addresses: bool = False,
        user_agent: str = "crag",
        transport: httpx.BaseTransport | None = None,
        resolver: Resolver = system_resolver,
    ) -> None:
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self.allow_private = allow_private_addresses
        self._resolver = resolver
        self._deadline = Deadline()
        # our own connections are checked as they are made; an injected transport's are not
        self._pinned = transport is None and not allow_private_addresses
        guard = self._public if self._pinned else None
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            transport=transport or deadline_transport(self._deadline, guard),
            headers={"User-Agent": user_agent, "Accept": "text/html,text/plain;q=0.8"},
        )

    def fetch(self, url: str) -> FetchedPage:
        with self._deadline.run(self.timeout):
            return self._fetch(url)

    def _fetch(self, url: str) -> FetchedPage:
        started = time.perf_counter()
        deadline = started + self.timeout
        current = url
        for _hop in range(self.max_redirects + 1):
            if time.perf_counter() > deadline:
                raise PageFetchError(url, f"timed out after {self.timeout}s (redirects)")
            if self._pinned:
                check_target(current)  # resolved and checked as it connects (self._public)
            elif not self.allow_private:
                check_public(current, self._resolver)
            elif urlsplit(current).scheme not in ("http", "https"):
                raise BlockedAddressError(current, "not an http(s) URL")
            location = self._get(current, url, deadline, started)
            if isinstance(location, FetchedPage):
                return location
            current = location
        raise PageFetchError(url, f"more than {self.max_redirects} redirects")

    def _send(self, current: str, asked: str, deadline: float) -> httpx.Response:
        """The response headers of a GET, asked again once on a fresh connection when a pooled
        one turns out closed before any of the response came (a server may close an idle
        keep-alive connection at any time; RFC 9112 §9.3.1 lets a client retry an idempotent
        request then)."""
        request = self._client.build_request("GET", current)
        try:
            return self._request(request, current)
        except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError) as exc:
            if time.perf_counter() > deadline:
                raise PageFetchError(asked, f"{type(exc).__name__}: {exc}") from exc
            return self._request(request, current)

    def _request(self, request: httpx.Request, current: str) -> httpx.Response:
        try:
            return self._client.send(request, stream=True)
        except PageFetchError as exc:  # from `_public` as it connected: name this hop's URL
            raise type(exc)(current, exc.reason) from exc

    def _public(self, host: str, port: int, seconds: float | None) -> list[str]:
        """The addresses a connection to `host` may use: resolved once, within the `seconds`
        left of the fetch, every one public (the `Guard` of `crag.web.deadline`)."""

        def resolve(name: str, number: int) -> list[str]:
            return resolve_within(self._resolver, name, number, seconds)

        return public_addresses(f"{host}:{port}", host, port, resolve)

    def _get(self, current: str, asked: str, deadline: float, started: float) -> FetchedPage | str:
        try:
            response = self._send(current, asked, deadline)
            try:
                if response.is_redirect:
                    target: str | None = response.headers.get("location")
                    if not target:
                        raise PageFetchError(asked, f"redirect without Location from {current}")
                    return urljoin(current, target)
                if response.status_code >= 400:
                    raise PageFetchError(asked, f"HTTP {response.status_code}")
                ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
                if ctype and ctype not in READABLE:
                    raise PageFetchError(asked, f"content type {ctype!r} is not a web page")
                declared = response.headers.get("content-length", "")
                truncated = declared.isdigit() and int(declared) > self.max_bytes
                body = bytearray()
                for piece in response.iter_bytes():
                    body += piece
                    if len(body) >= self.max_bytes:
                        del body[self.max_bytes :]
                        truncated = True
                        break
                    if time.perf_counter() > deadline:
                        raise PageFetchError(
                            asked, f"timed out after {self.timeout}s ({len(body)} bytes read)"
                        )
            finally:
                response.close()
        except httpx.TimeoutException as exc:
            raise PageFetchError(
                asked, f"timed out: {self.timeout}s for the whole fetch ({type(exc).__name__})"
            ) from exc
        except httpx.HTTPError as exc:
            raise PageFetchError(asked, f"{type(exc).__name__}: {exc}") from exc
        ms = (time.perf_counter() - started) * 1000
        return FetchedPage(asked, current, ctype or "text/html", bytes(body), truncated, ms)

    def close(self) -> None:
        self._client.close()

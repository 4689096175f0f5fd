"""Reading result pages safely: SSRF check on every hop, a deadline, a size cap, HTML only.

A search result is a URL chosen by someone else. Before each request (the first and every
redirect, which are followed by hand for that reason) the host is resolved and *every*
address it resolves to must be public: private, loopback, link-local, multicast, reserved and
unspecified addresses are refused (`BlockedAddressError`), as are IPv4 addresses wrapped in
IPv6 forms. `allow_private_addresses` turns this off for local test servers only.

The body is streamed and cut at `max_bytes` (the page is kept, marked truncated), and only
HTML, XHTML and plain text are read. One wall-clock `timeout` bounds the whole fetch: connect,
headers, body and every redirect hop together, enforced at the socket (`crag.web.deadline`),
so a server that trickles its headers or body, a redirect chain or a slow connect ends it
within the deadline. (Name resolution is not bounded by it.)

Known limit: the address is checked, then httpx resolves the name again to connect; a DNS
server that answers differently within that window (DNS rebinding) is not caught.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from crag.errors import BlockedAddressError, PageFetchError
from crag.web.deadline import Deadline, deadline_transport

__all__ = ["FetchedPage", "PageFetcher", "check_public"]

READABLE = ("text/html", "application/xhtml+xml", "text/plain")
Resolver = Callable[[str, int], list[str]]


def _resolve(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


def _internal(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if inner is not None and _internal(inner):
            return True
        if ip in ipaddress.IPv6Network("64:ff9b::/96"):  # NAT64 of an IPv4 address
            return _internal(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or not ip.is_global
    )


def check_public(url: str, resolver: Resolver = _resolve) -> None:
    """Raise `BlockedAddressError` unless every address `url`'s host resolves to is public."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise BlockedAddressError(url, f"scheme {parts.scheme!r} is not http(s)")
    host = parts.hostname
    if not host:
        raise BlockedAddressError(url, "no host")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise BlockedAddressError(url, f"bad port: {exc}") from exc
    try:
        addresses = [host] if _is_ip(host) else resolver(host, port)
    except OSError as exc:
        raise PageFetchError(url, f"cannot resolve {host}: {exc}") from exc
    if not addresses:
        raise PageFetchError(url, f"{host} resolves to no address")
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        if _internal(ip):
            raise BlockedAddressError(
                url,
                f"{host} resolves to {ip}, an internal address (SSRF protection; "
                "web.allow_private_addresses=true allows it for local test servers)",
            )


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return True


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
        resolver: Resolver = _resolve,
    ) -> None:
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self.allow_private = allow_private_addresses
        self._resolver = resolver
        self._deadline = Deadline()
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            transport=transport or deadline_transport(self._deadline),
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
            if not self.allow_private:
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
            return self._client.send(request, stream=True)
        except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError) as exc:
            if time.perf_counter() > deadline:
                raise PageFetchError(asked, f"{type(exc).__name__}: {exc}") from exc
            return self._client.send(request, stream=True)

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

"""F3: one deadline for the whole page fetch, against real loopback servers that trickle
headers or body, stay silent, chain slow redirects, or never accept the connection. Each fetch
must end within the deadline + 0.5 s (with `fetch_timeout=2.0` a trickled-headers fetch used to
take 20.2 s, a redirect chain 9.0 s)."""

from __future__ import annotations

import time

import httpx
import pytest
from tests.servers.stalling import StallingServer, full_backlog

from crag.errors import PageFetchError
from crag.web.fetch import PageFetcher

DEADLINE = 1.0


@pytest.fixture(scope="module")
def server():
    with StallingServer(gap=0.15) as s:
        yield s


def _timed_fetch(url: str, **kw) -> tuple[float, PageFetchError]:
    fetcher = PageFetcher(allow_private_addresses=True, timeout=DEADLINE, **kw)
    started = time.monotonic()
    try:
        with pytest.raises(PageFetchError) as caught:
            fetcher.fetch(url)
    finally:
        fetcher.close()
    return time.monotonic() - started, caught.value


@pytest.mark.parametrize(
    "path",
    ["/trickle-headers", "/trickle-body", "/silent", "/redirect/0", "/redirect-to-trickle"],
)
def test_attacks_end_within_the_deadline(server, path: str) -> None:
    took, error = _timed_fetch(server.url + path, max_redirects=50)
    assert took <= DEADLINE + 0.5, (path, took)
    assert "timed out" in str(error)


def test_slow_connect_ends_within_the_deadline() -> None:
    with full_backlog() as url:
        took, error = _timed_fetch(url + "/page")
    assert took <= DEADLINE + 0.5, took
    assert "timed out" in str(error) or "ConnectTimeout" in str(error)


def test_a_quick_page_still_loads_and_a_fetcher_serves_many_deadlines(server) -> None:
    fetcher = PageFetcher(allow_private_addresses=True, timeout=DEADLINE)
    try:
        for _ in range(3):  # each fetch has its own deadline; a pooled connection is reused
            page = fetcher.fetch(server.url + "/ok")
            assert b"A quick page" in page.body
        with pytest.raises(PageFetchError):
            fetcher.fetch(server.url + "/trickle-headers")
        assert b"A quick page" in fetcher.fetch(server.url + "/ok").body
    finally:
        fetcher.close()


class _ResetFirst(httpx.BaseTransport):
    """A real transport whose first `resets` requests find their pooled connection closed by
    the server (what a keep-alive connection looks like when the server closed it idle)."""

    def __init__(self, resets: int) -> None:
        self.resets = resets
        self.calls = 0
        self._real = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        if self.calls <= self.resets:
            raise httpx.ReadError("[Errno 104] Connection reset by peer", request=request)
        return self._real.handle_request(request)

    def close(self) -> None:
        self._real.close()


def test_a_connection_closed_under_a_request_is_asked_again_once(server) -> None:
    once = _ResetFirst(resets=1)
    fetcher = PageFetcher(allow_private_addresses=True, timeout=DEADLINE, transport=once)
    try:
        assert b"A quick page" in fetcher.fetch(server.url + "/ok").body
        assert once.calls == 2
    finally:
        fetcher.close()
    twice = _ResetFirst(resets=2)
    fetcher = PageFetcher(allow_private_addresses=True, timeout=DEADLINE, transport=twice)
    try:
        with pytest.raises(PageFetchError, match="ReadError"):
            fetcher.fetch(server.url + "/ok")
        assert twice.calls == 2  # one retry, not a loop
    finally:
        fetcher.close()

"""One absolute deadline for everything a page fetch does on the network.

httpx's timeouts are per operation: every `recv` gets a fresh read timeout, so a server that
sends one header byte a second holds a fetch forever, and every redirect hop starts afresh
(issue 21: `fetch_timeout=2.0` held a fetch 20.2 s). Here the socket layer itself is bounded:
an httpcore network backend whose connect, TLS handshake, reads and writes each get at most the
time left until the deadline of the fetch running in this thread, and fail with a timeout once
it has passed. The deadline is per thread (`Deadline.run`), so one transport serves parallel
fetches, each with its own.

Given a `guard`, the backend also decides where it connects: the guard resolves the host and
checks its addresses (`crag.web.addresses`), and the backend connects to those addresses, in
order, never resolving the name again (a second resolution is what DNS rebinding exploits).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

__all__ = ["Deadline", "DeadlineBackend", "Guard", "deadline_transport"]

# (host, port, seconds left or None) -> the addresses to connect to, each already checked
Guard = Callable[[str, int, float | None], list[str]]


class Deadline:
    """The deadline (a `time.monotonic()` value) of the fetch in the calling thread."""

    def __init__(self) -> None:
        self._local = threading.local()

    @contextmanager
    def run(self, seconds: float) -> Iterator[float]:
        previous = getattr(self._local, "at", None)
        self._local.at = time.monotonic() + seconds
        try:
            yield self._local.at
        finally:
            self._local.at = previous

    def left(self, timeout: float | None, error: type[Exception]) -> float | None:
        """`timeout` clamped to the time left; `error` when none is left."""
        at: float | None = getattr(self._local, "at", None)  # per thread; unset: no deadline
        if at is None:
            return timeout
        left = at - time.monotonic()
        if left <= 0:
            raise error("the fetch deadline has passed")
        return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream, deadline: Deadline) -> None:
        self._inner = inner
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._deadline.left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._deadline.left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        left = self._deadline.left(timeout, httpcore.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, left), self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore.SyncBackend):
    """`httpcore.SyncBackend` whose connections obey the calling thread's `Deadline` and, given
    a `guard`, go only to the addresses the guard resolved and checked."""

    def __init__(self, deadline: Deadline, guard: Guard | None = None) -> None:
        self.deadline = deadline
        self.guard = guard

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        left = self.deadline.left(timeout, httpcore.ConnectTimeout)
        if self.guard is None:
            stream = super().connect_tcp(host, port, left, local_address, socket_options)
            return _Stream(stream, self.deadline)
        failed: httpcore.ConnectError | None = None
        for address in self.guard(host, port, left):
            left = self.deadline.left(timeout, httpcore.ConnectTimeout)
            try:
                stream = super().connect_tcp(address, port, left, local_address, socket_options)
            except httpcore.ConnectError as exc:  # the next address, as the system's connect does
                failed = exc
                continue
            return _Stream(stream, self.deadline)
        raise failed or httpcore.ConnectError(f"{host} has no address to connect to")


class _Transport(httpx.HTTPTransport):
    def __init__(self, deadline: Deadline, guard: Guard | None) -> None:
        super().__init__()
        # httpx.HTTPTransport takes no network backend; its pool is rebuilt with one, with the
        # SSL context and limits httpx would have used (certifi, system proxies not used).
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=DeadlineBackend(deadline, guard),
        )


def deadline_transport(deadline: Deadline, guard: Guard | None = None) -> httpx.HTTPTransport:
    """An httpx transport whose every network operation obeys `deadline`, connecting only where
    `guard` (if any) allows."""
    return _Transport(deadline, guard)

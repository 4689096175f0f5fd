"""The admission gate in front of the pipeline: a few questions run, a few wait, the rest are
turned away at once with 503 + Retry-After.

Why not just let requests pile up: every question runs the local models on the same CPU (or
GPU), so running more at once does not finish them sooner — it only makes all of them slower
and lets memory and latency grow without bound. A client told "busy, retry in N s" can back
off or go to another replica; a client left hanging cannot.

The gate lives on the event loop (asyncio only, no threads). A slot is held by an asyncio task
for as long as the work runs in its worker thread — even when a streaming client disconnects,
because the model keeps computing until the question is done; the slot is released when it
truly is.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from crag.errors import CragError

__all__ = ["Busy", "Gate"]


class Busy(CragError):
    """The service is at capacity; `retry_after` seconds is a fair guess of when it is not."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Gate:
    """`concurrency` holders at once, at most `queue` waiting, each waiting at most `timeout_s`."""

    def __init__(self, concurrency: int, queue: int, timeout_s: float) -> None:
        self.concurrency = concurrency
        self.queue = queue
        self.timeout_s = timeout_s
        self._sem = asyncio.Semaphore(concurrency)
        self.running = 0
        self.waiting = 0
        self.rejected = 0
        self._avg_s = 10.0  # seed for Retry-After until a run has been timed (EWMA after)

    def retry_after(self) -> int:
        """Seconds until a slot is likely free: the work ahead divided over the slots."""
        ahead = self.running + self.waiting
        return max(1, math.ceil(self._avg_s * max(ahead, 1) / self.concurrency))

    def _observe(self, seconds: float) -> None:
        self._avg_s = 0.7 * self._avg_s + 0.3 * seconds

    def snapshot(self) -> dict[str, float | int]:
        return {
            "running": self.running,
            "waiting": self.waiting,
            "concurrency": self.concurrency,
            "queue": self.queue,
            "rejected": self.rejected,
            "avg_seconds": round(self._avg_s, 2),
        }

    async def acquire(self) -> None:
        """Take a slot, wait in the bounded queue, or raise `Busy` without waiting."""
        if self._sem.locked() and self.waiting >= self.queue:
            self.rejected += 1
            raise Busy(
                f"busy: {self.running} questions running and {self.waiting} waiting "
                f"(server.max_queue={self.queue}); retry later",
                self.retry_after(),
            )
        self.waiting += 1
        try:
            await asyncio.wait_for(self._sem.acquire(), self.timeout_s)
        except TimeoutError:
            self.rejected += 1
            raise Busy(
                f"busy: waited {self.timeout_s:g} s for a free slot "
                "(server.queue_timeout_s); retry later",
                self.retry_after(),
            ) from None
        finally:
            self.waiting -= 1
        self.running += 1

    def release(self, seconds: float | None = None) -> None:
        self.running -= 1
        if seconds is not None:
            self._observe(seconds)
        self._sem.release()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        await self.acquire()
        started = time.perf_counter()
        try:
            yield
        finally:
            self.release(time.perf_counter() - started)

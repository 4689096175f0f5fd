"""A small web site on 127.0.0.1 for URL-ingest tests: pages that link to each other, a
robots.txt, a page too big, and a log of requests (with how many ran at once, to check that
a crawl is one request at a time).

`serve_site(pages)` serves `pages` (path -> HTML or text); `robots.txt` is a page like any
other. The server's `state["log"]` lists requested paths in order, `state["max_active"]` the
most requests in flight together.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tests.servers.loopback import Handler, LoopbackServer, serve

__all__ = ["SiteHandler", "serve_site"]


class SiteHandler(Handler):
    def do_GET(self) -> None:
        state = self.state
        with state["lock"]:
            state["log"].append(self.path)
            state["active"] += 1
            state["max_active"] = max(state["max_active"], state["active"])
        try:
            time.sleep(state["latency"])
            page = state["pages"].get(self.path.split("?")[0])
            if page is None:
                self.send_bytes(404, b"not found", "text/plain")
                return
            ctype = "text/plain" if self.path.endswith(".txt") else "text/html; charset=utf-8"
            self.send_bytes(200, page.encode(), ctype)
        finally:
            with state["lock"]:
                state["active"] -= 1


@contextmanager
def serve_site(pages: dict[str, str], latency: float = 0.0) -> Iterator[LoopbackServer]:
    with serve(
        SiteHandler,
        pages=pages,
        log=[],
        lock=threading.Lock(),
        active=0,
        max_active=0,
        latency=latency,
    ) as server:
        yield server

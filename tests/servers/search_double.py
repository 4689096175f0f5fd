"""A local stand-in for the web: Tavily's and SearXNG's search APIs over a passage corpus, and
every result page served as HTML — a real HTTP server on 127.0.0.1.

    python -m tests.servers.search_double --port 8808 [--passages PATH] [--part web]

Tests and `bench/correction.py` start it in-process (`SearchDouble(docs).start()`); run as a
module it serves the "web" part of the NQ passages (`crag.datasets.nq_part`) until interrupted.

- `POST /search` — Tavily: JSON `{"query", "max_results"}`, bearer key (when one is set) →
  `{"query", "results": [{"url", "title", "content", "score"}], "response_time"}`.
- `GET /search?q=...&format=json` — SearXNG: `{"query", "number_of_results", "results": [{"url",
  "title", "content", "engine", "score"}]}`; any other format is refused with 403, as SearXNG
  does when JSON is not enabled.
- `GET /page/<id>` — the passage as an HTML page with navigation, a footer and a script
  around the article, so extraction has boilerplate to remove (`search_pages`).

Its search is its own: SQLite FTS5 (Porter stemming) over title and text, any query word may
match, ranked by BM25, snippets cut around the matches — enough to behave like a keyword
search engine. Faults for tests: set `fault` to "timeout", "500", "malformed" or "empty"; a
document's `kind` may be "html" (default), "endless" (a page that never ends), "slow" (a
trickle), "binary" (application/octet-stream) or "redirect" (to `target`).
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import threading
import time
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.servers.search_pages import PageHandler, title_of

__all__ = ["SearchDouble", "load_nq_part", "main"]

DATASETS = Path(__file__).resolve().parents[2] / ".." / "shared" / "datasets"
_WORD = re.compile(r"\w+", re.UNICODE)


def load_nq_part(part: str = "web", passages: Path | None = None) -> list[dict[str, str]]:
    """The passages of one part of the fixed NQ split ('kb', 'web' or 'held_out')."""
    from crag.datasets import nq_part, read_passages

    texts = read_passages(passages or DATASETS / "nq-passages.jsonl")
    return [{"id": pid, "text": text} for pid, text in texts.items() if nq_part(pid) == part]


class SearchDouble:
    """The server. `start()` binds 127.0.0.1 on a free port (or `port`); `stop()` ends it."""

    def __init__(
        self,
        docs: Iterable[dict[str, Any]],
        *,
        api_key: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        delay: float = 3.0,
    ) -> None:
        self.api_key = api_key
        self.fault: str | None = None
        self.delay = delay  # seconds a "timeout" fault waits before answering
        self.requests: list[tuple[str, str]] = []
        self._host, self._port = host, port
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(
            "CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, text, "
            "tokenize='porter unicode61')"
        )
        self.docs: dict[str, dict[str, Any]] = {}
        self.add(docs)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def add(self, docs: Iterable[dict[str, Any]]) -> None:
        with self._lock, self._db:
            for doc in docs:
                doc = {**doc, "title": doc.get("title") or title_of(doc["text"])}
                self.docs[doc["id"]] = doc
                self._db.execute(
                    "INSERT INTO docs VALUES (?, ?, ?)", (doc["id"], doc["title"], doc["text"])
                )

    @property
    def url(self) -> str:
        assert self._server is not None, "start() the double first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def page_url(self, doc_id: str) -> str:
        return self.docs[doc_id].get("url") or f"{self.url}/page/{doc_id}"

    def hits(self, query: str, limit: int) -> list[tuple[str, str, float]]:
        """(doc id, snippet, score) by BM25 over title + text, any query word matching."""
        words = _WORD.findall(query.lower())
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in dict.fromkeys(words))
        with self._lock:
            rows = self._db.execute(
                "SELECT id, snippet(docs, 2, '', '', ' … ', 40), bm25(docs, 2.0, 1.0) AS r "
                "FROM docs WHERE docs MATCH ? ORDER BY r LIMIT ?",
                (match, limit),
            ).fetchall()
        return [
            (doc_id, " ".join(snippet.split()), round(-rank, 4)) for doc_id, snippet, rank in rows
        ]

    def search(self, query: str, limit: int) -> list[dict[str, Any]]:
        """Results in the providers' shape, each pointing at its page on this server."""
        return [
            {
                "url": self.page_url(doc_id),
                "title": self.docs[doc_id]["title"],
                "content": snippet,
                "score": score,
            }
            for doc_id, snippet, score in self.hits(query, limit)
        ]

    def start(self) -> SearchDouble:
        self._server = ThreadingHTTPServer((self._host, self._port), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> SearchDouble:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler(double: SearchDouble) -> type[BaseHTTPRequestHandler]:
    class Handler(PageHandler):
        site = double

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _json(self, status: int, data: Any) -> None:
            self._send(status, json.dumps(data).encode())

        def _search_fault(self) -> bool:
            fault = self.site.fault
            if fault == "timeout":
                self.site._stopping.wait(self.site.delay)
                self._json(200, {"results": []})
                return True
            if fault == "500":
                self._json(500, {"error": "internal error (injected)"})
                return True
            if fault == "malformed":
                self._send(200, b'{"results": [{"url": "http://x", "title": "cut off', "text/html")
                return True
            return False

        def do_POST(self) -> None:
            self.site.requests.append(("POST", self.path))
            if urlsplit(self.path).path != "/search":
                return self._json(404, {"detail": "not found"})
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                return self._json(400, {"detail": {"error": "body is not JSON"}})
            key = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
            key = key or str(body.get("api_key") or "")
            if self.site.api_key and key != self.site.api_key:
                return self._json(
                    401, {"detail": {"error": "Unauthorized: missing or invalid key"}}
                )
            if self._search_fault():
                return None
            started = time.perf_counter()
            query = str(body.get("query") or "")
            limit = max(1, min(20, int(body.get("max_results") or 5)))
            results = [] if self.site.fault == "empty" else self.site.search(query, limit)
            return self._json(
                200,
                {
                    "query": query,
                    "results": results,
                    "response_time": round(time.perf_counter() - started, 4),
                },
            )

        def do_GET(self) -> None:
            self.site.requests.append(("GET", self.path))
            parts = urlsplit(self.path)
            if parts.path == "/search":
                params = parse_qs(parts.query)
                if params.get("format", [""])[0] != "json":
                    return self._send(403, b"format not allowed", "text/plain")
                if self._search_fault():
                    return None
                query = params.get("q", [""])[0]
                results = [] if self.site.fault == "empty" else self.site.search(query, 10)
                for r in results:
                    r["engine"] = "double"
                return self._json(
                    200,
                    {"query": query, "number_of_results": len(results), "results": results},
                )
            if parts.path.startswith("/page/"):
                return self._page(parts.path.removeprefix("/page/"))
            return self._send(404, b"not found", "text/plain")

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8808)
    parser.add_argument("--passages", type=Path, default=DATASETS / "nq-passages.jsonl")
    parser.add_argument("--part", default="web", choices=["kb", "web", "held_out"])
    parser.add_argument("--api-key", default=None, help="require this Tavily key")
    args = parser.parse_args(argv)
    docs = load_nq_part(args.part, args.passages)
    with SearchDouble(docs, api_key=args.api_key, port=args.port) as double:
        print(f"serving {len(docs)} {args.part} passages at {double.url} (Ctrl-C stops)")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

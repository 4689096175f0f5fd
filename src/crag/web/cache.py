"""A small SQLite cache of web lookups, keyed by (provider, query), with a time to live.

What is cached is everything that costs a request: the search results and the text read from
each page (or why it could not be read). A repeated question therefore makes no search call
and fetches no page until the entry is older than `ttl` seconds. The file lives under the
data dir (`<data_dir>/web-cache.sqlite3`), shared by all collections: the web is the same
whatever the knowledge base.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["WebCache"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS web_cache (
    provider TEXT NOT NULL,
    query TEXT NOT NULL,
    created REAL NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (provider, query)
)
"""


class WebCache:
    def __init__(self, path: Path | str, ttl: float, *, clock: Any = time.time) -> None:
        self.path = Path(path)
        self.ttl = ttl
        self._clock = clock
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
        with self._lock, self._db:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)

    @staticmethod
    def _key(query: str) -> str:
        return " ".join(query.lower().split())

    def get(self, provider: str, query: str) -> dict[str, Any] | None:
        """The payload stored for (provider, query) if younger than the TTL, else None."""
        if self.ttl <= 0:
            return None
        with self._lock:
            row = self._db.execute(
                "SELECT created, payload FROM web_cache WHERE provider = ? AND query = ?",
                (provider, self._key(query)),
            ).fetchone()
        if row is None or self._clock() - row[0] > self.ttl:
            return None
        try:
            payload = json.loads(row[1])
        except ValueError:
            return None  # a damaged entry is a miss; the next put replaces it
        return payload if isinstance(payload, dict) else None

    def put(self, provider: str, query: str, payload: dict[str, Any]) -> None:
        if self.ttl <= 0:
            return
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO web_cache VALUES (?, ?, ?, ?)",
                (provider, self._key(query), self._clock(), json.dumps(payload)),
            )
            self._db.execute("DELETE FROM web_cache WHERE created < ?", (self._clock() - self.ttl,))

    def close(self) -> None:
        with self._lock:
            self._db.close()

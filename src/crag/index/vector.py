"""Vector store: Chroma, embedded (`PersistentClient`) or a `chroma run` server (`HttpClient`).

The same class serves both; only the client differs. crag always passes its own embeddings
(`embedding_function=None`), so Chroma never downloads a model of its own, and records the
embedding model in the collection metadata. Chroma holds each chunk's vector and filter fields
(source, title, url, metadata); the text is the catalog's alone.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse

import numpy as np

from crag.errors import ConfigError, CragError
from crag.index.filters import Filter, chroma_where
from crag.types import Chunk

__all__ = ["ChromaVectorStore", "VectorStore", "chroma_client"]

log = logging.getLogger(__name__)


class VectorStore(Protocol):
    def query(
        self, embedding: np.ndarray, limit: int, where: Filter | None = None
    ) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity) best first, among the chunks `where` matches."""
        ...


def chroma_client(data_dir: Path, url: str | None) -> Any:  # chromadb publishes no types
    """Embedded client under `data_dir/chroma`, or an HTTP client for `url`."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if not url:
        return chromadb.PersistentClient(path=str(data_dir / "chroma"), settings=chroma_settings)
    parsed = urlparse(url if "://" in url else f"http://{url}")
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"chroma_url={url!r} is not an http(s)://host:port URL")
    try:
        client = chromadb.HttpClient(
            host=parsed.hostname,
            port=parsed.port or (443 if parsed.scheme == "https" else 8000),
            ssl=parsed.scheme == "https",
            settings=chroma_settings,
        )
        client.heartbeat()
    except Exception as exc:
        raise CragError(f"Chroma server at {url} is not reachable: {exc}") from exc
    return client


def _metadata(chunk: Chunk) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "source": chunk.source,
        "doc_id": chunk.doc_id,
        "position": chunk.position,
        "start": chunk.start,
        "end": chunk.end,
        "title": chunk.title,
        "url": chunk.url,
    }
    for key, value in chunk.metadata.items():
        if isinstance(value, str | int | float | bool):
            meta[f"m_{key}"] = value
    return meta


class ChromaVectorStore:
    """One Chroma collection holding crag's chunk embeddings (cosine space)."""

    def __init__(self, client: Any, name: str) -> None:  # a chromadb client (untyped)
        self.client = client
        self.name = name
        self._collection = client.get_or_create_collection(
            name, configuration={"hnsw": {"space": "cosine"}}, embedding_function=None
        )
        self._max_batch = int(client.get_max_batch_size())

    @property
    def embedding_model(self) -> str | None:
        return (self._collection.metadata or {}).get("embedding_model")

    def set_embedding_model(self, name: str, dim: int) -> None:
        meta = dict(self._collection.metadata or {})
        meta.update({"embedding_model": name, "embedding_dim": dim})
        self._collection.modify(metadata=meta)

    def count(self) -> int:
        return int(self._collection.count())

    def upsert(self, chunks: Sequence[Chunk], embeddings: np.ndarray) -> None:
        """Vectors and their filter fields, no text: the catalog holds the text and nothing
        reads it from Chroma, which would index every text in a trigram FTS5 table of its own
        (about 40 % of a write's CPU, measured at 5-15k chunks)."""
        for i in range(0, len(chunks), self._max_batch):
            part = chunks[i : i + self._max_batch]
            self._collection.upsert(
                ids=[c.id for c in part],
                embeddings=embeddings[i : i + len(part)],
                metadatas=[_metadata(c) for c in part],
            )

    def delete(self, ids: Sequence[str]) -> None:
        ids = list(ids)
        for i in range(0, len(ids), self._max_batch):
            self._collection.delete(ids=ids[i : i + self._max_batch])

    def ids_for_source(self, source: str) -> set[str]:
        got = self._collection.get(where={"source": source}, include=[])
        return set(got["ids"])

    def all_ids(self) -> set[str]:
        found: set[str] = set()
        offset = 0
        while True:
            got = self._collection.get(include=[], limit=self._max_batch, offset=offset)["ids"]
            found.update(got)
            if len(got) < self._max_batch:
                return found
            offset += len(got)

    def has(self, ids: Sequence[str]) -> set[str]:
        found: set[str] = set()
        ids = list(ids)
        for i in range(0, len(ids), self._max_batch):
            found.update(self._collection.get(ids=ids[i : i + self._max_batch], include=[])["ids"])
        return found

    def query(
        self, embedding: np.ndarray, limit: int, where: Filter | None = None
    ) -> list[tuple[str, float]]:
        """Nearest chunks; `where` goes to Chroma's own `where` so it filters before the
        top-k is cut (a post-filter would return fewer than k for a selective filter)."""
        n = min(limit, self.count())
        if n == 0:
            return []
        res = self._collection.query(
            query_embeddings=[np.asarray(embedding, dtype=np.float32)],
            n_results=n,
            where=chroma_where(where),
            include=["distances"],
        )
        return [
            (cid, 1.0 - float(d)) for cid, d in zip(res["ids"][0], res["distances"][0], strict=True)
        ]

    def update_metadata(self, chunks: Sequence[Chunk]) -> None:
        """Rewrite the stored metadata of chunks whose text (and so vector) is unchanged, e.g.
        when a file is ingested again with other `--tag`s."""
        for i in range(0, len(chunks), self._max_batch):
            part = chunks[i : i + self._max_batch]
            self._collection.update(
                ids=[c.id for c in part], metadatas=[_metadata(c) for c in part]
            )

    def drop(self) -> None:
        self.client.delete_collection(self.name)

"""`Index`: the catalog (SQLite + FTS5) and the vector store (Chroma) kept in step by chunk id.

Write protocol, chosen so that a process killed at any point leaves a state `repair()` fixes:

1. embed the chunks that are new for their source (unchanged text keeps its id: no re-embed);
2. mark the sources `pending` (committed);
3. upsert the new vectors into Chroma;
4. in one SQLite transaction, replace each source's chunks and FTS rows (still `pending`);
5. delete the vectors of chunks that left the source;
6. mark the sources `done`.

The catalog is the source of truth. For a source not `done`, `repair()` deletes vectors the
catalog does not have and embeds the catalog chunks Chroma lacks. Searches only return chunks
the catalog has, so readers never see a half-written source.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from crag.config import Settings
from crag.errors import ConfigError, CragError, EmbeddingMismatchError
from crag.index.analyzer import Analyzer
from crag.index.catalog import Catalog, SourceInfo
from crag.index.embedding import embed_in_slices
from crag.index.vector import ChromaVectorStore, chroma_client
from crag.models.embedder import Embedder, make_embedder
from crag.types import Chunk

__all__ = ["Index", "PreparedSource"]

Progress = Callable[[int], None]


@dataclass(slots=True)
class PreparedSource:
    """A loaded, chunked file ready to be written."""

    source: str
    sha256: str
    chunks: list[Chunk]


class Index:
    """One collection: catalog + keyword index + vectors, all keyed by chunk id."""

    def __init__(
        self,
        catalog: Catalog,
        vectors: ChromaVectorStore,
        embedder: Embedder,
        *,
        collection: str = "default",
        lock_path: Path | None = None,
        embed_batch: int = 256,
    ) -> None:
        self.catalog = catalog
        self.vectors = vectors
        self.embedder = embedder
        self.collection = collection
        self.lock_path = lock_path
        self.embed_batch = embed_batch
        self._check_embedder()

    @classmethod
    def open(cls, settings: Settings, embedder: Embedder | None = None) -> Index:
        """Open (or create) the configured collection: under `settings.data_dir`, or in the
        PostgreSQL database of `settings.index.url` (a `PgIndex`, same interface)."""
        if settings.index.url:
            try:
                from crag.index.postgres import PgIndex
            except ImportError as exc:
                raise ConfigError(
                    f"index.url is set but the PostgreSQL client is missing ({exc.name}): "
                    "pip install 'crag[postgres]'"
                ) from exc
            return PgIndex.open(settings, embedder)  # type: ignore[return-value]  # Index's interface (crag.index.protocol), not its class
        home = settings.data_dir / "collections" / settings.collection
        catalog = Catalog(home / "catalog.sqlite3", Analyzer(settings.keyword.language))
        client = chroma_client(settings.data_dir, settings.chroma_url)
        vectors = ChromaVectorStore(client, f"crag-{settings.collection}")
        embedder = embedder or make_embedder(
            settings.embedding.model,
            batch_size=settings.embedding.batch_size,
            device=settings.embedding.device,
        )
        return cls(
            catalog,
            vectors,
            embedder,
            collection=settings.collection,
            lock_path=home / "write.lock",
            embed_batch=max(settings.embedding.batch_size, 256),
        )

    # -- embedding model bookkeeping ----------------------------------------------------
    @property
    def embedding_model(self) -> str | None:
        return self.catalog.get_meta("embedding_model") or self.vectors.embedding_model

    def _check_embedder(self) -> None:
        stored = self.embedding_model
        if stored and stored != self.embedder.name:
            raise EmbeddingMismatchError(stored, self.embedder.name, self.collection)

    def _record_embedder(self, dim: int) -> None:
        if self.catalog.get_meta("embedding_model") is None:
            self.catalog.set_meta("embedding_model", self.embedder.name)
            self.catalog.set_meta("embedding_dim", str(dim))
        if self.vectors.embedding_model is None:
            self.vectors.set_embedding_model(self.embedder.name, dim)

    def _embed(self, chunks: Sequence[Chunk], progress: Progress | None) -> np.ndarray:
        """The new chunks' vectors (see `embed_in_slices`); records the model on first use."""
        vectors = embed_in_slices(self.embedder, chunks, self.embed_batch, progress)
        if len(chunks):
            self._record_embedder(int(vectors.shape[1]))
        return vectors

    # -- writes -------------------------------------------------------------------------
    @contextmanager
    def write_lock(
        self,
        wait: float = 0.0,
        *,
        cancelled: Callable[[], bool] | None = None,
        on_wait: Callable[[], None] | None = None,
    ) -> Iterator[None]:
        """One writer per collection at a time. Held by another process: wait up to `wait`
        seconds for it (`on_wait` is called once when waiting starts; `cancelled()` is polled
        and stops the wait), then fail with a clear error."""
        if self.lock_path is None:
            yield
            return
        self.lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.lock_path, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            give_up = time.monotonic() + wait
            waiting = False
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError as exc:
                    if cancelled is not None and cancelled():
                        raise CragError("cancelled while waiting for the writer lock") from exc
                    if time.monotonic() >= give_up:
                        waited = f" (waited {wait:g} s)" if wait else ""
                        raise CragError(
                            f"another crag process is writing collection {self.collection!r}"
                            f"{waited}; wait for it to finish"
                        ) from exc
                    if not waiting and on_wait is not None:
                        on_wait()
                    waiting = True
                    time.sleep(0.2)
            yield
        finally:
            os.close(fd)

    def reconcile(self) -> list[str]:
        """`repair()`, then make sure the two stores hold the same chunk ids whatever a crash
        left (vectors of sources the catalog never recorded, catalog chunks without a vector):
        extra vectors are deleted, missing ones embedded. Call under `write_lock`. Returns
        what was done, one line each."""
        done = [f"repaired {source}" for source in self.repair()]
        if self.catalog.count() == self.vectors.count():
            return done
        in_catalog = self.catalog.all_chunk_ids()
        in_vectors = self.vectors.all_ids()
        extra = in_vectors - in_catalog
        if extra:
            self.vectors.delete(sorted(extra))
            done.append(f"deleted {len(extra)} vectors the catalog does not have")
        missing = sorted(in_catalog - in_vectors)
        if missing:
            chunks = list(self.catalog.get_chunks(missing).values())
            self.vectors.upsert(chunks, self._embed(chunks, None))
            done.append(f"embedded {len(missing)} catalog chunks missing from the vectors")
        return done

    def stores_agree(self) -> bool:
        """Every source finished and as many vectors as catalog chunks (and keyword rows)."""
        return (
            not self.catalog.unfinished()
            and self.catalog.count() == self.vectors.count() == self.catalog.keyword_count()
        )

    def needs_update(self, source: str, sha256: str) -> bool:
        info = self.catalog.source(source)
        return info is None or info.state != "done" or info.sha256 != sha256

    def write(self, items: Sequence[PreparedSource], progress: Progress | None = None) -> int:
        """Write prepared sources (protocol in the module docstring); returns chunks embedded."""
        if not items:
            return 0
        old = {it.source: self.catalog.chunk_ids(it.source) for it in items}
        fresh = [c for it in items for c in it.chunks if c.id not in old[it.source]]
        if progress:
            progress(sum(len(it.chunks) for it in items) - len(fresh))  # reused, not embedded
        embeddings = self._embed(fresh, progress)
        sources = [it.source for it in items]
        self.catalog.mark(sources, "pending")
        if fresh:
            self.vectors.upsert(fresh, embeddings)
        retagged = self._metadata_changed(items, old)
        if retagged:  # same text, other metadata (new --tag): the vector stays, its fields not
            self.vectors.update_metadata(retagged)
        stale: list[str] = []
        for it in items:
            self.catalog.replace_source(it.source, it.sha256, it.chunks)
            stale.extend(old[it.source] - {c.id for c in it.chunks})
        if stale:
            self.vectors.delete(stale)
        self.catalog.mark(sources, "done")
        return len(fresh)

    def _metadata_changed(
        self, items: Sequence[PreparedSource], old: dict[str, set[str]]
    ) -> list[Chunk]:
        """Kept chunks (same id) whose title, URL or metadata differ from the catalog's, so
        metadata filters on the vectors see what the catalog holds."""
        kept = [c for it in items for c in it.chunks if c.id in old[it.source]]
        before = self.catalog.get_chunks([c.id for c in kept]) if kept else {}
        return [
            c
            for c in kept
            if (b := before.get(c.id)) is not None
            and (b.metadata, b.title, b.url) != (c.metadata, c.title, c.url)
        ]

    def remove(self, source: str) -> int:
        """Drop a source from both stores; returns the number of chunks removed."""
        info = self.catalog.source(source)
        if info is None:
            return 0
        self.catalog.mark([source], "removing")
        self.catalog.delete_source_chunks(source)
        ids = self.vectors.ids_for_source(source)
        self.vectors.delete(sorted(ids))
        self.catalog.forget_source(source)
        return max(info.chunks, len(ids))

    def repair(self) -> list[str]:
        """Bring every unfinished source back in step; returns the sources repaired."""
        repaired = []
        for info in self.catalog.unfinished():
            self._repair_one(info)
            repaired.append(info.source)
        return repaired

    def _repair_one(self, info: SourceInfo) -> None:
        src = info.source
        if info.state == "removing":
            self.catalog.delete_source_chunks(src)
            self.vectors.delete(sorted(self.vectors.ids_for_source(src)))
            self.catalog.forget_source(src)
            return
        in_catalog = self.catalog.chunk_ids(src)
        in_vectors = self.vectors.ids_for_source(src)
        if in_vectors - in_catalog:
            self.vectors.delete(sorted(in_vectors - in_catalog))
        missing = in_catalog - in_vectors
        if missing:
            chunks = list(self.catalog.get_chunks(sorted(missing)).values())
            self.vectors.upsert(chunks, self._embed(chunks, None))
        if not in_catalog and not info.sha256:
            self.catalog.forget_source(src)  # a new file stopped before its first commit
        else:
            self.catalog.mark([src], "done")

    # -- reads --------------------------------------------------------------------------
    def sources(self) -> list[SourceInfo]:
        return self.catalog.sources()

    def count(self) -> int:
        return self.catalog.count()

    def close(self) -> None:
        self.catalog.close()

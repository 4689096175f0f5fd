"""What one running service holds: the pipeline, the reader and writer indexes, the gate, the
ingestion jobs — and how a question's blocking work is run without blocking the event loop.

Questions run on a thread pool with one thread per gate slot; their events reach the event
loop through `call_soon_threadsafe`. A streaming question whose client went away stops at
the next graph node (a model call already started runs to its end), and only then gives its
slot back.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from crag.config import Settings
from crag.index.store import Index
from crag.pipeline import Pipeline
from crag.pipeline.loadables import loadables
from crag.server.gate import Gate
from crag.server.jobs import JobRunner

if TYPE_CHECKING:
    from crag.server.collections import Collections

__all__ = ["Runtime"]

log = logging.getLogger("crag.server")
T = TypeVar("T")
_END = object()


class _Failed:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


class Runtime:
    def __init__(
        self,
        settings: Settings,
        pipeline: Pipeline,
        index: Index,
        jobs: JobRunner,
        api_keys: tuple[str, ...],
    ) -> None:
        self.settings = settings
        self.pipeline = pipeline
        self.index = index
        self.jobs = jobs
        self.api_keys = api_keys
        s = settings.server
        self.gate = Gate(s.max_concurrent, s.max_queue, s.queue_timeout_s)
        self.pool = ThreadPoolExecutor(s.max_concurrent, thread_name_prefix="crag-ask")
        self.models: dict[str, str] = {}  # name -> "loading" | "loaded" | "failed: ..."
        self.warm = threading.Event()
        self._variants: dict[tuple[int, int], Pipeline] = {}
        self.writer: Index | None = None  # the ingestion jobs' own Index
        # every collection this server answers from (set by the app; this one is the default)
        self.collections: Collections | None = None

    # -- readiness -----------------------------------------------------------------------
    def _loadables(self) -> dict[str, Any]:
        """The local models reachable from the pipeline (a remote provider has none)."""
        return loadables(self.pipeline.components)

    def warm_up(self) -> None:
        """Load the models and the embedder now, so the first question does not pay for it."""
        loadables = self._loadables()
        for name in loadables:
            self.models[name] = "loading"
        try:
            self.index.embedder.embed(["warm up"], kind="query")
            self.models["embedder:" + self.index.embedder.name] = "loaded"
        except Exception as exc:
            log.exception("embedder failed to load")
            self.models["embedder:" + self.index.embedder.name] = f"failed: {type(exc).__name__}"
        for name, obj in loadables.items():
            try:
                obj.load()
                self.models[name] = "loaded"
            except Exception as exc:
                log.exception("model %s failed to load", name)
                self.models[name] = f"failed: {type(exc).__name__}"
        self.warm.set()

    def index_check(self) -> dict[str, Any]:
        """Both stores answer: the catalog counts its chunks, Chroma its vectors (over the
        network when `chroma_url` is set)."""
        chunks = self.index.count()
        vectors = self.index.vectors.count()
        return {
            "reachable": True,
            "collection": self.index.collection,
            "chunks": chunks,
            "vectors": vectors,
            "vector_store": (
                "postgresql"
                if self.settings.index.url
                else "chroma-server"
                if self.settings.chroma_url
                else "chroma-embedded"
            ),
        }

    # -- pipelines -----------------------------------------------------------------------
    def pipeline_for(self, top_k: int | None, rerank_k: int | None) -> Pipeline:
        """The shared pipeline, or a variant with other retrieval depths over the same
        components (cached: compiling a graph is cheap but not free)."""
        c = self.pipeline.components
        key = (top_k or c.retrieve_k, rerank_k or c.rerank_k)
        if key == (c.retrieve_k, c.rerank_k):
            return self.pipeline
        if key not in self._variants:
            if len(self._variants) > 32:
                self._variants.clear()
            parts = dataclasses.replace(c, retrieve_k=key[0], rerank_k=key[1])
            self._variants[key] = Pipeline(parts)
        return self._variants[key]

    # -- running blocking work -----------------------------------------------------------
    async def run(self, fn: Callable[[], T]) -> T:
        """Run `fn` in a slot; the slot is held until `fn` ends, even if the caller is gone."""
        await self.gate.acquire()
        started = time.perf_counter()
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.pool, fn)

        def done(f: asyncio.Future[T]) -> None:
            self.gate.release(time.perf_counter() - started)
            if not f.cancelled():
                f.exception()  # retrieved here so an abandoned failure is not logged twice

        future.add_done_callback(done)
        return await asyncio.shield(future)

    async def open_stream(
        self, produce: Callable[[], Iterator[Any]], ping_s: float = 10.0
    ) -> AsyncIterator[Any]:
        """Take a slot now (so `Busy` is raised before any response is sent), start
        `produce()` on a worker thread, and return an async iterator of its items; `None` is
        yielded when nothing came for `ping_s` seconds (time for a keep-alive)."""
        await self.gate.acquire()
        started = time.perf_counter()
        loop = asyncio.get_running_loop()
        items: asyncio.Queue[Any] = asyncio.Queue()
        stop = threading.Event()

        def post(item: Any) -> None:
            try:
                loop.call_soon_threadsafe(items.put_nowait, item)
            except RuntimeError:  # the event loop is gone: the server is shutting down
                stop.set()

        def work() -> None:
            events = produce()
            try:
                for item in events:
                    post(item)
                    if stop.is_set():
                        break
            except BaseException as exc:
                post(_Failed(exc))
            finally:
                close = getattr(events, "close", None)
                if close is not None:
                    close()  # a generator: stop the graph where it is
                post(_END)

        future = loop.run_in_executor(self.pool, work)
        future.add_done_callback(lambda _: self.gate.release(time.perf_counter() - started))

        async def drain() -> AsyncIterator[Any]:
            try:
                while True:
                    try:
                        item = await asyncio.wait_for(items.get(), ping_s)
                    except TimeoutError:
                        yield None
                        continue
                    if item is _END:
                        return
                    if isinstance(item, _Failed):
                        raise item.exc
                    yield item
            finally:
                stop.set()  # the client left or the stream ended: stop at the next node

        return drain()

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

"""Several collections in one service: each has its own reader and writer `Index`, ingestion
jobs and pipeline, built the first time a request names it; all of them share the loaded
models (embedder, judge, generator), the admission gate and the worker threads.

A request names its collection with `?collection=NAME` or the `X-Crag-Collection` header
(`POST /v1/ask` also takes `"collection"` in its body; the OpenAI endpoint a `crag:NAME` model
name). Without one it gets the server's default collection (`crag serve -c NAME`).

A collection's pipeline is the default pipeline's components with its own retriever (over its
own index) and, when `evaluate.per_collection` names it, its own thresholds.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import re
import shutil
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.exceptions import HTTPException

from crag.config import Settings
from crag.errors import CragError
from crag.index.store import Index
from crag.pipeline import Pipeline

if TYPE_CHECKING:
    from crag.server.jobs import JobRunner
    from crag.server.runtime import Runtime

__all__ = ["NAME", "Collections", "NoSuchCollection"]

log = logging.getLogger("crag.server")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,60}$")  # as config's `collection`
HEADER = "x-crag-collection"
CATALOG = "catalog.sqlite3"


def _catalog_counts(path: Path) -> tuple[int, int]:
    """(chunks, sources) read from a catalog file, read-only; (0, 0) if there is none."""
    if not path.exists():
        return 0, 0
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        sources = db.execute("SELECT count(DISTINCT source) FROM chunks").fetchone()[0]
        return int(chunks), int(sources)
    except sqlite3.Error:
        return 0, 0
    finally:
        db.close()


class NoSuchCollection(HTTPException):
    """A request named a collection this server does not have (404)."""

    def __init__(self, detail: str) -> None:
        super().__init__(404, detail)


class Collections:
    """The collections of one service, by name; the default one is the root `Runtime`."""

    def __init__(self, root: Runtime, make_jobs: Callable[[Index, Settings], JobRunner]) -> None:
        self.root = root
        self.make_jobs = make_jobs
        self.default = root.settings.collection
        self._open: dict[str, Runtime] = {root.settings.collection: root}
        self._lock = threading.Lock()

    # -- names ------------------------------------------------------------------------
    @property
    def home(self) -> Path:
        return self.root.settings.data_dir / "collections"

    def names(self) -> list[str]:
        """The default collection, those open, and those stored: a catalog under
        `<data_dir>/collections/`, or a row in PostgreSQL when the index lives there."""
        found = set(self._open) | self._stored()
        return sorted(n for n in found if NAME.match(n))

    def _stored(self) -> set[str]:
        listed = getattr(self.root.index, "collection_names", None)
        if listed is not None:  # PostgreSQL: every replica's collections, from the database
            return set(listed())
        if not self.home.is_dir():
            return set()
        return {p.name for p in self.home.iterdir() if (p / CATALOG).exists()}

    def counts(self, name: str) -> tuple[int, int]:
        """(chunks, sources) of a collection without opening it: from PostgreSQL's totals
        when the index lives there, else read from its SQLite catalog."""
        counted = getattr(self.root.index, "collection_counts", None)
        if counted is not None:
            totals: dict[str, tuple[int, int]] = counted()  # PgIndex.collection_counts
            return totals.get(name, (0, 0))
        return _catalog_counts(self.home / name / CATALOG)

    def exists(self, name: str) -> bool:
        return name in self._open or name in self._stored()

    @staticmethod
    def check_name(name: str) -> str:
        if not NAME.match(name or ""):
            raise CragError(
                f"collection {name!r}: use 1-61 letters, digits, '_', '.' or '-', "
                "starting with a letter or digit"
            )
        return name

    # -- opening ----------------------------------------------------------------------
    def get(self, name: str | None) -> Runtime:
        """The runtime of collection `name` (None: the default), opened on first use."""
        if not name or name == self.default:
            return self.root
        self.check_name(name)
        with self._lock:
            if name in self._open:
                return self._open[name]
            if not self.exists(name):
                raise NoSuchCollection(
                    f"no collection {name!r}; create it with POST /v1/collections "
                    f"(have: {', '.join(self.names())})"
                )
            return self._open_locked(name)

    def create(self, name: str) -> tuple[Runtime, bool]:
        """(runtime, created): a new empty collection, or the existing one."""
        self.check_name(name)
        with self._lock:
            if name in self._open:
                return self._open[name], False
            existed = self.exists(name)
            return self._open_locked(name), not existed

    def _open_locked(self, name: str) -> Runtime:
        root = self.root
        settings = root.settings.model_copy(deep=True)
        settings.collection = name
        embedder = root.index.embedder
        reader = Index.open(settings, embedder=embedder)
        try:
            writer = Index.open(settings, embedder=embedder)
        except BaseException:
            reader.close()
            raise
        child = copy.copy(root)  # shares the gate, the worker pool, the model states
        child.settings = settings
        child.index = reader
        child.writer = writer
        child.pipeline = self._pipeline(settings, reader)
        child._variants = {}
        child.jobs = self.make_jobs(writer, settings)
        child.jobs.start()
        self._open[name] = child
        log.info("collection %s opened", name)
        return child

    def _pipeline(self, settings: Settings, index: Index) -> Pipeline:
        from crag.grading import ActionTrigger
        from crag.index.retriever import HybridRetriever

        parts = self.root.pipeline.components
        changes: dict[str, Any] = {"retriever": HybridRetriever(index, settings.retrieval)}
        own = settings.evaluate.per_collection.get(settings.collection)
        if own is not None:
            changes["trigger"] = ActionTrigger(upper=own.upper, lower=own.lower)
        return Pipeline(dataclasses.replace(parts, **changes))

    # -- removing ---------------------------------------------------------------------
    def delete(self, name: str) -> None:
        """Stop its jobs, close it, and remove its catalog, vectors, job records and spooled
        uploads."""
        from crag.server.errors import Conflict

        self.check_name(name)
        if name == self.default:
            raise Conflict(f"collection {name!r} is this server's default; it cannot be deleted")
        with self._lock:
            if not self.exists(name):
                raise NoSuchCollection(f"no collection {name!r}")
            child = self._open.pop(name, None) or self._open_locked(name)
            self._open.pop(name, None)
        child.jobs.stop()
        child.jobs.forget_all()
        try:
            child.index.vectors.drop()
        except Exception:  # already gone in Chroma: the catalog is still removed
            log.warning("collection %s: no vectors to drop", name)
        child.index.close()
        if child.writer is not None:
            child.writer.close()
        data = self.root.settings.data_dir
        shutil.rmtree(self.home / name, ignore_errors=True)
        shutil.rmtree(data / "uploads" / name, ignore_errors=True)

    def close(self) -> None:
        """Stop and close every collection opened here (not the default: its owner does)."""
        with self._lock:
            opened = [(n, r) for n, r in self._open.items() if n != self.default]
            self._open = {self.default: self.root}
        for _, child in opened:
            child.jobs.stop()
            child.index.close()
            if child.writer is not None:
                child.writer.close()

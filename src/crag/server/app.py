"""The app factory: settings (and, optionally, ready-made components) in, a FastAPI app out.

Components not passed in are built at startup from the settings — the reader `Index`, the
`Pipeline` via `crag.pipeline.build_pipeline`, and a writer `Index` for ingestion jobs (its own
SQLite connection; same embedder). Tests and embedding applications pass their own.
Startup then loads the models before the port opens (`server.warmup`); `/readyz` reports them
and whether both index stores answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from importlib import metadata

from fastapi import FastAPI

from crag.config import Settings, load_settings
from crag.index.store import Index
from crag.pipeline import Pipeline
from crag.server.auth import load_keys
from crag.server.collections import Collections
from crag.server.errors import BodyLimit, install_error_handlers
from crag.server.jobs import JobRunner
from crag.server.routes import (
    ask,
    chat,
    chunks,
    collections,
    documents,
    health,
    page,
    search,
)
from crag.server.runtime import Runtime

__all__ = ["create_app"]

log = logging.getLogger("crag.server")

DESCRIPTION = """
Corrective RAG over your own documents: ask questions (whole answers or server-sent events),
manage the indexed documents, or use crag as a model through the OpenAI chat protocol.

Send an API key as `Authorization: Bearer KEY` or `X-API-Key: KEY` when the server has keys
(`CRAG_API_KEYS`). Errors are RFC 9457 problem details (`application/problem+json`).
"""


def _version() -> str:
    try:
        return metadata.version("crag")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0"


def create_app(
    settings: Settings | None = None,
    *,
    pipeline: Pipeline | None = None,
    index: Index | None = None,
    writer: Index | None = None,
    api_keys: Sequence[str] | None = None,
) -> FastAPI:
    """A crag service. `index` answers queries and `writer` runs ingestion jobs (they must be
    separate instances over the same collection); `api_keys` default to `CRAG_API_KEYS`."""
    settings = settings or load_settings()
    keys = tuple(api_keys) if api_keys is not None else load_keys()
    if index is not None and writer is index:
        raise ValueError("writer must be its own Index instance (its own SQLite connection)")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        opened: list[Index] = []
        reader = index
        if reader is None:
            reader = await asyncio.to_thread(Index.open, settings)
            opened.append(reader)
        write = writer
        if write is None:
            write = await asyncio.to_thread(Index.open, settings, reader.embedder)
            opened.append(write)
        pipe = pipeline
        if pipe is None:
            from crag.pipeline import build_pipeline

            pipe = await asyncio.to_thread(build_pipeline, settings, reader)

        def make_jobs(write_to: Index, s: Settings) -> JobRunner:
            """The ingestion jobs of one collection (the default, or one opened later); in
            PostgreSQL when the index is, so every replica shares them."""
            runner: type[JobRunner] = JobRunner
            if s.index.url:
                from crag.server.pgjobs import PgJobRunner

                runner = PgJobRunner
            return runner(
                write_to,
                s.ingest,
                max_queued=s.server.max_jobs,
                jobs_dir=s.data_dir / "jobs" / s.collection,
                spool_dir=s.data_dir / "uploads" / s.collection,
                job_timeout_s=s.server.job_timeout_s,
                lock_wait_s=s.server.lock_wait_s,
                web=s.web,
            )

        jobs = make_jobs(write, settings)
        runtime = Runtime(settings, pipe, reader, jobs, keys)
        runtime.writer = write
        runtime.collections = Collections(runtime, make_jobs)
        app.state.runtime = runtime
        if settings.server.warmup:
            # Before the port opens: loading a GGUF model holds the GIL for seconds (measured:
            # 6.3 s for the 1.5B model), which would freeze the event loop mid-request.
            await asyncio.to_thread(runtime.warm_up)
        else:
            runtime.warm.set()
        jobs.start()
        try:
            yield
        finally:
            await asyncio.to_thread(runtime.collections.close)
            await asyncio.to_thread(jobs.stop)
            runtime.close()
            for opened_index in opened:
                opened_index.close()

    app = FastAPI(
        title="crag",
        version=_version(),
        description=DESCRIPTION,
        lifespan=lifespan,
        # server.docs = false: no /docs, /redoc or /openapi.json (the API shape stays private)
        docs_url="/docs" if settings.server.docs else None,
        redoc_url="/redoc" if settings.server.docs else None,
        openapi_url="/openapi.json" if settings.server.docs else None,
    )
    install_error_handlers(app)
    app.add_middleware(
        BodyLimit,
        json_limit=settings.server.max_body_kb * 1024,
        upload_limit=int(settings.server.max_upload_mb * 1e6),
    )
    for module in (health, ask, search, chat, documents, chunks, collections, page):
        app.include_router(module.router)
    return app

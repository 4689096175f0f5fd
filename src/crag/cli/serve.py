"""`crag serve`: the HTTP service (FastAPI under uvicorn) over one collection.

Components are built here, at the edge, before the port is bound: a wrong setting or an index
built with another embedding model is one red line, not a traceback from inside the server.
The models load next, before the port opens (loading one holds the GIL for seconds).
"""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from crag.cli.common import CollectionOpt, collection_settings, err, friendly

__all__ = ["register", "serve"]


@friendly
def serve(
    host: Annotated[
        str | None, typer.Option(help="Address to bind (server.host, default 127.0.0.1).")
    ] = None,
    port: Annotated[int | None, typer.Option(help="Port (server.port, default 8000).")] = None,
    allow_unauthenticated: Annotated[
        bool,
        typer.Option(
            "--allow-unauthenticated",
            help="Serve beyond loopback without CRAG_API_KEYS (only behind your own auth).",
        ),
    ] = False,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
    collection: CollectionOpt = None,
) -> None:
    """Serve the API: /v1/ask, /v1/documents, /v1/chat/completions (OpenAI), /docs."""
    import uvicorn

    from crag.index.store import Index
    from crag.pipeline import build_pipeline
    from crag.redact import install_log_redaction
    from crag.server import create_app
    from crag.server.auth import check_exposure, load_keys

    settings = collection_settings(collection)
    s = settings.server
    s.host = host or s.host
    s.port = s.port if port is None else port
    keys = load_keys()
    check_exposure(s.host, keys, allow_unauthenticated or s.allow_unauthenticated)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s:     %(name)s: %(message)s")
    install_log_redaction()
    reader = Index.open(settings)
    writer = Index.open(settings, embedder=reader.embedder)
    try:
        pipeline = build_pipeline(settings, reader)
        api = create_app(settings, pipeline=pipeline, index=reader, writer=writer, api_keys=keys)
        auth = f"{len(keys)} API key(s)" if keys else "no API keys (open)"
        err.print(
            f"crag: collection {settings.collection!r} ({reader.count()} chunks) on "
            f"http://{s.host}:{s.port} — {auth}; "
            + ("docs at /docs, " if s.docs else "")
            + "readiness at /readyz",
            highlight=False,
        )
        config = uvicorn.Config(
            api,
            host=s.host,
            port=s.port,
            log_level=log_level,
            lifespan="on",
            timeout_graceful_shutdown=10,
            proxy_headers=False,
        )  # uvicorn sets its log handlers up here; they get the redaction too
        install_log_redaction("uvicorn", "uvicorn.error", "uvicorn.access")
        uvicorn.Server(config).run()
    finally:
        writer.close()
        reader.close()


def register(app: typer.Typer) -> None:
    app.command()(serve)

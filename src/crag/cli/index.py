"""`crag index migrate --to postgresql://…`: move an embedded collection into PostgreSQL."""

from __future__ import annotations

from typing import Annotated

import typer

from crag.cli.common import CollectionOpt, collection_settings, console, friendly
from crag.errors import ConfigError
from crag.redact import redact

__all__ = ["migrate", "register"]

index_app = typer.Typer(
    no_args_is_help=True, help="Manage where the index lives (embedded or PostgreSQL)."
)


@friendly
def migrate(
    to: Annotated[
        str, typer.Option("--to", help="postgresql://user@host:port/db to copy the collection to.")
    ],
    collection: CollectionOpt = None,
    schema: Annotated[
        str | None, typer.Option("--schema", help="PostgreSQL schema (default: index.db_schema).")
    ] = None,
) -> None:
    """Copy the embedded collection (chunks, keyword index, vectors: nothing is embedded
    again) into PostgreSQL, then check that the chunk counts agree. Safe to run again: only
    sources that are missing or changed are copied."""
    from crag.config import IndexSettings
    from crag.index.postgres.migrate import migrate_collection
    from crag.index.postgres.store import PgIndex
    from crag.index.store import Index

    settings = collection_settings(collection)
    if settings.index.url:
        raise ConfigError(
            "index.url is set, so the configured index already is PostgreSQL; unset "
            "CRAG_INDEX__URL to migrate the embedded collection"
        )
    source = Index.open(settings)
    if source.count() == 0:
        source.close()
        raise ConfigError(f"the embedded collection {settings.collection!r} is empty")
    try:
        index = IndexSettings(url=to, db_schema=schema or settings.index.db_schema)
    except ValueError as exc:
        raise ConfigError(f"--to/--schema: {exc}") from exc
    target_settings = settings.model_copy(update={"index": index})
    target = PgIndex.open(target_settings, embedder=source.embedder)
    try:
        report = migrate_collection(
            source, target, lambda name, n: console.print(f"copied {name} ({n} chunks)")
        )
    finally:
        target.close()
        source.close()
    console.print(
        f"migrated collection {settings.collection!r} to {redact(to)}: "
        f"{len(report.copied)} sources copied, {len(report.unchanged)} unchanged; "
        f"{report.target_chunks} chunks in PostgreSQL = {report.source_chunks} embedded"
    )


def register(app: typer.Typer) -> None:
    index_app.command()(migrate)
    app.add_typer(index_app, name="index")

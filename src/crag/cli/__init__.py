"""The `crag` command line: the typer app, built from one module per command group.

Errors crag raises on purpose become one red line and exit code 1 (`common.friendly`). The
command modules define functions and import only `crag.cli.common` and the library; this
module imports them and registers each on `app`, so nothing imports `crag.cli` back and the
order here is the order `crag --help` lists the commands in.
"""

from __future__ import annotations

from typing import Annotated

import typer

from crag.cli import (
    ask,
    calibrate,
    chat,
    config,
    documents,
    evaluator,
    index,
    models,
    serve,
    watch,
)
from crag.cli import eval as eval_commands

__all__ = ["app", "main"]

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="crag: corrective retrieval-augmented generation over your own documents.",
)
for _group in (
    documents,
    watch,
    config,
    ask,
    chat,
    eval_commands,
    calibrate,
    evaluator,
    models,
    index,
    serve,
):
    _group.register(app)


def _version(value: bool) -> None:
    if value:
        from importlib import metadata

        try:
            version = metadata.version("crag")
        except metadata.PackageNotFoundError:  # pragma: no cover - a bare source tree
            version = "unknown"
        typer.echo(f"crag {version}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """crag: corrective retrieval-augmented generation over your own documents."""


def main() -> None:
    app()

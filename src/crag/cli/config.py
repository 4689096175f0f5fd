"""`crag config`: the settings in effect, after crag.toml and the environment."""

from __future__ import annotations

import sys

import typer

from crag.cli.common import friendly
from crag.config import load_settings
from crag.redact import redact

__all__ = ["config", "register"]


@friendly
def config() -> None:
    """Print the effective settings (defaults < crag.toml < CRAG_* environment)."""
    sys.stdout.write(redact(load_settings().model_dump_json(indent=2)) + "\n")


def register(app: typer.Typer) -> None:
    app.command()(config)

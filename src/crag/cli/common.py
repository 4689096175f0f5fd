"""What every `crag` command shares: the consoles, the error wrapper, options, settings.

Command modules import from here and from the library, never from each other or from
`crag.cli` itself, so the package has no import circle: `crag.cli` (its `__init__`) imports
the command modules and registers their functions on the app.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar, cast

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress

from crag.config import Settings, load_settings
from crag.errors import CragError
from crag.redact import redact

__all__ = [
    "CollectionOpt",
    "RichProgress",
    "WhereOpt",
    "collection_settings",
    "console",
    "err",
    "friendly",
]

console = Console()
err = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])

CollectionOpt = Annotated[
    str | None, typer.Option("--collection", "-c", help="Collection name (CRAG_COLLECTION).")
]
WhereOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--where",
        help="Only chunks whose metadata matches, e.g. 'type=pdf', 'year>=2024', "
        "'lang in en,tr'; repeat to require several (docs/filters.md).",
    ),
]


def friendly(fn: F) -> F:
    """Turn `CragError` into a one-line message instead of a traceback."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except CragError as exc:
            err.print(f"[bold red]error:[/] {escape(redact(str(exc)))}", highlight=False)
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            err.print("[yellow]interrupted; the next run repairs any half-written file[/]")
            raise typer.Exit(130) from None

    return cast(F, wrapper)


def collection_settings(collection: str | None) -> Settings:
    """Settings, with `--collection` (when given) over crag.toml and the environment."""
    return load_settings(**({"collection": collection} if collection else {}))


class RichProgress:
    """Files and chunks as two rich progress bars."""

    def __init__(self, progress: Progress) -> None:
        self.p = progress
        self.files_task = progress.add_task("files", total=0)
        self.chunks_task = progress.add_task("chunks", total=0)

    def files(self, total: int) -> None:
        self.p.update(self.files_task, total=total)

    def file_started(self, path: str, size: int) -> None:
        """Say which file is being read and chunked (a 50 MB file takes seconds before its
        chunks are known; the chunks bar then gives the estimate)."""
        what = f"reading {Path(path).name}"
        if size >= 1_000_000:
            what += f" ({size / 1e6:.0f} MB)"
        self.p.update(self.files_task, description=f"files [dim]{what}[/]")

    def file_done(self, path: str, status: str) -> None:
        self.p.update(self.files_task, advance=1, description=f"files [dim]{Path(path).name}[/]")

    def chunks_planned(self, n: int) -> None:
        task = self.p.tasks[self.chunks_task]
        self.p.update(self.chunks_task, total=(task.total or 0) + n)

    def chunks_done(self, n: int) -> None:
        self.p.update(self.chunks_task, advance=n)

"""A collection built from a folder of files the test wrote: what the live tests ask over."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from crag import Index, Ingestor, load_settings
from crag.config import Settings

__all__ = ["ingested"]


@contextmanager
def ingested(folder: Path, collection: str, embedder: Any) -> Iterator[tuple[Settings, Index]]:
    """(settings, index) of a fresh collection under `folder / "data"` holding every file of
    `folder`, ingested with the session's embedder; the index is closed afterwards."""
    settings = load_settings(data_dir=folder / "data", collection=collection)
    index = Index.open(settings, embedder=embedder)
    try:
        Ingestor(index, settings.ingest).ingest([str(folder)])
        yield settings, index
    finally:
        index.close()

"""A chunk as a catalog row and back: the columns both catalogs store (the embedded SQLite one
and PostgreSQL's), in one order, so a field added to `Chunk` is added to both in one place."""

from __future__ import annotations

import json
from typing import Any

from crag.types import Chunk

__all__ = ["CHUNK_COLUMNS", "chunk_row", "row_to_chunk"]

CHUNK_COLUMNS = 'id, source, doc_id, position, start, "end", title, url, text, metadata'


def chunk_row(c: Chunk) -> tuple[Any, ...]:
    """The values of CHUNK_COLUMNS for `c` (metadata as JSON text)."""
    meta = json.dumps(c.metadata, ensure_ascii=False)
    return (c.id, c.source, c.doc_id, c.position, c.start, c.end, c.title, c.url, c.text, meta)


def row_to_chunk(row: tuple[Any, ...]) -> Chunk:
    """A row of CHUNK_COLUMNS as a `Chunk`; metadata as JSON text (SQLite) or already decoded
    (PostgreSQL's jsonb)."""
    cid, source, doc_id, position, start, end, title, url, text, metadata = row
    return Chunk(
        id=cid,
        text=text,
        source=source,
        doc_id=doc_id,
        position=position,
        start=start,
        end=end,
        title=title,
        url=url,
        metadata=metadata if isinstance(metadata, dict) else json.loads(metadata),
    )

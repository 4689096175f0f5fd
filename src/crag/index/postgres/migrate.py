"""`crag index migrate --to postgresql://…`: copy an embedded collection into PostgreSQL.

The vectors are copied from Chroma as they are, never embedded again, so a large collection
moves in minutes and the PostgreSQL copy ranks exactly as the embedded one did. Each source is
one transaction on the target (as every PostgreSQL write), so an interrupted migration leaves
whole sources behind and a second run copies only what is missing or changed (by SHA-256).
At the end the counts are compared source by source; a mismatch is an error, not a warning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from crag.errors import CragError
from crag.index.postgres.store import PgIndex

if TYPE_CHECKING:
    from crag.index.store import Index

__all__ = ["MigrationReport", "migrate_collection"]


@dataclass(slots=True)
class MigrationReport:
    copied: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    chunks: int = 0
    source_chunks: int = 0
    target_chunks: int = 0


def _embeddings(source: Index, ids: list[str]) -> dict[str, np.ndarray]:
    """The stored vectors of `ids` from the embedded index's Chroma collection."""
    out: dict[str, np.ndarray] = {}
    collection = source.vectors._collection  # the embedded store's Chroma collection
    step = max(1, int(source.vectors._max_batch))
    for i in range(0, len(ids), step):
        got = collection.get(ids=ids[i : i + step], include=["embeddings"])
        for cid, vector in zip(got["ids"], got["embeddings"], strict=True):
            out[cid] = np.asarray(vector, dtype=np.float32)
    return out


def migrate_collection(
    source: Index, target: PgIndex, progress: Callable[[str, int], None] | None = None
) -> MigrationReport:
    """Copy every source of the embedded `source` index into `target`, then check counts."""
    if not source.stores_agree():
        raise CragError(
            f"collection {source.collection!r} has unfinished writes; run `crag ingest` on it "
            "once (it repairs them) before migrating"
        )
    model = source.embedding_model
    if model and target.embedding_model and target.embedding_model != model:
        raise CragError(
            f"target collection {target.collection!r} was built with {target.embedding_model}, "
            f"the embedded one with {model}; migrate into another collection or schema"
        )
    report = MigrationReport()
    with target.write_lock():
        for info in source.sources():
            have = target.catalog.source(info.source)
            if have is not None and have.sha256 == info.sha256 and have.chunks == info.chunks:
                report.unchanged.append(info.source)
                continue
            chunks = source.catalog.chunks_of(info.source)
            vectors = _embeddings(source, [c.id for c in chunks])
            missing = [c.id for c in chunks if c.id not in vectors]
            if missing:
                raise CragError(
                    f"{info.source}: {len(missing)} chunk(s) have no vector in the embedded "
                    "store; run `crag ingest` on it once (it repairs them) before migrating"
                )
            old = target.catalog.chunk_ids(info.source)
            target.write_source(info.source, info.sha256, chunks, vectors, old)
            report.copied.append(info.source)
            report.chunks += len(chunks)
            if progress is not None:
                progress(info.source, len(chunks))
        for info in target.sources():  # sources gone from the embedded collection
            if source.catalog.source(info.source) is None:
                target.remove(info.source)
    report.source_chunks, report.target_chunks = source.count(), target.count()
    wrong = [
        s.source
        for s in source.sources()
        if (t := target.catalog.source(s.source)) is None
        or len(target.catalog.chunk_ids(s.source)) != s.chunks
        or t.chunks != s.chunks
    ]
    if wrong or report.source_chunks != report.target_chunks:
        raise CragError(
            f"counts differ after migration: embedded {report.source_chunks} chunks, "
            f"PostgreSQL {report.target_chunks}; sources that differ: {wrong[:5]}"
        )
    return report

"""Embedding the new chunks of a write, as both index backends do it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from crag.models.embedder import Embedder
from crag.types import Chunk

__all__ = ["embed_in_slices"]


def embed_in_slices(
    embedder: Embedder,
    chunks: Sequence[Chunk],
    batch: int,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Embed in slices of `batch` (so progress moves), longest texts first so each slice pads
    little; rows come back in the order of `chunks`."""
    if not chunks:
        return np.zeros((0, 0), dtype=np.float32)
    order = sorted(range(len(chunks)), key=lambda i: -len(chunks[i].text))
    parts = []
    for i in range(0, len(order), batch):
        part = [chunks[j].text for j in order[i : i + batch]]
        parts.append(embedder.embed(part, kind="document"))
        if progress:
            progress(len(part))
    by_length = np.vstack(parts)
    vectors = np.empty_like(by_length)
    vectors[order] = by_length
    return vectors

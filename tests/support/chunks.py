"""A chunk over a plain text: what the unit tests of strips, citations and checks hand in."""

from __future__ import annotations

from crag.types import Chunk

__all__ = ["chunk"]


def chunk(text: str, i: int = 0) -> Chunk:
    return Chunk(
        id=f"c{i}", text=text, source=f"/docs/f{i}.txt", doc_id="text", position=0, start=0,
        end=len(text),
    )  # fmt: skip

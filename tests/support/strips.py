"""Strips over plain texts, numbered from 1: the sources the generator's unit tests hand it."""

from __future__ import annotations

from crag.types import Chunk, Strip

__all__ = ["strips"]


def strips(*texts: str) -> list[Strip]:
    chunks = [
        Chunk(id=f"c{i}", text=t, source=f"/docs/f{i}.txt", doc_id="text", position=0, start=0,
              end=len(t))
        for i, t in enumerate(texts, start=1)
    ]  # fmt: skip
    return [Strip(c.text, c, i) for i, c in enumerate(chunks)]

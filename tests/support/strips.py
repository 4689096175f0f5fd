"""Strips over plain texts, numbered from 1: the sources the generator's unit tests hand it."""

from __future__ import annotations

from tests.support.chunks import chunk

from crag.types import Strip

__all__ = ["strips"]


def strips(*texts: str) -> list[Strip]:
    chunks = [chunk(t, i) for i, t in enumerate(texts, start=1)]
    return [Strip(c.text, c, i) for i, c in enumerate(chunks)]

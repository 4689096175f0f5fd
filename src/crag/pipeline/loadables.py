"""The local models a pipeline loads: what the server's readiness reports and what `crag
chat` loads before its first question.

A component reaches its model through `.llm` links (the generator → its role → the llama.cpp
model); each object on the way with a `load()` is one, by name. A remote provider has nothing
to load. Loading the generator's model on a thread while a `crag ask` retrieves was tried and
not adopted: on two cores it competed with the embedder's load and made answers 1–2 s and
refusals 3 s slower (docs/benchmarks.md).
"""

from __future__ import annotations

from typing import Any

from crag.pipeline.state import Components

__all__ = ["loadables"]


def loadables(components: Components) -> dict[str, Any]:
    """Objects with a `load()` reachable from the components through `.llm`, by name."""
    found: dict[str, Any] = {}
    parts = (components.evaluator, components.generator, components.reranker, components.refiner)
    for part in parts:
        obj, hops = part, 0
        while obj is not None and hops < 4:
            if callable(getattr(obj, "load", None)):
                found.setdefault(str(getattr(obj, "name", type(obj).__name__)), obj)
            obj, hops = getattr(obj, "llm", None), hops + 1
    return found

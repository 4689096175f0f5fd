"""Rerankers: reorder retrieved chunks by a model that reads query and chunk together.

`Reranker.score(query, texts)` is the one required method; `rerank()` builds on it. The
default is `PassThroughReranker` (keeps the fused order) until a cross-encoder is configured
(`rerank.model`: a sentence-transformers `CrossEncoder` name or path).
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Protocol, runtime_checkable

from crag.errors import ModelLoadError
from crag.types import ScoredChunk

__all__ = ["CrossEncoderReranker", "PassThroughReranker", "Reranker", "make_reranker", "rerank"]


@runtime_checkable
class Reranker(Protocol):
    name: str

    def score(self, query: str, texts: list[str]) -> list[float] | None:
        """Relevance per text (higher is better), or None to keep the incoming order."""
        ...


class PassThroughReranker:
    name = "none"

    def score(self, query: str, texts: list[str]) -> list[float] | None:
        return None


class CrossEncoderReranker:
    """A sentence-transformers CrossEncoder, loaded lazily."""

    def __init__(self, model: str, *, batch_size: int = 32, device: str = "cpu") -> None:
        self.name = model
        self.batch_size = batch_size
        self.device = device
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._model is None:
                try:
                    from sentence_transformers import CrossEncoder

                    self._model = CrossEncoder(self.name, device=self.device)
                except Exception as exc:
                    raise ModelLoadError(f"cannot load reranker {self.name!r}: {exc}") from exc
        return self._model

    def score(self, query: str, texts: list[str]) -> list[float] | None:
        if not texts:
            return []
        model = self._load()
        scores = model.predict(
            [(query, t) for t in texts], batch_size=self.batch_size, show_progress_bar=False
        )
        return [float(s) for s in scores]


def rerank(
    reranker: Reranker, query: str, hits: list[ScoredChunk], top_k: int
) -> list[ScoredChunk]:
    """Order `hits` by the reranker's scores (stable for ties) and keep `top_k`."""
    scores = reranker.score(query, [h.chunk.text for h in hits])
    if scores is None:
        return hits[:top_k]
    rescored = [
        replace(h, score=s, scores={**h.scores, "rerank": s})
        for h, s in zip(hits, scores, strict=True)
    ]
    order = sorted(range(len(rescored)), key=lambda i: -rescored[i].score)
    return [rescored[i] for i in order[:top_k]]


def make_reranker(model: str | None) -> Reranker:
    return CrossEncoderReranker(model) if model else PassThroughReranker()

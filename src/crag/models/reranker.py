"""Rerankers: reorder retrieved chunks by a model that reads query and chunk together.

`Reranker.score(query, texts)` is the one required method; `rerank()` builds on it. With no
`rerank.model` the fused order is kept (`PassThroughReranker`); `"crag-evaluator"` is the
cross-encoder crag trains and ships (`crag.models.cross_encoder`, also usable as the retrieval
evaluator); any other cross-encoder folder or hub name works the same.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol, runtime_checkable

from crag.headings import link_text
from crag.titles import titled, with_title
from crag.types import ScoredChunk

__all__ = ["PassThroughReranker", "Reranker", "make_reranker", "rerank"]


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


def rerank(
    reranker: Reranker,
    query: str,
    hits: list[ScoredChunk],
    top_k: int,
    weight: float = 1.0,
    titles: bool = False,
) -> list[ScoredChunk]:
    """Order `hits` by the reranker's scores (stable for ties) and keep `top_k`.

    `weight` < 1 blends in the retrieval score: final = weight · reranker + (1 − weight) ·
    fused score min-max normalised over `hits`. A reranker trained for another notion of
    relevance (crag's evaluator learned "holds the answer") then reorders the head of the
    list without throwing away what hybrid retrieval already ranked well (score interpolation,
    standard with first-stage retrievers). The reranker's own score stays in `scores`.
    `titles`: the reranker reads each hit with its document's title where the hits come from
    documents with different titles (`crag.titles`; `crag ask`, `crag search` and the HTTP
    search all pass `retrieval.titles`, so they rank alike).
    """
    if titles and titled(h.chunk for h in hits):
        texts = [link_text(with_title(h.chunk)) for h in hits]
    else:
        texts = [link_text(h.chunk.text) for h in hits]
    scores = reranker.score(query, texts)
    if scores is None:
        return hits[:top_k]
    fused = [h.score for h in hits]
    low, high = min(fused, default=0.0), max(fused, default=0.0)
    span = (high - low) or 1.0
    rescored = [
        replace(
            h,
            score=weight * s + (1 - weight) * (h.score - low) / span,
            scores={**h.scores, "rerank": s},
        )
        for h, s in zip(hits, scores, strict=True)
    ]
    order = sorted(range(len(rescored)), key=lambda i: -rescored[i].score)
    return [rescored[i] for i in order[:top_k]]


def make_reranker(model: str | None) -> Reranker:
    """A cross-encoder (`crag-evaluator`, a folder or a hub name), or pass-through for None."""
    if not model:
        return PassThroughReranker()
    from crag.models.cross_encoder import CrossEncoderEvaluator

    return CrossEncoderEvaluator(model)

"""Fusing ranked lists from BM25 and dense retrieval.

- `rrf`: reciprocal rank fusion, Σ w / (k + rank) (Cormack, Clarke & Büttcher 2009), the
  rank-only method LangChain's EnsembleRetriever (the seeds' 0.5/0.5 ensemble) uses;
- `weighted`: min-max normalise each list's scores to [0, 1] and add them with weights
  (Weaviate's relative-score fusion); a list that misses an id contributes 0.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["min_max", "rrf", "weighted"]

Ranked = Sequence[tuple[str, float]]


def rrf(lists: Sequence[Ranked], weights: Sequence[float], k: int = 60) -> list[tuple[str, float]]:
    fused: dict[str, float] = {}
    for ranked, w in zip(lists, weights, strict=True):
        for rank, (cid, _) in enumerate(ranked, start=1):
            fused[cid] = fused.get(cid, 0.0) + w / (k + rank)
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))


def min_max(ranked: Ranked) -> dict[str, float]:
    if not ranked:
        return {}
    scores = [s for _, s in ranked]
    lo, hi = min(scores), max(scores)
    if hi - lo < 1e-12:
        return {cid: 1.0 for cid, _ in ranked}
    return {cid: (s - lo) / (hi - lo) for cid, s in ranked}


def weighted(lists: Sequence[Ranked], weights: Sequence[float]) -> list[tuple[str, float]]:
    fused: dict[str, float] = {}
    for ranked, w in zip(lists, weights, strict=True):
        for cid, s in min_max(ranked).items():
            fused[cid] = fused.get(cid, 0.0) + w * s
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))

"""Hybrid retrieval: BM25 from the catalog's FTS5 index, dense from Chroma, fused.

Each retriever contributes `candidates` hits; fusion (RRF or weighted scores) orders their
union and the top `k` are returned with every per-stage score kept for the trace.
"""

from __future__ import annotations

from typing import Literal

from crag.config import RetrievalSettings
from crag.index.filters import Filter
from crag.index.fusion import rrf, weighted
from crag.index.store import Index
from crag.types import ScoredChunk

__all__ = ["FilteredRetriever", "HybridRetriever"]

Mode = Literal["bm25", "dense", "hybrid"]
Fusion = Literal["rrf", "weighted"]


class HybridRetriever:
    """Searches one `Index`; stateless apart from its settings."""

    def __init__(self, index: Index, settings: RetrievalSettings | None = None) -> None:
        self.index = index
        self.settings = settings or RetrievalSettings()

    def bm25(self, query: str, limit: int, where: Filter | None = None) -> list[tuple[str, float]]:
        if where:
            return self.index.catalog.keyword_search(query, limit, where)
        return self.index.catalog.keyword_search(query, limit)

    def dense(self, query: str, limit: int, where: Filter | None = None) -> list[tuple[str, float]]:
        if self.index.count() == 0:
            return []
        vector = self.index.embedder.embed([query], kind="query")[0]
        if where:
            return self.index.vectors.query(vector, limit, where)
        return self.index.vectors.query(vector, limit)

    def search(
        self,
        query: str,
        k: int | None = None,
        *,
        mode: Mode | None = None,
        fusion: Fusion | None = None,
        where: Filter | None = None,
    ) -> list[ScoredChunk]:
        """Top `k` chunks; `where` (a metadata filter) is applied inside both searches, so
        the fused list holds only matching chunks and still k of them when k match."""
        s = self.settings
        k = k or s.top_k
        mode = mode or s.mode
        fusion = fusion or s.fusion
        pool = max(k, s.candidates)
        lists: dict[str, list[tuple[str, float]]] = {}
        if mode in ("bm25", "hybrid"):
            lists["bm25"] = self.bm25(query, pool, where)
        if mode in ("dense", "hybrid"):
            lists["dense"] = self.dense(query, pool, where)
        if mode == "hybrid":
            names = ["bm25", "dense"]
            weights = [s.bm25_weight, s.dense_weight]
            ranked_lists = [lists[n] for n in names]
            if fusion == "rrf":
                ranked = rrf(ranked_lists, weights, k=s.rrf_k)
            else:
                ranked = weighted(ranked_lists, weights)
        else:
            ranked = lists[mode]
        per_stage = {name: dict(hits) for name, hits in lists.items()}
        top = ranked[: k * 2]  # headroom for ids the catalog no longer has (see below)
        chunks = self.index.catalog.get_chunks([cid for cid, _ in top])
        out: list[ScoredChunk] = []
        for cid, score in top:
            chunk = chunks.get(cid)
            if chunk is None:  # a vector whose source is mid-write or was removed
                continue
            scores = {name: hits[cid] for name, hits in per_stage.items() if cid in hits}
            scores[mode if mode != "hybrid" else fusion] = score
            out.append(ScoredChunk(chunk=chunk, score=score, scores=scores))
            if len(out) == k:
                break
        return out


class FilteredRetriever:
    """A retriever bound to one metadata filter: what a pipeline is given to answer from only
    the chunks `where` matches (`crag ask --where`, `/v1/ask` with `where`)."""

    def __init__(self, base: HybridRetriever, where: Filter) -> None:
        self.base = base
        self.where = where

    @property
    def index(self) -> Index:
        return self.base.index

    def search(
        self,
        query: str,
        k: int | None = None,
        *,
        mode: Mode | None = None,
        fusion: Fusion | None = None,
    ) -> list[ScoredChunk]:
        return self.base.search(query, k, mode=mode, fusion=fusion, where=self.where)

"""`POST /v1/search`: ranked chunks for a query, without generating an answer — what `crag
search` prints, with the same metadata filter (`where`) applied inside both searches."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Depends

from crag.index.filters import Condition, Filter, condition, parse_filter
from crag.index.retriever import HybridRetriever
from crag.models.reranker import rerank
from crag.server.deps import RuntimeDep, require_key
from crag.server.schemas import ChunkOut, ConditionIn, HitOut, SearchRequest, SearchResponse
from crag.types import ScoredChunk

__all__ = ["filter_of", "router"]

router = APIRouter(prefix="/v1", tags=["search"], dependencies=[Depends(require_key)])


def filter_of(items: list[ConditionIn | str]) -> Filter:
    """The request's `where` as one typed `Filter` (a bad one: 400 naming it)."""
    conditions: list[Condition] = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            conditions.extend(parse_filter([item]).conditions)
        else:
            conditions.append(condition(item.field, item.op, item.value, where=f"where[{i}]"))
    return Filter(tuple(conditions))


def _hit(rank: int, h: ScoredChunk) -> HitOut:
    return HitOut(rank=rank, score=h.score, scores=h.scores, chunk=ChunkOut.of(h.chunk))


@router.post("/search", response_model=SearchResponse)
async def search(body: SearchRequest, rt: RuntimeDep) -> Any:
    """Search the collection (hybrid BM25 + dense by default), reranked when the server has
    a reranker; `where` keeps only chunks whose metadata matches."""
    if body.collection and rt.collections is not None:
        rt = await asyncio.to_thread(rt.collections.get, body.collection)
    where = filter_of(body.where)
    k = body.k or rt.settings.retrieval.top_k
    retriever = HybridRetriever(rt.index, rt.settings.retrieval)
    reranker = rt.pipeline.components.reranker if body.rerank else None

    def run() -> list[ScoredChunk]:
        hits = retriever.search(body.query, k, mode=body.mode, fusion=body.fusion, where=where)
        if reranker is None:
            return hits
        return rerank(
            reranker, body.query, hits, k, rt.settings.rerank.weight, rt.settings.retrieval.titles
        )

    hits = await rt.run(run)
    return SearchResponse(
        query=body.query,
        collection=rt.index.collection,
        where=str(where),
        hits=[_hit(i, h) for i, h in enumerate(hits, start=1)],
    )

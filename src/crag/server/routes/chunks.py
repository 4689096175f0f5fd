"""`GET /v1/chunks/{id}`: one indexed chunk's text and where it comes from — what a citation's
`chunk_id` points at, so a client can show the passage an answer cites."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Depends, HTTPException

from crag.server.deps import RuntimeDep, require_key
from crag.server.schemas import ChunkOut

__all__ = ["router"]

router = APIRouter(prefix="/v1/chunks", tags=["documents"], dependencies=[Depends(require_key)])


@router.get("/{chunk_id}", response_model=ChunkOut, responses={404: {"description": "No chunk."}})
async def chunk(chunk_id: str, rt: RuntimeDep) -> Any:
    """An indexed chunk: text, source, unit (`doc_id`: paragraph, record or page), character
    range in the unit, title, URL and metadata. Web sources are not indexed: their text is in
    the answer's trace (`trace.web.strips`)."""
    found = await asyncio.to_thread(rt.index.catalog.get_chunks, [chunk_id])
    if chunk_id not in found:
        raise HTTPException(404, f"no chunk {chunk_id!r} in collection {rt.index.collection!r}")
    return ChunkOut.of(found[chunk_id])

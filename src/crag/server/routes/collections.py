"""`/v1/collections`: list, create and delete the collections one server answers from.

Every other route takes the collection as `?collection=NAME` or the `X-Crag-Collection`
header (the default collection without either); see `crag.server.collections`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from crag.server.collections import Collections
from crag.server.deps import require_key
from crag.server.schemas import CollectionIn, CollectionOut, CollectionsOut

__all__ = ["router"]

router = APIRouter(
    prefix="/v1/collections", tags=["collections"], dependencies=[Depends(require_key)]
)


def _registry(request: Request) -> Collections:
    registry: Collections = request.app.state.runtime.collections  # mounted with collections
    return registry


def _describe(registry: Collections, name: str) -> CollectionOut:
    chunks, sources = registry.counts(name)
    return CollectionOut(
        name=name, chunks=chunks, sources=sources, default=name == registry.default
    )


@router.get("", response_model=CollectionsOut)
async def list_collections(request: Request) -> Any:
    """The collections this server answers from, with their chunk and source counts."""
    registry = _registry(request)

    def listing() -> CollectionsOut:
        names = registry.names()
        return CollectionsOut(
            default=registry.default, collections=[_describe(registry, n) for n in names]
        )

    return await asyncio.to_thread(listing)


@router.post(
    "",
    status_code=201,
    response_model=CollectionOut,
    responses={200: {"description": "It exists already."}},
)
async def create_collection(request: Request, body: CollectionIn) -> Any:
    """Create an empty collection (upload to it with `POST /v1/documents?collection=NAME`)."""
    registry = _registry(request)
    _, created = await asyncio.to_thread(registry.create, body.name)
    out = await asyncio.to_thread(_describe, registry, body.name)
    return JSONResponse(out.model_dump(), status_code=201 if created else 200)


@router.delete(
    "/{name}",
    responses={404: {"description": "No such collection."}, 409: {"description": "The default."}},
)
async def delete_collection(request: Request, name: str) -> Any:
    """Delete a collection: its documents, vectors and running jobs (not the default one)."""
    await asyncio.to_thread(_registry(request).delete, name)
    return {"deleted": name}

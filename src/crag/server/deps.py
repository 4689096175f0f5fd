"""FastAPI dependencies: the service's `Runtime`, and the API-key check for `/v1` routes.

The key check is declared through FastAPI's security classes so the OpenAPI docs show both
ways to send a key (and the docs' "Authorize" button works); the comparison itself is ours.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from crag.server.auth import authorize
from crag.server.collections import HEADER
from crag.server.runtime import Runtime

__all__ = ["RuntimeDep", "get_runtime", "require_key"]

_bearer = HTTPBearer(auto_error=False, description="`Authorization: Bearer KEY`")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="`X-API-Key: KEY`")


def get_runtime(request: Request) -> Runtime:
    """The runtime of the collection the request names (`?collection=` or the
    `X-Crag-Collection` header), else of the server's default collection."""
    rt: Runtime = request.app.state.runtime  # set once by create_app
    name = request.query_params.get("collection") or request.headers.get(HEADER)
    if name and rt.collections is not None:
        return rt.collections.get(name)
    return rt


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def require_key(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    header: Annotated[str | None, Depends(_header)],
) -> None:
    """Every `/v1` route depends on this; `/healthz`, `/readyz` and the docs do not."""
    presented = (bearer.credentials if bearer else None) or header or None
    authorize(request.app.state.runtime.api_keys, presented)

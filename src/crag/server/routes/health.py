"""`/healthz` (the process answers) and `/readyz` (models loaded, index reachable and
consistent).

Both are open without an API key, for load balancers and orchestrators: the status (and the
HTTP code) of `/readyz` is for everyone. Its detail (models, collection name and counts, queue
and jobs) is shown only to a caller with a valid key when the server has keys (issue 21: the
collection's name and size are not for anonymous callers); without keys (loopback) it is open.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from crag.server.auth import Unauthorized, authorize, key_from_headers
from crag.server.deps import RuntimeDep

__all__ = ["router"]

router = APIRouter(tags=["health"])
INDEX_CHECK_TIMEOUT_S = 5.0


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """The process is up and its event loop answers (no model or index is touched)."""
    return {"status": "ok"}


@router.get(
    "/readyz",
    responses={503: {"description": "Not ready: models still loading, or the index unreachable."}},
)
async def readyz(rt: RuntimeDep, request: Request) -> Any:
    """Ready when every model has loaded, both index stores answer, and the start-up check
    found (or made) them consistent. Detail only with a valid key when the server has keys."""
    checks: dict[str, Any] = {"models": dict(rt.models), "warm": rt.warm.is_set()}
    try:
        checks["index"] = await asyncio.wait_for(
            asyncio.to_thread(rt.index_check), INDEX_CHECK_TIMEOUT_S
        )
    except TimeoutError:
        checks["index"] = {"reachable": False, "error": "timed out"}
    except Exception as exc:
        checks["index"] = {"reachable": False, "error": type(exc).__name__}
    models_ok = rt.warm.is_set() and all(v == "loaded" for v in rt.models.values())
    consistent = rt.jobs.ready.is_set()
    checks["index"]["consistent"] = consistent
    checks["index"]["check"] = rt.jobs.repair_note
    ready = models_ok and checks["index"].get("reachable", False) and consistent
    checks["queue"] = rt.gate.snapshot()
    checks["jobs"] = {"queued": rt.jobs.queued(), "running": rt.jobs.current is not None}
    body: dict[str, Any] = {"status": "ready" if ready else "not ready"}
    if _may_see_detail(rt.api_keys, request):
        body.update(checks)
    headers = {} if ready else {"Retry-After": "5"}
    return JSONResponse(body, status_code=200 if ready else 503, headers=headers)


def _may_see_detail(keys: tuple[str, ...], request: Request) -> bool:
    if not keys:
        return True
    try:
        authorize(keys, key_from_headers(request.headers))
    except Unauthorized:
        return False
    return True

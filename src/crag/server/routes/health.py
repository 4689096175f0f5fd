"""`/healthz` (the process answers) and `/readyz` (models loaded, index reachable).

Both are open without an API key, for load balancers and orchestrators, and say nothing a
caller could misuse: states and counts, no paths or settings.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

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
async def readyz(rt: RuntimeDep) -> Any:
    """Ready when every model has loaded and both index stores answer."""
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
    ready = models_ok and checks["index"].get("reachable", False)
    checks["queue"] = rt.gate.snapshot()
    checks["jobs"] = {"queued": rt.jobs.queued(), "running": rt.jobs.current is not None}
    body = {"status": "ready" if ready else "not ready", **checks}
    headers = {} if ready else {"Retry-After": "5"}
    return JSONResponse(body, status_code=200 if ready else 503, headers=headers)

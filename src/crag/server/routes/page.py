"""The web page at `/`: static HTML, CSS and JavaScript shipped inside the package (no build
step, nothing fetched from elsewhere). The page talks to the same `/v1` API as any client, so it
needs no route of its own beyond these files; the API key, when the server has keys, is asked
for once per browser session and sent as `Authorization: Bearer`.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse

__all__ = ["STATIC", "router"]

STATIC = Path(__file__).resolve().parent.parent / "static"
FILES = {"app.js": "text/javascript", "app.css": "text/css"}
# Everything from this origin only: no inline script, no third-party anything.
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

router = APIRouter(include_in_schema=False)


@router.get("/")
def page() -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html", headers=HEADERS)


@router.get("/static/{name}")
def asset(name: str) -> FileResponse:
    if name not in FILES:
        raise HTTPException(404, f"no file {name!r}")
    return FileResponse(STATIC / name, media_type=FILES[name], headers=HEADERS)

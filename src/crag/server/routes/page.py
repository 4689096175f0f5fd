"""The web page at `/`: static HTML, CSS and JavaScript shipped inside the package (no build
step, nothing fetched from elsewhere). The page talks to the same `/v1` API as any client, so it
needs no route of its own beyond these files; the API key, when the server has keys, is asked
for once per browser session and sent as `Authorization: Bearer`. The one thing filled in on the
server is the mode list, from `crag.modes.Mode`, so the page never spells a mode name itself.
"""

from __future__ import annotations

from functools import cache
from html import escape
from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse

from crag.modes import Mode

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

_MODES_SLOT = "<!-- modes: filled from crag.modes.Mode by crag.server.routes.page -->"
_SHORT = {Mode.CRAG: "corrective", Mode.RAG: "baseline", Mode.SELF_CRAG: "reflective"}


@cache
def _html() -> str:
    """index.html with one `<option>` per mode, in `Mode`'s order (crag first: the default)."""
    options = "\n      ".join(
        f'<option value="{escape(m)}">{escape(m)} ({_SHORT.get(m, "")})</option>' for m in Mode
    )
    return (STATIC / "index.html").read_text(encoding="utf-8").replace(_MODES_SLOT, options)


@router.get("/")
def page() -> HTMLResponse:
    return HTMLResponse(_html(), headers=HEADERS)


@router.get("/static/{name}")
def asset(name: str) -> FileResponse:
    if name not in FILES:
        raise HTTPException(404, f"no file {name!r}")
    return FileResponse(STATIC / name, media_type=FILES[name], headers=HEADERS)

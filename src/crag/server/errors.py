"""Errors as RFC 9457 problem details (`application/problem+json`), never a stack trace.

Every error the API returns has `type`, `title`, `status` and `detail`. Client errors (4xx)
say what was wrong with the request. Server errors (5xx) say only what kind of failure it was
and carry an `instance` id (`urn:crag:error:<hex>`) that is also in the server log next to the
full exception — details such as paths or library messages stay in the log, not on the wire.

Routes that speak the OpenAI protocol (`/v1/chat/completions`, `/v1/models`) also get an
`error: {message, type, code}` member, which is where the OpenAI SDKs look for the message.
"""

from __future__ import annotations

import logging
import secrets
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from crag.errors import (
    ConfigError,
    CragError,
    EmbeddingMismatchError,
    IndexCorruptError,
    LLMError,
    ModelLoadError,
)
from crag.redact import redact
from crag.server.auth import Unauthorized
from crag.server.gate import Busy
from crag.server.uploads import TooLarge, UnsupportedUpload

__all__ = ["BodyLimit", "Conflict", "error_response", "install_error_handlers", "problem"]

log = logging.getLogger("crag.server")
TYPE_BASE = "urn:crag:problem:"  # + kind; the README lists every kind
OPENAI_PATHS = ("/v1/chat/completions", "/v1/models")


class Conflict(CragError):
    """The request is fine but the state does not allow it (409): e.g. an empty collection."""


def problem(
    status: int,
    detail: str,
    *,
    kind: str | None = None,
    path: str = "",
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    title = HTTPStatus(status).phrase
    kind = kind or title.lower().replace(" ", "-")
    detail = redact(detail)
    body: dict[str, Any] = {
        "type": TYPE_BASE + kind,
        "title": title,
        "status": status,
        "detail": detail,
        **extra,
    }
    if path.startswith(OPENAI_PATHS):
        body["error"] = {"message": detail, "type": kind, "code": status}
    return JSONResponse(
        body, status_code=status, headers=headers, media_type="application/problem+json"
    )


def _server_error(request: Request, status: int, kind: str, exc: BaseException) -> JSONResponse:
    error_id = secrets.token_hex(8)
    log.error("error %s on %s %s", error_id, request.method, request.url.path, exc_info=exc)
    detail = {
        "llm": "the language model failed to answer; retry, or check the server log",
        "model-load": "a model could not be loaded; check the server log",
        "index": "the index could not be read; check the server log",
        "config": "the server is misconfigured; check the server log",
    }.get(kind, "internal error; check the server log")
    return problem(
        status, detail, kind=kind, path=request.url.path, instance=f"urn:crag:error:{error_id}"
    )


def _crag_error(request: Request, exc: CragError) -> JSONResponse:
    path = request.url.path
    match exc:
        case Busy():
            return problem(
                503, str(exc), kind="busy", path=path,
                headers={"Retry-After": str(exc.retry_after)}, retry_after=exc.retry_after,
            )  # fmt: skip
        case Unauthorized():
            return problem(
                401, str(exc), kind="unauthorized", path=path,
                headers={"WWW-Authenticate": 'Bearer realm="crag"'},
            )  # fmt: skip
        case TooLarge():
            return problem(413, str(exc), kind="too-large", path=path)
        case Conflict():
            return problem(409, str(exc), kind="conflict", path=path)
        case UnsupportedUpload():
            return problem(415, str(exc), kind="unsupported-file-type", path=path)
        case LLMError():
            return _server_error(request, 502, "llm", exc)
        case ModelLoadError():
            return _server_error(request, 503, "model-load", exc)
        case EmbeddingMismatchError() | IndexCorruptError():
            return _server_error(request, 500, "index", exc)
        case ConfigError():
            return _server_error(request, 500, "config", exc)
        case _:
            return problem(400, str(exc), kind="bad-request", path=path)


def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = [
        {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
        for e in exc.errors()
    ]
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    where = ".".join(str(p) for p in first["loc"])
    detail = f"{where}: {first['msg']}" if where else str(first["msg"])
    return problem(422, detail, kind="invalid-request", path=request.url.path, errors=errors)


def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    detail = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
    kind = {413: "too-large", 404: "not-found", 405: "method-not-allowed"}.get(exc.status_code)
    return problem(exc.status_code, detail, kind=kind, path=request.url.path,
                   headers=dict(exc.headers) if exc.headers else None)  # fmt: skip


def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    return _server_error(request, 500, "internal", exc)


def error_response(request: Request, exc: BaseException) -> JSONResponse:
    """The problem response for any exception (used where an error must go into a stream)."""
    if isinstance(exc, CragError):
        return _crag_error(request, exc)
    if isinstance(exc, StarletteHTTPException):
        return _http(request, exc)
    return _server_error(request, 500, "internal", exc)


def install_error_handlers(app: FastAPI) -> None:
    # Starlette types a handler as taking any Exception; each of these takes the class it is
    # registered for, which is what Starlette passes it.
    app.add_exception_handler(CragError, _crag_error)  # type: ignore[arg-type]  # see above
    app.add_exception_handler(RequestValidationError, _validation)  # type: ignore[arg-type]  # see above
    app.add_exception_handler(StarletteHTTPException, _http)  # type: ignore[arg-type]  # see above
    app.add_exception_handler(Exception, _unexpected)


class _BodyTooLarge(StarletteHTTPException):
    """Raised from `receive`: FastAPI passes HTTP exceptions through body parsing untouched,
    so the route ends with this 413 instead of a generic 400."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, _too_large(limit))


def _too_large(limit: int) -> str:
    size = f"{limit / 1e6:g} MB" if limit >= 1e6 else f"{limit / 1024:g} KiB"
    return (
        f"request body is larger than {size} "
        "(server.max_body_kb for JSON, server.max_upload_mb for uploads)"
    )


class BodyLimit:
    """Refuse request bodies over a limit with 413 problem+json, before reading them whole.

    Checked twice: against `Content-Length` up front, and by counting bytes as they arrive
    (chunked uploads have no length). `limit_for(scope)` picks the limit per request, so
    document uploads may be larger than JSON bodies.
    """

    def __init__(self, app: ASGIApp, json_limit: int, upload_limit: int) -> None:
        self.app = app
        self.json_limit = json_limit
        self.upload_limit = upload_limit

    def limit_for(self, scope: Scope) -> int:
        if scope["method"] == "POST" and scope["path"].rstrip("/") == "/v1/documents":
            return self.upload_limit
        return self.json_limit

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        response = problem(
            413,
            _too_large(limit),
            kind="too-large",
            path=scope["path"],
            headers={"Connection": "close"},
        )
        await response(scope, receive, send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > limit
                except ValueError:
                    too_big = False
                if too_big:
                    await self._refuse(scope, receive, send, limit)
                    return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _BodyTooLarge(limit)
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except _BodyTooLarge:
            if started:
                raise
            await self._refuse(scope, receive, send, limit)

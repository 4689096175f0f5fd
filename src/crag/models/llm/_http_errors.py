"""What a failed request to a model server means, in the words of the one error tree.

Each HTTP status and transport failure becomes the `LLMError` subclass that says what
happened and what to do (start the server, fix base_url, export the key, wait), naming the
provider, model and URL. Why a module of its own: the mapping is the part of the HTTP client
users read when something breaks, and it is tested without a network (`status_error` takes a
response). The API key is redacted from every message, should a server echo it back.
"""

from __future__ import annotations

import email.utils
import json
import time
from dataclasses import dataclass
from typing import Any

import httpx

from crag.errors import (
    LLMAuthError,
    LLMError,
    LLMRateLimitError,
    LLMRequestError,
    LLMServerError,
    LLMTimeoutError,
    LLMUnavailableError,
)

__all__ = ["Endpoint", "retry_after"]


def retry_after(headers: httpx.Headers) -> float | None:
    """Seconds a server asked us to wait: `retry-after-ms`, `retry-after` (seconds or date)."""
    if (ms := headers.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value.strip() else None
        return None if parsed is None else max(0.0, parsed.timestamp() - time.time())


def _server_words(response: httpx.Response) -> str:
    """The error message inside a response body, whatever shape the server uses."""
    text = response.text
    try:
        body = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:300]
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict):
        error = error.get("message") or error.get("error") or error
    return " ".join(str(error).split())[:300]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One provider's model at one URL: what every error message names."""

    provider: str
    model: str
    base_url: str
    key: str | None = None
    key_env: str | None = None
    hint: str = ""
    timeout: float = 120.0

    def __repr__(self) -> str:  # never the key
        return f"Endpoint({self.provider!r}, {self.model!r}, {self.base_url!r})"

    def redact(self, text: str) -> str:
        return text.replace(self.key, "***") if self.key else text

    def error(self, cls: type[LLMError], what: str, **kw: Any) -> LLMError:
        message = f"{self.provider} model {self.model!r} at {self.base_url}: {what}"
        return cls(self.redact(message), provider=self.provider, model=self.model, **kw)

    def transport_error(self, exc: httpx.HTTPError) -> LLMError:
        if isinstance(exc, httpx.ConnectTimeout | httpx.ConnectError):
            hint = f" {self.hint}" if self.hint else ""
            return self.error(
                LLMUnavailableError,
                f"cannot connect ({type(exc).__name__}: {exc}). Is the server running and is "
                f"base_url right?{hint}",
            )
        if isinstance(exc, httpx.TimeoutException):
            return self.error(
                LLMTimeoutError,
                f"no answer within {self.timeout:g} s ({type(exc).__name__}). Raise the role's "
                "`timeout` setting, or use a smaller or closer model.",
            )
        if isinstance(exc, httpx.RemoteProtocolError):
            return self.error(
                LLMUnavailableError, f"the server dropped the connection ({exc}); retry later"
            )
        return self.error(LLMUnavailableError, f"{type(exc).__name__}: {exc}")

    def status_error(self, response: httpx.Response) -> LLMError:
        status, words = response.status_code, self.redact(_server_words(response))
        kw: dict[str, Any] = {"status": status, "detail": words}
        if status == 429:
            return self.error(
                LLMRateLimitError,
                f"rate limited (HTTP 429: {words}); wait, lower evaluate.concurrency, or use "
                "another plan or provider",
                retry_after=retry_after(response.headers),
                **kw,
            )
        if status >= 500 and status != 501:
            return self.error(
                LLMServerError,
                f"server error (HTTP {status}: {words}); check the server's logs",
                retry_after=retry_after(response.headers),
                **kw,
            )
        if status in (401, 403):
            fix = f"check the key in ${self.key_env}" if self.key_env else "set api_key_env"
            if self.key_env and not self.key:
                fix = f"${self.key_env} is not set; export it"
            return self.error(LLMAuthError, f"HTTP {status}: {words}; {fix}", **kw)
        if status == 404:
            return self.error(
                LLMRequestError,
                f"not found (HTTP 404: {words}); is the model name right, and does base_url "
                f"point at the API root?{' ' + self.hint if self.hint else ''}",
                **kw,
            )
        return self.error(LLMRequestError, f"request rejected (HTTP {status}: {words})", **kw)

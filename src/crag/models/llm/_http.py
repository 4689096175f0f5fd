"""HTTP plumbing shared by the remote providers: timeouts, bounded retries, one error tree.

Why one place: every provider needs the same behaviour and the same honesty about failures.
A request is retried (tenacity, exponential backoff with jitter, at most `max_retries` times)
only when trying again can help — connection refused or dropped, a timeout, 429, 5xx — and a
server's `Retry-After` is honoured up to `max_retry_wait`. Everything else becomes the
`LLMError` subclass that names provider, model, URL and what to do (the mapping:
`crag.models.llm._http_errors`). A stream is retried only
until its response starts: once tokens have reached the caller, a retry would repeat them.

The API key travels only in the `Authorization` header; it is never put in a message, a log
line or a repr, and `Endpoint` redacts it should a server echo it back.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from typing import Any

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from crag.errors import (
    LLMError,
    LLMRateLimitError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
    LLMUnavailableError,
)
from crag.models.llm._http_errors import Endpoint
from crag.models.llm.base import ChatResult

__all__ = ["HTTPClient", "with_attempts"]

log = logging.getLogger("crag.models.llm")
_RETRYABLE = (LLMUnavailableError, LLMTimeoutError, LLMRateLimitError, LLMServerError)


def with_attempts(result: ChatResult, attempts: int) -> ChatResult:
    """`result` marked with the number of HTTP requests it took."""
    return replace(result, attempts=attempts) if attempts != 1 else result


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, _RETRYABLE)


class HTTPClient:
    """A JSON-over-HTTP client for one provider and model. Thread-safe (one httpx.Client)."""

    def __init__(
        self,
        *,
        provider: str,
        model: str,
        base_url: str,
        api_key: str | None = None,
        key_env: str | None = None,
        timeout: float = 120.0,
        connect_timeout: float = 5.0,
        max_retries: int = 2,
        max_retry_wait: float = 60.0,
        hint: str = "",
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        # what every error names (and the key it redacts): `crag.models.llm._http_errors`
        self._where = Endpoint(provider, model, self.base_url, api_key, key_env, hint, timeout)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=min(connect_timeout, timeout)),
            headers=headers,
            transport=transport,
            follow_redirects=True,
        )

    @property
    def has_key(self) -> bool:
        return bool(self._where.key)

    def __repr__(self) -> str:  # never the headers
        return f"HTTPClient({self.provider!r}, {self.model!r}, {self.base_url!r})"

    def close(self) -> None:
        self._client.close()

    # -- retries --------------------------------------------------------------------------

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        asked = getattr(exc, "retry_after", None)
        if asked is not None and asked <= self.max_retry_wait:
            return float(asked)
        # exponential backoff with jitter: 0.5, 1, 2, 4, 8 s (+ up to 0.25 s)
        return min(8.0, 0.5 * 2.0 ** (state.attempt_number - 1)) + random.uniform(0, 0.25)

    def _log_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        log.warning(
            "%s %s: attempt %d failed (%s); retrying in %.1f s",
            self.provider, self.model, state.attempt_number, type(exc).__name__, wait,
        )  # fmt: skip

    def _retrying(self) -> Retrying:
        return Retrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception(_retryable),
            before_sleep=self._log_retry,
            reraise=True,
        )

    def _gave_up(self, exc: LLMError, attempts: int) -> LLMError:
        if attempts <= 1:
            return exc
        again = type(exc)(
            f"{exc} (gave up after {attempts} attempts)",
            provider=exc.provider,
            model=exc.model,
            status=exc.status,
            detail=exc.detail,
        )
        return again

    # -- requests -------------------------------------------------------------------------

    def _send(self, method: str, path: str, body: Any, stream: bool) -> httpx.Response:
        request = self._client.build_request(method, self.base_url + path, json=body)
        try:
            response = self._client.send(request, stream=stream)
        except httpx.HTTPError as exc:
            raise self._where.transport_error(exc) from None
        if response.status_code >= 400:
            with suppress(httpx.HTTPError):
                response.read()
            response.close()
            raise self._where.status_error(response)
        return response

    def _decode(self, response: httpx.Response) -> Any:
        text = response.text
        try:
            return json.loads(text)
        except ValueError:
            raise self._where.error(
                LLMResponseError,
                f"the server sent malformed JSON ({text[:120]!r}); is base_url an "
                f"{self.provider} API?",
            ) from None

    def post(self, path: str, body: dict[str, Any]) -> tuple[Any, int]:
        """POST JSON, return (decoded body, attempts it took)."""
        attempts = 0
        try:
            for attempt in self._retrying():
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    response = self._send("POST", path, body, stream=False)  # body read
        except LLMError as exc:
            raise self._gave_up(exc, attempts) from exc.__cause__
        return self._decode(response), attempts

    @contextmanager
    def stream_lines(self, path: str, body: dict[str, Any]) -> Iterator[tuple[Iterator[str], int]]:
        """POST JSON and iterate over the response's lines as they arrive.

        Yields (lines, attempts). A timeout or dropped connection mid-stream raises
        `LLMTimeoutError` / `LLMResponseError`; it is not retried (tokens were delivered).
        """
        attempts = 0
        try:
            for attempt in self._retrying():
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    response = self._send("POST", path, body, stream=True)
        except LLMError as exc:
            raise self._gave_up(exc, attempts) from exc.__cause__

        def lines() -> Iterator[str]:
            try:
                yield from response.iter_lines()
            except httpx.TimeoutException as exc:
                raise self._where.transport_error(exc) from None
            except httpx.HTTPError as exc:
                raise self.truncated(f"the stream broke off ({type(exc).__name__})") from None

        try:
            yield lines(), attempts
        finally:
            response.close()

    def truncated(self, what: str) -> LLMError:
        return self._where.error(
            LLMResponseError,
            f"{what} before the server said it was done; the answer is incomplete. Retry, "
            "or check the server's logs (out of memory? a proxy timeout?)",
        )

    def malformed(self, what: str) -> LLMError:
        return self._where.error(LLMResponseError, what)

    def stream_object(self, data: str, stream: str, item: str) -> dict[str, Any]:
        """One JSON object of a stream (an Ollama NDJSON line, an SSE `data:` payload).

        Not JSON, not an object, or an object carrying the server's `error` is an
        `LLMResponseError` naming the `stream` ("stream", "event stream") or the `item`.
        """
        try:
            chunk = json.loads(data)
        except ValueError:
            raise self.malformed(f"malformed JSON in the {stream}: {data[:120]!r}") from None
        if not isinstance(chunk, dict):
            raise self.malformed(f"unexpected {item}: {data[:120]!r}")
        if "error" in chunk:
            raise self.malformed(f"the server reported: {chunk['error']}")
        return chunk

    def get(self, path: str, timeout: float = 3.0) -> Any:
        """GET JSON once, no retries: for health checks."""
        try:
            response = self._client.get(self.base_url + path, timeout=timeout)
        except httpx.HTTPError as exc:
            raise self._where.transport_error(exc) from None
        if response.status_code >= 400:
            raise self._where.status_error(response)
        return self._decode(response)

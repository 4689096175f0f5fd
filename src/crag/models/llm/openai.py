"""The `openai` provider: any server that speaks OpenAI's `/chat/completions`.

OpenAI itself, Groq, Together, Gemini's OpenAI endpoint, vLLM, llama.cpp's `llama-server`,
LM Studio and Ollama's `/v1` all do — with differences at the edges. Rather than a table of
quirks per vendor, the provider learns them: when a server rejects a request with 400 and
names a parameter (`logprobs`, `response_format`, `stream_options`, `seed`, `max_tokens`), that
parameter is dropped (or `max_tokens` renamed `max_completion_tokens`, `json_schema` downgraded
to JSON mode) and the request sent again — each adjustment once, then remembered for the
process. The judge then sees "no log-probabilities" and switches to structured answers.

Keys: from the variable named by `api_key_env`, else the one that belongs to the base URL's
host (`OPENAI_API_KEY` for api.openai.com, `GROQ_API_KEY` for api.groq.com, ...). A key is never
sent to a host it does not belong to: pointing `openai` at a local vLLM does not leak
`OPENAI_API_KEY` to it.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx

from crag.errors import LLMAuthError, LLMRequestError
from crag.models.llm._http import HTTPClient, with_attempts
from crag.models.llm.base import ChatRequest, ChatResult, Health
from crag.models.llm.structured import ReasoningFilter
from crag.models.llm.wire import StreamFold, openai_body, parse_completion

__all__ = ["KEY_BY_HOST", "OpenAICompatLLM", "key_env_for"]

log = logging.getLogger("crag.models.llm")

KEY_BY_HOST = {
    "api.openai.com": "OPENAI_API_KEY",
    "api.groq.com": "GROQ_API_KEY",
    "api.together.xyz": "TOGETHER_API_KEY",
    "generativelanguage.googleapis.com": "GEMINI_API_KEY",
    "openrouter.ai": "OPENROUTER_API_KEY",
    "api.mistral.ai": "MISTRAL_API_KEY",
}


def key_env_for(base_url: str, api_key_env: str | None) -> str | None:
    """The variable holding the key for `base_url`: the configured one, else the host's own."""
    if api_key_env:
        return api_key_env
    return KEY_BY_HOST.get((urlsplit(base_url).hostname or "").lower())


def _api_root(base_url: str) -> str:
    """`http://host:port` alone means `http://host:port/v1`, the usual OpenAI-compatible root."""
    parts = urlsplit(base_url.rstrip("/"))
    return base_url.rstrip("/") + ("/v1" if parts.path in ("", "/") else "")


# parameter named in a 400 -> how to adjust the body; each applies at most once
_ADJUSTMENTS: dict[str, Callable[[dict[str, Any]], bool]] = {}


def _adjust(name: str) -> Callable[[Callable[[dict[str, Any]], bool]], Any]:
    def register(fn: Callable[[dict[str, Any]], bool]) -> Any:
        _ADJUSTMENTS[name] = fn
        return fn

    return register


@_adjust("logprobs")
def _no_logprobs(body: dict[str, Any]) -> bool:
    had = body.pop("logprobs", None) is not None
    return body.pop("top_logprobs", None) is not None or had


@_adjust("response_format")
def _weaker_format(body: dict[str, Any]) -> bool:
    fmt = body.get("response_format")
    if fmt is None:
        return False
    if fmt.get("type") == "json_schema":
        body["response_format"] = {"type": "json_object"}
    else:
        del body["response_format"]
    return True


@_adjust("stream_options")
def _no_stream_options(body: dict[str, Any]) -> bool:
    return body.pop("stream_options", None) is not None


@_adjust("seed")
def _no_seed(body: dict[str, Any]) -> bool:
    return body.pop("seed", None) is not None


@_adjust("max_tokens")
def _max_completion_tokens(body: dict[str, Any]) -> bool:
    if "max_tokens" not in body:
        return False
    body["max_completion_tokens"] = body.pop("max_tokens")
    return True


@_adjust("temperature")
def _no_temperature(body: dict[str, Any]) -> bool:
    return body.pop("temperature", None) is not None


class OpenAICompatLLM:
    """A model behind an OpenAI-compatible `/chat/completions` endpoint."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key_env: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 2,
        logprobs: bool | None = None,
        extra_body: dict[str, Any] | None = None,
        provider: str = "openai",
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.name = model
        self.provider = provider
        self.base_url = _api_root(base_url)
        self.key_env = key_env_for(self.base_url, api_key_env)
        key = os.environ.get(self.key_env) if self.key_env else None
        self._http = HTTPClient(
            provider=provider,
            model=model,
            base_url=self.base_url,
            api_key=key or None,
            key_env=self.key_env,
            timeout=timeout,
            max_retries=max_retries,
            transport=transport,
        )
        self._logprobs = logprobs is not False
        self._extra = dict(extra_body or {})
        self._learned: set[str] = set()  # adjustments this server needed
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAICompatLLM({self.name!r}, base_url={self.base_url!r})"

    def _body(self, request: ChatRequest, stream: bool) -> dict[str, Any]:
        body = openai_body(request, stream=stream, model=self.name, logprobs=self._logprobs)
        body.update(self._extra)
        with self._lock:
            learned = sorted(self._learned)
        for name in learned:
            _ADJUSTMENTS[name](body)
        return body

    def _send(
        self, body: dict[str, Any], send: Callable[[dict[str, Any]], ChatResult]
    ) -> ChatResult:
        """`send(body)`, adjusting and resending when a 400 names a parameter we can drop."""
        tried: set[str] = set()
        while True:
            try:
                return send(body)
            except LLMRequestError as exc:
                said = (exc.detail or "").lower()
                name = next(
                    (n for n in _ADJUSTMENTS if n in said and n not in tried and n in body),
                    None,
                )
                if exc.status not in (400, 422) or name is None or not _ADJUSTMENTS[name](body):
                    raise
                tried.add(name)
                log.info("%s %s: the server rejected %r; sending without it", self.provider,
                         self.name, name)  # fmt: skip
                with self._lock:
                    self._learned.add(name)

    def _need_key(self) -> None:
        if self.key_env and not self._http.has_key:
            raise LLMAuthError(
                f"{self.provider} model {self.name!r} at {self.base_url}: ${self.key_env} is not "
                "set; export it (keys are read only from the environment)",
                provider=self.provider,
                model=self.name,
            )

    def chat(self, request: ChatRequest) -> ChatResult:
        self._need_key()

        def send(body: dict[str, Any]) -> ChatResult:
            data, attempts = self._http.post("/chat/completions", body)
            if not isinstance(data, dict):
                raise self._http.malformed(f"expected a JSON object, got {str(data)[:120]!r}")
            if "error" in data:  # some servers answer 200 with an error object
                raise self._http.malformed(f"the server reported: {str(data['error'])[:300]}")
            result = parse_completion(data, self.name, self.provider)
            return with_attempts(result, attempts)

        return self._send(self._body(request, stream=False), send)

    def stream(self, request: ChatRequest, on_token: Callable[[str], None]) -> ChatResult:
        """Server-sent events: `data: {chunk}` lines, ending with `data: [DONE]`."""
        self._need_key()

        def send(body: dict[str, Any]) -> ChatResult:
            shown = ReasoningFilter(on_token)
            fold = StreamFold(shown)
            done = False
            with self._http.stream_lines("/chat/completions", body) as (lines, attempts):
                for line in lines:
                    if not line.startswith("data:"):
                        continue  # blank separators, `: keep-alive` comments, `event:` lines
                    data = line[5:].strip()
                    if data == "[DONE]":
                        done = True
                        break
                    chunk = self._http.stream_object(data, "event stream", "event")
                    fold.feed(chunk)
            shown.flush()
            if not (done or fold.finished):
                raise self._http.truncated(f"the stream ended after {len(fold.pieces)} pieces")
            return with_attempts(fold.result(self.name), attempts)

        return self._send(self._body(request, stream=True), send)

    def check(self) -> Health:
        """GET /models: reachable, key accepted, model listed (when the server lists it)."""
        from crag.errors import LLMError

        try:
            self._need_key()
            data = self._http.get("/models")
        except LLMError as exc:
            return Health(False, str(exc))
        listed = data.get("data") if isinstance(data, dict) else None
        ids = {str(m.get("id")) for m in (listed or []) if isinstance(m, dict)}
        if ids and self.name not in ids:
            return Health(False, f"reachable, but {self.name!r} is not among its {len(ids)} models")
        return Health(True, f"reachable, {len(ids)} model(s) listed")

    def close(self) -> None:
        self._http.close()

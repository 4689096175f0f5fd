"""The `ollama` provider: Ollama's native API (`/api/chat`, `/api/tags`).

Why native rather than Ollama's `/v1`: the native API takes `keep_alive` (how long the model
stays loaded between questions — the difference between a warm 1 s judge call and a cold 20 s
one), `options` such as `num_ctx` (Ollama otherwise cuts long prompts to its default context
without saying so), `format` with a JSON schema (constrained decoding: a small model cannot
answer anything but `{"answer": "yes"}` or `{"answer": "no"}`), and newer servers return
log-probabilities when asked. Streams are NDJSON: one object per line, the last with
`"done": true` and the token counts; a stream that ends without it was cut off.

The base URL defaults to `$OLLAMA_HOST` (as the `ollama` command reads it), else
`http://127.0.0.1:11434`. No key: Ollama has none (put a proxy's in `api_key_env`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import httpx

from crag.errors import LLMError, LLMRequestError
from crag.models.llm._http import HTTPClient, with_attempts
from crag.models.llm.base import ChatRequest, ChatResult, Health
from crag.models.llm.structured import ReasoningFilter, without_reasoning

__all__ = ["OllamaLLM", "default_ollama_url"]


def default_ollama_url() -> str:
    """`$OLLAMA_HOST` as the Ollama CLI reads it (`host:port`, scheme optional), else local."""
    host = os.environ.get("OLLAMA_HOST", "").strip()
    if not host:
        return "http://127.0.0.1:11434"
    if "://" not in host:
        host = f"http://{host}"
    return host.replace("://0.0.0.0", "://127.0.0.1")  # a bind address, not one to call


def _keep_alive(value: str | None) -> str | int | None:
    """Ollama takes a duration ("5m", "1h") or seconds as a number (-1: keep loaded)."""
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return value


def _logprobs(entries: Any) -> dict[str, float]:
    """First token's alternatives from Ollama's `logprobs` list (Ollama 0.12.11 and later)."""
    if not isinstance(entries, list) or not entries or not isinstance(entries[0], dict):
        return {}
    first = entries[0]
    out: dict[str, float] = {}
    for alt in first.get("top_logprobs") or [first]:
        try:
            token, lp = str(alt["token"]), float(alt["logprob"])
        except (KeyError, TypeError, ValueError):
            continue
        out[token] = max(out.get(token, float("-inf")), lp)
    return out


class OllamaLLM:
    """A model served by Ollama (`ollama serve`)."""

    provider = "ollama"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 2,
        keep_alive: str | None = None,
        logprobs: bool | None = None,
        options: dict[str, Any] | None = None,
        api_key_env: str | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.name = model
        base = (base_url or default_ollama_url()).rstrip("/")
        self.base_url = base[: -len("/api")] if base.endswith("/api") else base
        self.key_env = api_key_env
        self._http = HTTPClient(
            provider="ollama",
            model=model,
            base_url=self.base_url,
            api_key=(os.environ.get(api_key_env) or None) if api_key_env else None,
            key_env=api_key_env,
            timeout=timeout,
            max_retries=max_retries,
            hint=f"(start it with `ollama serve`; fetch the model with `ollama pull {model}`)",
            transport=transport,
        )
        self._keep_alive = _keep_alive(keep_alive)
        self._logprobs = logprobs is not False
        self._options = dict(options or {})
        self._schema_as_json = False  # learned: this server takes only format="json"

    def __repr__(self) -> str:
        return f"OllamaLLM({self.name!r}, base_url={self.base_url!r})"

    def _body(self, request: ChatRequest, stream: bool) -> dict[str, Any]:
        options: dict[str, Any] = {
            "temperature": request.temperature,
            "num_predict": request.max_tokens,
            "seed": request.seed,
        }
        if request.stop:
            options["stop"] = list(request.stop)
        options.update(self._options)
        body: dict[str, Any] = {
            "model": self.name,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "stream": stream,
            "options": options,
        }
        if self._keep_alive is not None:
            body["keep_alive"] = self._keep_alive
        if request.json_schema is not None:
            body["format"] = "json" if self._schema_as_json else dict(request.json_schema)
        if request.top_logprobs and self._logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = min(request.top_logprobs, 20)
        return body

    def _send(
        self, body: dict[str, Any], send: Callable[[dict[str, Any]], ChatResult]
    ) -> ChatResult:
        try:
            return send(body)
        except LLMRequestError as exc:
            # Ollama before 0.5 takes only format="json", not a schema
            if exc.status != 400 or "format" not in (exc.detail or "").lower():
                raise
            if not isinstance(body.get("format"), dict):
                raise
            self._schema_as_json = True
            return send({**body, "format": "json"})

    def _result(self, final: dict[str, Any], text: str, logprobs: dict[str, float]) -> ChatResult:
        return ChatResult(
            text=without_reasoning(text),
            prompt_tokens=int(final.get("prompt_eval_count") or 0),
            completion_tokens=int(final.get("eval_count") or 0),
            finish_reason=str(final.get("done_reason") or ("stop" if final.get("done") else "")),
            first_token_logprobs=logprobs,
            model=self.name,
        )

    def chat(self, request: ChatRequest) -> ChatResult:
        def send(body: dict[str, Any]) -> ChatResult:
            data, attempts = self._http.post("/api/chat", body)
            if not isinstance(data, dict):
                raise self._http.malformed(f"expected a JSON object, got {str(data)[:120]!r}")
            if "error" in data:
                raise self._http.malformed(f"the server reported: {str(data['error'])[:300]}")
            message = data.get("message")
            if not isinstance(message, dict):
                raise self._http.malformed(f"no `message` in the reply: {str(data)[:200]!r}")
            result = self._result(data, str(message.get("content") or ""), _logprobs(
                data.get("logprobs")))  # fmt: skip
            return with_attempts(result, attempts)

        return self._send(self._body(request, stream=False), send)

    def stream(self, request: ChatRequest, on_token: Callable[[str], None]) -> ChatResult:
        """NDJSON: one JSON object per line, `message.content` a piece; the last is `done`."""

        def send(body: dict[str, Any]) -> ChatResult:
            pieces: list[str] = []
            shown = ReasoningFilter(on_token)
            logprobs: dict[str, float] = {}
            final: dict[str, Any] | None = None
            with self._http.stream_lines("/api/chat", body) as (lines, attempts):
                for line in lines:
                    if not line.strip():
                        continue
                    chunk = self._http.stream_object(line, "stream", "stream line")
                    piece = (chunk.get("message") or {}).get("content") or ""
                    if piece:
                        pieces.append(piece)
                        shown(piece)
                    if not logprobs:
                        logprobs = _logprobs(chunk.get("logprobs"))
                    if chunk.get("done"):
                        final = chunk
                        break
            shown.flush()
            if final is None:
                raise self._http.truncated(f"the stream ended after {len(pieces)} pieces")
            return with_attempts(self._result(final, "".join(pieces), logprobs), attempts)

        return self._send(self._body(request, stream=True), send)

    def check(self) -> Health:
        """GET /api/tags: is Ollama up, and is the model pulled?"""
        try:
            data = self._http.get("/api/tags")
        except LLMError as exc:
            return Health(False, str(exc))
        listed = data.get("models") if isinstance(data, dict) else None
        names = {str(m.get("name")) for m in (listed or []) if isinstance(m, dict)}
        wanted = {self.name, f"{self.name}:latest"}
        if names & wanted:
            return Health(True, f"reachable, {self.name} is pulled")
        return Health(
            False, f"reachable, but {self.name!r} is not pulled: `ollama pull {self.name}`"
        )

    def close(self) -> None:
        self._http.close()

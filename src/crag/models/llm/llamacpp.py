"""The default LLM: a GGUF model served in-process by llama.cpp (the `xllamacpp` wheel).

xllamacpp embeds llama.cpp's own server, so requests and responses are the OpenAI chat JSON
the server speaks everywhere else — the same code path an Ollama or vLLM provider will take.
The server holds `parallel` slots with continuous batching, so concurrent calls from threads
(the evaluator scoring five chunks) are batched by llama.cpp rather than queued in Python.
The model loads on first use, once per process and file, and is shared by every role that
names it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crag.errors import LLMError, ModelLoadError
from crag.models.llm.base import ChatRequest, ChatResult

__all__ = ["LlamaCppLLM"]

_SERVERS: dict[tuple[str, int, int], Any] = {}
_SERVERS_LOCK = threading.Lock()


def _server(path: Path, ctx_per_slot: int, parallel: int, threads: int) -> Any:
    key = (str(path), ctx_per_slot, parallel)
    with _SERVERS_LOCK:
        if key in _SERVERS:
            return _SERVERS[key]
        try:
            import xllamacpp as xlc
        except ImportError as exc:  # pragma: no cover - a dependency of crag
            raise ModelLoadError("the local LLM needs the 'xllamacpp' package") from exc
        params = xlc.CommonParams()
        params.model.path = str(path)
        params.n_ctx = ctx_per_slot * parallel
        params.n_parallel = parallel
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.verbosity = -1
        params.warmup = False
        params.hostnames = ["127.0.0.1"]
        try:
            server = xlc.Server(params)
        except Exception as exc:
            raise ModelLoadError(f"llama.cpp could not load {path}: {exc}") from exc
        _SERVERS[key] = server
        return server


def _payload(request: ChatRequest, stream: bool) -> dict[str, Any]:
    body: dict[str, Any] = {
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "seed": request.seed,
        "stream": stream,
    }
    if stream:
        body["stream_options"] = {"include_usage": True}
    if request.stop:
        body["stop"] = list(request.stop)
    if request.top_logprobs:
        body["logprobs"] = True
        body["top_logprobs"] = request.top_logprobs
    return body


def _raise_if_error(response: Any, model: str) -> dict[str, Any]:
    if isinstance(response, str):
        import json

        response = json.loads(response)
    if not isinstance(response, dict):
        raise LLMError(f"{model}: unexpected response of type {type(response).__name__}")
    if "error" in response:
        error = response["error"]
        message = error.get("message", error) if isinstance(error, dict) else error
        raise LLMError(f"{model}: {message}")
    return response


def parse_completion(response: dict[str, Any], model: str) -> ChatResult:
    """Read an OpenAI chat completion into a ChatResult (shared with HTTP providers)."""
    try:
        choice = response["choices"][0]
        text = choice["message"].get("content") or ""
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMError(f"{model}: response has no choices[0].message: {response!r:.200}") from exc
    logprobs: dict[str, float] = {}
    content = (choice.get("logprobs") or {}).get("content") or []
    if content:
        for alt in content[0].get("top_logprobs") or []:
            token = alt.get("token", "")
            logprobs[token] = max(logprobs.get(token, float("-inf")), float(alt["logprob"]))
    usage = response.get("usage") or {}
    return ChatResult(
        text=text,
        prompt_tokens=int(usage.get("prompt_tokens", 0)),
        completion_tokens=int(usage.get("completion_tokens", 0)),
        cached_tokens=int((usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)),
        finish_reason=choice.get("finish_reason") or "",
        first_token_logprobs=logprobs,
        model=model,
    )


class LlamaCppLLM:
    """A local GGUF model. `model` is a packaged name (see `packaged.py`) or a .gguf path."""

    def __init__(
        self,
        model: str,
        *,
        models_dir: Path,
        ctx_per_slot: int = 4096,
        parallel: int = 2,
        threads: int | None = None,
    ) -> None:
        self.name = model
        self._models_dir = models_dir
        self._ctx = ctx_per_slot
        self._parallel = parallel
        self._threads = threads or max(1, os.cpu_count() or 1)
        self._server: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Assemble/verify the model file and start the server (otherwise done on first call)."""
        with self._lock:
            if self._server is None:
                from crag.models.llm.packaged import resolve_gguf

                path = resolve_gguf(self.name, self._models_dir)
                self._server = _server(path, self._ctx, self._parallel, self._threads)

    def chat(self, request: ChatRequest) -> ChatResult:
        self.load()
        try:
            response = self._server.handle_chat_completions(_payload(request, stream=False))
        except Exception as exc:
            raise LLMError(f"{self.name}: llama.cpp failed: {exc}") from exc
        return parse_completion(_raise_if_error(response, self.name), self.name)

    def stream(self, request: ChatRequest, on_token: Callable[[str], None]) -> ChatResult:
        """Generate with `stream: true`, handing each text delta to `on_token`."""
        self.load()
        pieces: list[str] = []
        usage: dict[str, Any] = {}
        finish = ""
        errors: list[str] = []

        def on_chunk(chunk: Any) -> None:
            nonlocal finish
            if isinstance(chunk, str):
                import json

                chunk = json.loads(chunk)
            if "error" in chunk:
                errors.append(str(chunk["error"]))
                return
            for choice in chunk.get("choices") or []:
                delta = (choice.get("delta") or {}).get("content")
                if delta:
                    pieces.append(delta)
                    on_token(delta)
                finish = choice.get("finish_reason") or finish
            usage.update(chunk.get("usage") or {})

        try:
            result = self._server.handle_chat_completions(_payload(request, True), on_chunk)
        except Exception as exc:
            raise LLMError(f"{self.name}: llama.cpp failed: {exc}") from exc
        if result is not None:
            _raise_if_error(result, self.name)
        if errors:
            raise LLMError(f"{self.name}: {errors[0]}")
        return ChatResult(
            text="".join(pieces),
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", len(pieces))),
            finish_reason=finish,
            model=self.name,
        )

"""The default LLM: a GGUF model served in-process by llama.cpp (the `xllamacpp` wheel).

xllamacpp embeds llama.cpp's own server, so requests and responses are the OpenAI chat JSON
the server speaks everywhere else — the same code path an Ollama or vLLM provider will take.
The server holds `parallel` slots with continuous batching, so concurrent calls from threads
(the evaluator scoring five chunks) are batched by llama.cpp rather than queued in Python.
The model loads on first use, once per process and file, and is shared by every role that
names it. The embedded server also listens on a loopback port (`server_url()`), which is how the
tests put a real OpenAI-compatible server in front of the packaged model.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crag.errors import LLMError, ModelLoadError
from crag.models.llm.base import ChatRequest, ChatResult, Health
from crag.models.llm.prompt_state import SLOT, PromptStates, model_identity, state_name
from crag.models.llm.wire import StreamFold, openai_body, parse_completion

__all__ = ["LlamaCppLLM", "parse_completion"]

# one server per model file and shape, with the prompt states kept for it (None: not kept)
_SERVERS: dict[tuple[str, int, int, int], tuple[Any, PromptStates | None]] = {}
_SERVERS_LOCK = threading.Lock()


def _server(
    path: Path,
    ctx_per_slot: int,
    parallel: int,
    threads: int,
    port: int = 0,
    alias: str = "",
    states: Path | None = None,
) -> tuple[Any, PromptStates | None]:
    """The server of `path` (loaded once per process and shape) and its prompt states, kept
    in `states` (the folder of the instance that loaded it: the server saves files there)."""
    key = (str(path), ctx_per_slot, parallel, port)
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
        params.hostnames = ["127.0.0.1"]  # the embedded HTTP server listens on loopback only
        params.port = port  # 0: a free port (see `LlamaCppLLM.server_url`)
        if alias:
            params.model_alias = {alias}  # the id its /v1/models lists
        if states is not None:  # prompt states (prompt_state.py); llama.cpp appends the name
            params.slot_save_path = f"{states}{os.sep}"
            params.endpoint_slots = True
        try:
            server = xlc.Server(params)
        except Exception as exc:
            raise ModelLoadError(f"llama.cpp could not load {path}: {exc}") from exc

        def post(endpoint: str, body: dict[str, Any]) -> dict[str, Any]:
            import httpx

            reply = httpx.post(f"{server.listening_address}{endpoint}", json=body, timeout=60)
            return reply.json()  # type: ignore[no-any-return]

        kept = None
        if states is not None:
            kept = PromptStates(states, post, model_identity(path, _build(), ctx_per_slot))
        _SERVERS[key] = (server, kept)
        return _SERVERS[key]


def _build() -> str:
    """The llama.cpp build a saved state belongs to: the xllamacpp wheel's version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("xllamacpp")
    except PackageNotFoundError:  # pragma: no cover - a dependency of crag
        return "unknown"


def _raise_if_error(response: Any, model: str) -> dict[str, Any]:
    if isinstance(response, str):
        import json

        response = json.loads(response)
    if not isinstance(response, dict):
        raise LLMError(f"{model}: unexpected response of type {type(response).__name__}")
    if "error" in response:
        error = response["error"]
        message = error.get("message", error) if isinstance(error, dict) else error
        raise LLMError(f"local model {model!r}: {message}", provider="local", model=model)
    return response


class LlamaCppLLM:
    """A local GGUF model. `model` is a packaged name (see `packaged.py`) or a .gguf path.

    `keep_states`: a request with `keep_prefix` restores the computed state of its fixed lead
    saved by an earlier process, and saves it where none was (in `<models_dir>/states` of the
    instance that loaded the model: instances naming the same file share one server).
    """

    provider = "local"

    def __init__(
        self,
        model: str,
        *,
        models_dir: Path,
        ctx_per_slot: int = 4096,
        parallel: int = 2,
        threads: int | None = None,
        port: int = 0,
        keep_states: bool = True,
    ) -> None:
        self.name = model
        self._port = port
        self._models_dir = models_dir
        self._ctx = ctx_per_slot
        self._parallel = parallel
        self._threads = threads or max(1, os.cpu_count() or 1)
        self._server: Any = None
        self._keep_states = keep_states
        self._states: PromptStates | None = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Assemble/verify the model file and start the server (otherwise done on first call)."""
        with self._lock:
            if self._server is None:
                from crag.models.llm.packaged import resolve_gguf

                path = resolve_gguf(self.name, self._models_dir)
                folder = self._models_dir / "states"
                self._server, states = _server(
                    path, self._ctx, self._parallel, self._threads, self._port, self.name, folder
                )
                self._states = states if self._keep_states else None

    def _body(self, request: ChatRequest, stream: bool) -> tuple[dict[str, Any], str | None]:
        """The request's body, and the name of the state to save after it (None: none).

        The first call of a process for a fixed lead runs on slot `SLOT`, after its saved
        state is restored there; where none could be, its own is saved once it is done."""
        body = openai_body(request, stream=stream)
        states = self._states
        if states is None or not request.keep_prefix or len(request.messages) < 2:
            return body, None
        name = state_name(states.identity, request)
        if not states.first_use(name):
            return body, None
        body["id_slot"] = SLOT
        return body, None if states.restore(name) else name

    def server_url(self) -> str:
        """The OpenAI-compatible URL llama.cpp's embedded server listens on (loopback only).

        Loads the model. Any OpenAI client — crag's `openai` provider included — can talk to
        it: `http://127.0.0.1:PORT/v1`.
        """
        self.load()
        return f"{self._server.listening_address}/v1"

    def check(self) -> Health:
        """Is the model file there (or its packaged parts installed)? Loads nothing."""
        from crag.models.llm.packaged import _ALIASES, PACKAGED_MODELS

        key = _ALIASES.get(self.name.lower(), self.name.lower())
        packaged = PACKAGED_MODELS.get(key)
        if packaged is None:
            path = Path(self.name).expanduser()
            if path.is_file():
                return Health(True, f"file {path}")
            return Health(False, f"no such file: {path}")
        target = self._models_dir / packaged.filename
        if target.is_file() and target.stat().st_size == packaged.size:
            return Health(True, f"file {target}")
        try:
            packaged.part_paths()
        except ModelLoadError as exc:
            return Health(False, str(exc))
        return Health(True, f"packaged; assembled into {self._models_dir} on first use")

    def chat(self, request: ChatRequest) -> ChatResult:
        self.load()
        body, save = self._body(request, stream=False)
        try:
            response = self._server.handle_chat_completions(body)
        except Exception as exc:
            raise LLMError(
                f"local model {self.name!r}: llama.cpp failed: {exc}",
                provider="local",
                model=self.name,
            ) from exc
        result = parse_completion(_raise_if_error(response, self.name), self.name)
        if save and self._states:
            self._states.save(save)
        return result

    def stream(self, request: ChatRequest, on_token: Callable[[str], None]) -> ChatResult:
        """Generate with `stream: true`, handing each text delta to `on_token`."""
        self.load()
        body, save = self._body(request, stream=True)
        fold = StreamFold(on_token)
        errors: list[str] = []

        def on_chunk(chunk: Any) -> None:
            if isinstance(chunk, str):
                import json

                chunk = json.loads(chunk)
            if "error" in chunk:
                errors.append(str(chunk["error"]))
                return
            fold.feed(chunk)

        try:
            result = self._server.handle_chat_completions(body, on_chunk)
        except Exception as exc:
            raise LLMError(
                f"local model {self.name!r}: llama.cpp failed: {exc}",
                provider="local",
                model=self.name,
            ) from exc
        if result is not None:
            _raise_if_error(result, self.name)
        if errors:
            raise LLMError(f"{self.name}: {errors[0]}", provider="local", model=self.name)
        if save and self._states:
            self._states.save(save)
        return fold.result(self.name)

"""Ollama's HTTP API in front of a crag `LLM` (the packaged llama.cpp model), on loopback.

Ollama itself cannot be installed here, so this speaks its wire protocol as documented
(docs/api.md): `GET /api/tags`, `GET /api/version`, `POST /api/chat` with `stream` (default
true: NDJSON over chunked transfer, the last line `"done": true` with `prompt_eval_count` and
`eval_count`), `format` ("json" or a JSON schema, enforced by llama.cpp's grammar), `options`
(`num_predict`, `temperature`, `seed`, `stop`), `keep_alive`, and — only when started with
`logprobs=True`, like Ollama 0.12.11+ — `logprobs`/`top_logprobs`. An unknown model is a 404
with Ollama's error shape. Every request body is kept in `state["requests"]` for assertions.

Run standalone: `python -m tests.servers.ollama_api [model] [port]`.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from tests.servers.loopback import Handler

from crag.errors import LLMError
from crag.models.llm.base import ChatRequest, ChatResult, Message

__all__ = ["OllamaAPI"]


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class OllamaAPI(Handler):
    """state: llm (an LLM with chat/stream), name (the model's Ollama name), logprobs (bool)."""

    def _names(self) -> set[str]:
        name = self.state["name"]
        return {name, f"{name}:latest"} if ":" not in name else {name}

    def do_GET(self) -> None:
        if self.path == "/":
            self.send_bytes(200, b"Ollama is running", "text/plain")
        elif self.path == "/api/version":
            self.send_json(200, {"version": "0.12.11-crag-test"})
        elif self.path == "/api/tags":
            name = self.state["name"]
            self.send_json(200, {"models": [{
                "name": name, "model": name, "modified_at": _now(), "size": 0,
                "digest": "0" * 64,
                "details": {"format": "gguf", "family": "qwen2", "parameter_size": "0.5B",
                            "quantization_level": "Q4_K_M"},
            }]})  # fmt: skip
        else:
            self.send_json(404, {"error": "404 page not found"})

    def do_POST(self) -> None:
        if self.path != "/api/chat":
            self.send_json(404, {"error": "404 page not found"})
            return
        body = self.read_json() or {}
        self.state.setdefault("requests", []).append(body)
        model = body.get("model", "")
        if model not in self._names():
            self.send_json(404, {"error": f"model '{model}' not found"})
            return
        try:
            request = self._request(body)
        except ValueError as exc:
            self.send_json(400, {"error": str(exc)})
            return
        started = time.perf_counter_ns()
        if body.get("stream", True):
            self._stream(model, request, started)
        else:
            try:
                result = self.state["llm"].chat(request)
            except LLMError as exc:
                self.send_json(500, {"error": str(exc)})
                return
            self.send_json(200, self._final(model, result, started, result.text))

    def _request(self, body: dict[str, Any]) -> ChatRequest:
        options = body.get("options") or {}
        fmt = body.get("format")
        if fmt in (None, ""):
            schema = None
        elif fmt == "json":
            schema = {"type": "object"}
        elif isinstance(fmt, dict):
            schema = fmt
        else:
            raise ValueError(f"invalid format: {fmt!r}")
        num_predict = int(options.get("num_predict", -1))
        top = 0
        if self.state.get("logprobs") and body.get("logprobs"):
            top = max(1, int(body.get("top_logprobs") or 1))
        return ChatRequest(
            messages=tuple(Message(m["role"], m.get("content", "")) for m in body["messages"]),
            max_tokens=num_predict if num_predict > 0 else 512,
            temperature=float(options.get("temperature", 0.8)),
            seed=int(options.get("seed", 0)),
            stop=tuple(options.get("stop") or ()),
            top_logprobs=top,
            json_schema=schema,
        )

    def _final(self, model: str, result: ChatResult, started: int, content: str) -> dict[str, Any]:
        elapsed = time.perf_counter_ns() - started
        out: dict[str, Any] = {
            "model": model,
            "created_at": _now(),
            "message": {"role": "assistant", "content": content},
            "done": True,
            "done_reason": "length" if result.finish_reason == "length" else "stop",
            "total_duration": elapsed,
            "load_duration": 0,
            "prompt_eval_count": result.prompt_tokens,
            "prompt_eval_duration": elapsed // 2,
            "eval_count": result.completion_tokens,
            "eval_duration": elapsed // 2,
        }
        if result.first_token_logprobs:
            alternatives = sorted(result.first_token_logprobs.items(), key=lambda kv: -kv[1])
            token, logprob = alternatives[0]
            out["logprobs"] = [{
                "token": token, "logprob": logprob,
                "top_logprobs": [{"token": t, "logprob": lp} for t, lp in alternatives],
            }]  # fmt: skip
        return out

    def _stream(self, model: str, request: ChatRequest, started: int) -> None:
        import json

        self.start_stream("application/x-ndjson")

        def on_token(piece: str) -> None:
            line = {"model": model, "created_at": _now(),
                    "message": {"role": "assistant", "content": piece}, "done": False}  # fmt: skip
            self.send_chunk(json.dumps(line) + "\n")

        try:
            result = self.state["llm"].stream(request, on_token)
        except LLMError as exc:
            self.send_chunk(json.dumps({"error": str(exc)}) + "\n")
        else:
            self.send_chunk(json.dumps(self._final(model, result, started, "")) + "\n")
        self.end_stream()


if __name__ == "__main__":  # pragma: no cover - manual use and benchmarks
    import sys
    from pathlib import Path

    from tests.servers.loopback import LoopbackServer

    from crag.models.llm import LlamaCppLLM

    # python -m tests.servers.ollama_api [packaged model] [ollama port] [openai port]
    packaged = sys.argv[1] if len(sys.argv) > 1 else "qwen2.5-coder-0.5b"
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 11434
    openai_port = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    llm = LlamaCppLLM(packaged, models_dir=Path(".crag/models"), parallel=1, port=openai_port)
    print(f"OpenAI-compatible (llama.cpp) for {packaged} on {llm.server_url()}", flush=True)
    server = LoopbackServer(("127.0.0.1", port), OllamaAPI)
    name = packaged.replace("qwen2.5-coder-", "qwen2.5-coder:")
    server.state = {"llm": llm, "name": name, "logprobs": False}
    print(f"Ollama API for {name} on {server.url}", flush=True)
    server.serve_forever()

"""A misbehaving chat server on loopback: it answers from a script, one step per request.

It speaks both wire shapes — `/api/...` as Ollama, anything else as an OpenAI-compatible
server — so one script drives either provider. Steps: `reply` (a normal answer, optionally
with first-token log-probabilities), `status` (429/500/401/400/404 with the server's error
shape and headers such as Retry-After), `sleep` (longer than the client's timeout),
`malformed` (a 200 whose body is not JSON), `stream` (SSE or NDJSON; `cut=True` closes the
socket mid-stream, `finish=False` ends cleanly but without the final event, `bad_line=True`
sends an unparseable event). When the script runs out, `default` answers. Every request is
recorded (path, headers, JSON body) in `state["requests"]`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from tests.servers.loopback import Handler

__all__ = ["FaultyAPI", "malformed", "reply", "sleep", "status", "stream"]

Step = Callable[["FaultyAPI", Any], None]


class FaultyAPI(Handler):
    @property
    def ollama(self) -> bool:
        return self.path.startswith("/api/")

    def _handle(self, body: Any) -> None:
        self.state.setdefault("requests", []).append(
            {"path": self.path, "headers": dict(self.headers), "body": body}
        )
        steps: list[Step] = self.state.setdefault("steps", [])
        step = steps.pop(0) if steps else self.state.get("default") or reply("Yes")
        step(self, body)

    def do_POST(self) -> None:
        self._handle(self.read_json())

    def do_GET(self) -> None:
        self._handle(None)


def reply(text: str, logprobs: dict[str, float] | None = None) -> Step:
    def step(h: FaultyAPI, body: Any) -> None:
        if h.ollama:
            out: dict[str, Any] = {
                "model": (body or {}).get("model", ""), "created_at": "2026-01-01T00:00:00Z",
                "message": {"role": "assistant", "content": text}, "done": True,
                "done_reason": "stop", "prompt_eval_count": 11, "eval_count": 3,
            }  # fmt: skip
            if logprobs:
                out["logprobs"] = [{"token": text, "logprob": max(logprobs.values()),
                                    "top_logprobs": [{"token": t, "logprob": v}
                                                     for t, v in logprobs.items()]}]  # fmt: skip
        else:
            choice: dict[str, Any] = {
                "index": 0, "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }  # fmt: skip
            if logprobs:
                choice["logprobs"] = {"content": [{
                    "token": text, "logprob": max(logprobs.values()),
                    "top_logprobs": [{"token": t, "logprob": v} for t, v in logprobs.items()],
                }]}  # fmt: skip
            out = {"id": "x", "object": "chat.completion", "choices": [choice],
                   "usage": {"prompt_tokens": 11, "completion_tokens": 3}}  # fmt: skip
        h.send_json(200, out)

    return step


def status(code: int, message: str = "", headers: dict[str, str] | None = None) -> Step:
    def step(h: FaultyAPI, body: Any) -> None:
        words = message or f"status {code}"
        shape = {"error": words} if h.ollama else {"error": {"message": words, "code": code}}
        h.send_json(code, shape, headers)

    return step


def sleep(seconds: float, then: Step | None = None) -> Step:
    def step(h: FaultyAPI, body: Any) -> None:
        time.sleep(seconds)
        with suppress(OSError):  # the client gave up and closed the socket
            (then or reply("Yes"))(h, body)

    return step


def malformed(raw: bytes = b'{"choices": [{"message": {"content": "Ye') -> Step:
    def step(h: FaultyAPI, body: Any) -> None:
        h.send_bytes(200, raw, "application/json")

    return step


def stream(
    pieces: list[str], *, cut: bool = False, finish: bool = True, bad_line: bool = False
) -> Step:
    def step(h: FaultyAPI, body: Any) -> None:
        h.start_stream("application/x-ndjson" if h.ollama else "text/event-stream")
        for piece in pieces:
            if h.ollama:
                line = json.dumps({"message": {"role": "assistant", "content": piece},
                                   "done": False}) + "\n"  # fmt: skip
            else:
                line = "data: " + json.dumps({"choices": [{"index": 0,
                       "delta": {"content": piece}, "finish_reason": None}]}) + "\n\n"  # fmt: skip
            h.send_chunk(line)
        if bad_line:
            h.send_chunk("data: {not json\n\n" if not h.ollama else "{not json\n")
        if cut:
            h.cut_connection()
            return
        if finish:
            if h.ollama:
                h.send_chunk(json.dumps({"message": {"role": "assistant", "content": ""},
                                         "done": True, "done_reason": "stop",
                                         "prompt_eval_count": 9, "eval_count": len(pieces)})
                             + "\n")  # fmt: skip
            else:
                h.send_chunk('data: {"choices": [{"index": 0, "delta": {}, '
                             '"finish_reason": "stop"}], "usage": {"prompt_tokens": 9, '
                             f'"completion_tokens": {len(pieces)}}}}}\n\n')  # fmt: skip
                h.send_chunk("data: [DONE]\n\n")
        h.end_stream()

    return step

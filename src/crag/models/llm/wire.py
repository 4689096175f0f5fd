"""The OpenAI chat wire format: request bodies, completions and stream chunks.

Shared by the in-process llama.cpp model (whose embedded server speaks it) and the `openai`
provider (any OpenAI-compatible server), so both read responses, usage and log-probabilities
the same way. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from crag.errors import LLMResponseError
from crag.models.llm.base import ChatRequest, ChatResult
from crag.models.llm.structured import without_reasoning

__all__ = [
    "StreamFold",
    "first_token_logprobs",
    "openai_body",
    "parse_completion",
    "token_logprobs",
]


def openai_body(
    request: ChatRequest,
    *,
    stream: bool,
    model: str | None = None,
    schema_mode: str = "json_schema",
    logprobs: bool = True,
) -> dict[str, Any]:
    """The `/chat/completions` body for `request`.

    `schema_mode` is how `request.json_schema` is sent: `json_schema` (OpenAI structured
    outputs, llama.cpp, vLLM), `json_object` (JSON mode, no schema) or `none`; `logprobs=False`
    leaves log-probabilities out for servers that reject the parameter.
    """
    body: dict[str, Any] = {
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "seed": request.seed,
        "stream": stream,
    }
    if model is not None:
        body["model"] = model
    if stream:
        body["stream_options"] = {"include_usage": True}
    if request.stop:
        body["stop"] = list(request.stop)
    if (request.top_logprobs or request.logprobs) and logprobs:
        body["logprobs"] = True
        body["top_logprobs"] = min(max(request.top_logprobs, 1), 20)  # OpenAI's maximum
    if request.json_schema is not None and schema_mode == "json_schema":
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": dict(request.json_schema), "strict": True},
        }
    elif request.json_schema is not None and schema_mode == "json_object":
        body["response_format"] = {"type": "json_object"}
    return body


def first_token_logprobs(content: list[dict[str, Any]] | None) -> dict[str, float]:
    """token -> log-probability among the first generated token's alternatives."""
    out: dict[str, float] = {}
    if not content:
        return out
    first = content[0] or {}
    alternatives = first.get("top_logprobs") or []
    if not alternatives and "token" in first:
        alternatives = [first]
    for alt in alternatives:
        try:
            token, logprob = str(alt.get("token", "")), float(alt["logprob"])
        except (KeyError, TypeError, ValueError):
            continue
        out[token] = max(out.get(token, float("-inf")), logprob)
    return out


def token_logprobs(content: list[dict[str, Any]] | None) -> tuple[tuple[str, float], ...]:
    """(token, log-probability) of each generated token; entries it cannot read are skipped."""
    out: list[tuple[str, float]] = []
    for entry in content or []:
        try:
            out.append((str(entry.get("token", "")), float(entry["logprob"])))
        except (AttributeError, KeyError, TypeError, ValueError):
            continue
    return tuple(out)


def _usage(usage: dict[str, Any] | None) -> tuple[int, int, int]:
    usage = usage or {}
    details = usage.get("prompt_tokens_details") or {}
    return (
        int(usage.get("prompt_tokens") or 0),
        int(usage.get("completion_tokens") or 0),
        int(details.get("cached_tokens") or 0),
    )


def parse_completion(response: Any, model: str, provider: str = "local") -> ChatResult:
    """Read an OpenAI chat completion into a ChatResult."""
    try:
        choice = response["choices"][0]
        message = choice["message"]
        text = message.get("content") or ""
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMResponseError(
            f"{provider} model {model!r}: the response has no choices[0].message "
            f"({str(response)[:200]!r}); is this an OpenAI-compatible chat endpoint?",
            provider=provider,
            model=model,
        ) from exc
    prompt, completion, cached = _usage(response.get("usage") or _groq_usage(response))
    content = (choice.get("logprobs") or {}).get("content")
    return ChatResult(
        text=without_reasoning(_content_text(text)),
        prompt_tokens=prompt,
        completion_tokens=completion,
        cached_tokens=cached,
        finish_reason=choice.get("finish_reason") or "",
        first_token_logprobs=first_token_logprobs(content),
        token_logprobs=token_logprobs(content),
        model=model,
    )


def _content_text(content: Any) -> str:
    """Message content as text: a string, or a list of parts (`[{"type": "text", ...}]`)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return str(content)


def _groq_usage(chunk: dict[str, Any]) -> dict[str, Any] | None:
    """Groq reports streamed usage under `x_groq.usage` instead of `usage`."""
    extra = chunk.get("x_groq")
    return extra.get("usage") if isinstance(extra, dict) else None


@dataclass(slots=True)
class StreamFold:
    """Folds `chat.completion.chunk` objects into one ChatResult, passing text on as it comes.

    `finished` turns true when a chunk carries a `finish_reason`: a stream that ends without
    one was cut off, which the provider reports instead of returning half an answer as whole.
    """

    on_token: Callable[[str], None]
    pieces: list[str] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    logprobs: dict[str, float] = field(default_factory=dict)
    tokens: list[tuple[str, float]] = field(default_factory=list)
    finish: str = ""
    finished: bool = False

    def feed(self, chunk: dict[str, Any]) -> None:
        for choice in chunk.get("choices") or []:
            delta = (choice.get("delta") or {}).get("content")
            if delta:
                self.pieces.append(delta)
                self.on_token(delta)
            content = (choice.get("logprobs") or {}).get("content")
            if not self.logprobs:
                self.logprobs = first_token_logprobs(content)
            self.tokens.extend(token_logprobs(content))
            if choice.get("finish_reason"):
                self.finish = choice["finish_reason"]
                self.finished = True
        self.usage.update(chunk.get("usage") or _groq_usage(chunk) or {})

    def result(self, model: str) -> ChatResult:
        prompt, completion, cached = _usage(self.usage)
        return ChatResult(
            text=without_reasoning("".join(self.pieces)),
            prompt_tokens=prompt,
            completion_tokens=completion or len(self.pieces),
            cached_tokens=cached,
            finish_reason=self.finish,
            first_token_logprobs=self.logprobs,
            token_logprobs=tuple(self.tokens),
            model=model,
        )

"""The LLM protocol: one required method, `chat`, in the OpenAI chat shape.

Why the OpenAI shape: llama.cpp (in-process via xllamacpp), Ollama, vLLM and every hosted API
speak it, so a provider is a thin translation. `chat` returns the text plus, when asked, the
log-probabilities of the first generated token's alternatives — what the Yes/No judge needs to
score from probabilities instead of parsing free text. Streaming is optional: `stream_chat`
falls back to one `chat` call for a provider that cannot stream.

`json_schema` asks for structured output: each provider translates it into what its server
understands (OpenAI `response_format`, Ollama `format`, llama.cpp's grammar), so a caller that
needs JSON says so once and parses the reply tolerantly (`crag.models.llm.structured`) —
servers that ignore the request still get a chance to be understood.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = ["LLM", "ChatRequest", "ChatResult", "Health", "Message", "stream_chat"]


@dataclass(frozen=True, slots=True)
class Message:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True, slots=True)
class ChatRequest:
    messages: tuple[Message, ...]
    max_tokens: int = 256
    temperature: float = 0.0
    top_logprobs: int = 0  # >0: return the alternatives of the first generated token
    logprobs: bool = False  # return each generated token's log-probability (token_logprobs)
    stop: tuple[str, ...] = ()
    seed: int = 0
    purpose: str = ""  # what the call is for ("evaluate", "generate"): recorded in traces
    json_schema: Mapping[str, object] | None = None  # ask for JSON matching this schema
    # the messages before the last recur across calls (instructions, examples): a provider
    # may keep their computed state from one process to the next (llama.cpp: prompt_state)
    keep_prefix: bool = False

    @classmethod
    def of(cls, system: str, user: str, **kwargs: Any) -> ChatRequest:
        return cls(messages=(Message("system", system), Message("user", user)), **kwargs)


@dataclass(frozen=True, slots=True)
class ChatResult:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    finish_reason: str = ""
    # token -> log-probability for the first generated token (empty unless requested)
    first_token_logprobs: dict[str, float] = field(default_factory=dict)
    # (token, log-probability) of each generated token, in order (empty unless requested)
    token_logprobs: tuple[tuple[str, float], ...] = ()
    model: str = ""
    attempts: int = 1  # HTTP requests it took (retries after 429/5xx/connection errors)


@dataclass(frozen=True, slots=True)
class Health:
    """What a provider's optional `check()` found: reachable or not, and the detail."""

    ok: bool
    detail: str


@runtime_checkable
class LLM(Protocol):
    """A chat model. `name` identifies it in traces; `chat` is the one required method."""

    name: str

    def chat(self, request: ChatRequest) -> ChatResult: ...


@runtime_checkable
class Streaming(Protocol):
    """A provider that can stream: the optional second method beside `LLM.chat`."""

    def stream(self, request: ChatRequest, on_token: Callable[[str], None]) -> ChatResult: ...


def stream_chat(
    llm: LLM, request: ChatRequest, on_token: Callable[[str], None] | None = None
) -> ChatResult:
    """Run `request`, calling `on_token` with each piece of text as it is generated.

    Providers that can stream implement `stream(request, on_token) -> ChatResult`; the rest
    get one call whose whole text is delivered as a single piece.
    """
    if on_token is not None and isinstance(llm, Streaming):
        return llm.stream(request, on_token)
    result = llm.chat(request)
    if on_token is not None and result.text:
        on_token(result.text)
    return result

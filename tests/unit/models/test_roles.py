"""A role records each call in the trace, with the prompt tokens the server had computed."""

from __future__ import annotations

from crag.models.llm import ChatRequest, ChatResult, RoleLLM, recording_calls


class _Cached:
    name, provider = "qwen2.5-coder-1.5b", "local"

    def chat(self, request: ChatRequest) -> ChatResult:
        return ChatResult("Paris [1].", prompt_tokens=540, completion_tokens=4, cached_tokens=316)


def test_a_call_records_its_cached_prompt_tokens() -> None:
    with recording_calls() as calls:
        request = ChatRequest.of("Answer.", "Where?", purpose="generate")
        RoleLLM("generator", _Cached()).chat(request)
    (call,) = calls
    assert (call.role, call.purpose, call.provider) == ("generator", "generate", "local")
    assert (call.prompt_tokens, call.cached_tokens, call.completion_tokens) == (540, 316, 4)

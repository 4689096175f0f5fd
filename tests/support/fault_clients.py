"""Provider clients pointed at the misbehaving test server (tests/servers/faulty.py): few
retries and a short timeout, so a fault test fails in seconds, never hangs."""

from __future__ import annotations

from crag.models.llm import OllamaLLM, OpenAICompatLLM

__all__ = ["ollama_client", "openai_client"]


def openai_client(url: str, **kw) -> OpenAICompatLLM:
    kw.setdefault("max_retries", 2)
    kw.setdefault("timeout", 5.0)
    return OpenAICompatLLM("tiny", base_url=url + "/v1", **kw)


def ollama_client(url: str, **kw) -> OllamaLLM:
    kw.setdefault("max_retries", 2)
    kw.setdefault("timeout", 5.0)
    return OllamaLLM("tiny:1b", base_url=url, **kw)

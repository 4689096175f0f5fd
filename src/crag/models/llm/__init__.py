"""Language models: the `LLM` protocol, providers (local llama.cpp, Ollama, OpenAI-compatible),
their registry, roles and call records, and tolerant reading of structured replies."""

from crag.models.llm.base import LLM, ChatRequest, ChatResult, Health, Message, stream_chat
from crag.models.llm.llamacpp import LlamaCppLLM
from crag.models.llm.ollama import OllamaLLM
from crag.models.llm.openai import OpenAICompatLLM
from crag.models.llm.packaged import PACKAGED_MODELS, resolve_gguf
from crag.models.llm.registry import create, parse_spec, provider_names, providers, register
from crag.models.llm.roles import (
    RoleLLM,
    add_note,
    parallel_map,
    recording_calls,
    recording_notes,
)
from crag.models.llm.structured import extract_json, parse_judgement

__all__ = [
    "LLM",
    "PACKAGED_MODELS",
    "ChatRequest",
    "ChatResult",
    "Health",
    "LlamaCppLLM",
    "Message",
    "OllamaLLM",
    "OpenAICompatLLM",
    "RoleLLM",
    "add_note",
    "create",
    "extract_json",
    "parallel_map",
    "parse_judgement",
    "parse_spec",
    "provider_names",
    "providers",
    "recording_calls",
    "recording_notes",
    "register",
    "resolve_gguf",
    "stream_chat",
]

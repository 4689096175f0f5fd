"""Language models: the `LLM` protocol, the local llama.cpp runtime, roles and call records."""

from crag.models.llm.base import LLM, ChatRequest, ChatResult, Message, stream_chat
from crag.models.llm.llamacpp import LlamaCppLLM
from crag.models.llm.packaged import PACKAGED_MODELS, resolve_gguf
from crag.models.llm.roles import RoleLLM, parallel_map, recording_calls

__all__ = [
    "LLM",
    "PACKAGED_MODELS",
    "ChatRequest",
    "ChatResult",
    "LlamaCppLLM",
    "Message",
    "RoleLLM",
    "parallel_map",
    "recording_calls",
    "resolve_gguf",
    "stream_chat",
]

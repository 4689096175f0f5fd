"""The provider names crag knows, their defaults, and how a `provider:model` spec is read.

A leaf (it imports only `crag.errors`): settings validate a role's provider against this table
without importing any model code. The factories that build an `LLM` for a name live in
`crag.models.llm.registry`, whose `register` adds a name here as well, so a plugin provider is
one `@register("name")` and config validation, `crag models` and `make_llm` all see it.

Built in: `local` (the packaged GGUF in-process), `ollama` (native API) and `openai` (any
OpenAI-compatible server), plus presets of `openai` that only fill in a base URL and key
variable: `groq`, `together`, `gemini`, `openrouter`, `lmstudio`, `vllm`, `llamacpp`.
"""

from __future__ import annotations

from dataclasses import dataclass

from crag.errors import ConfigError

__all__ = ["Provider", "declare", "parse_spec", "provider_names", "providers"]


@dataclass(frozen=True, slots=True)
class Provider:
    name: str
    description: str
    base_url: str | None = None  # default when the role sets none
    key_env: str | None = None  # default variable holding the key
    api: str = "openai"  # which factory builds it: "local", "ollama", "openai", or its own name


_PROVIDERS: dict[str, Provider] = {}


def declare(provider: Provider) -> None:
    """Add (or replace) a provider name; lower case, no colon."""
    name = provider.name
    if not name or ":" in name or name != name.lower():
        raise ValueError(f"provider name must be lower case without ':', got {name!r}")
    _PROVIDERS[name] = provider


def providers() -> dict[str, Provider]:
    return dict(_PROVIDERS)


def provider_names() -> list[str]:
    return sorted(_PROVIDERS)


def parse_spec(spec: str) -> tuple[str, str]:
    """`"ollama:gemma3:27b"` → `("ollama", "gemma3:27b")`; `"qwen2.5-coder-0.5b"` → local.

    The model may itself contain colons; a spec without a known provider prefix is a local
    model (a packaged name or a path)."""
    spec = spec.strip()
    head, sep, rest = spec.partition(":")
    if sep and head.lower() in _PROVIDERS:
        if not rest.strip():
            raise ConfigError(f"{spec!r}: no model after '{head}:'; write {head}:MODEL")
        return head.lower(), rest.strip()
    if sep and "/" not in head and "\\" not in head and len(head) > 1:
        raise ConfigError(
            f"{spec!r}: unknown provider {head!r}; use one of {', '.join(provider_names())} "
            "as PROVIDER:MODEL (e.g. ollama:gemma3:27b)"
        )
    if not spec:
        raise ConfigError("empty model spec; write PROVIDER:MODEL, e.g. local:qwen2.5-coder-0.5b")
    return "local", spec  # a packaged name or a path (C:\\ on Windows has a 1-letter head)


for _builtin in (
    Provider("local", "packaged or .gguf model, in-process llama.cpp (xllamacpp)", api="local"),
    Provider(
        "ollama", "Ollama's native API (/api/chat)", "http://127.0.0.1:11434", api="ollama"
    ),
    # openai: the key is chosen by host (OPENAI_API_KEY only for api.openai.com, see
    # crag.models.llm.openai.key_env_for)
    Provider(
        "openai", "any OpenAI-compatible /chat/completions (set base_url)",
        "https://api.openai.com/v1",
    ),
    Provider("groq", "Groq (OpenAI API)", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    Provider("together", "Together AI", "https://api.together.xyz/v1", "TOGETHER_API_KEY"),
    Provider(
        "gemini", "Google Gemini (OpenAI-compatible endpoint)",
        "https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY",
    ),
    Provider("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    Provider("lmstudio", "LM Studio's local server", "http://127.0.0.1:1234/v1"),
    Provider("vllm", "a vLLM server (vllm serve)", "http://127.0.0.1:8000/v1"),
    Provider("llamacpp", "llama.cpp's llama-server", "http://127.0.0.1:8080/v1"),
):  # fmt: skip
    declare(_builtin)

"""The provider registry: a name → a factory that builds an `LLM` from a role's settings.

As in simonw/llm, a provider is a registered name, so adding one (a plugin, a test double, a
hosted API with its own defaults) is `@register("name")` on a factory and no edit elsewhere;
config validation, `crag models` and `make_llm` all read this table. The built-ins are
`local` (the packaged GGUF in-process), `ollama` (native API) and `openai` (any
OpenAI-compatible server), plus presets of `openai` that only fill in a base URL and key
variable: `groq`, `together`, `gemini`, `openrouter`, `lmstudio`, `vllm`, `llamacpp`.

A role is chosen by a spec string `provider:model`, where the model may itself contain
colons (`ollama:gemma3:27b`); a spec without a known provider prefix is a local model.
Factories import their provider module when called, so importing this table stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from crag.errors import ConfigError
from crag.models.llm.base import LLM

__all__ = [
    "Provider",
    "RoleSpec",
    "create",
    "parse_spec",
    "provider_names",
    "providers",
    "register",
]


class RoleSpec(Protocol):
    """What a factory reads from a role's settings (`crag.config.LLMRoleSettings`)."""

    provider: str
    model: str
    base_url: str | None
    api_key_env: str | None
    timeout: float
    max_retries: int
    keep_alive: str | None
    logprobs: bool | None
    options: dict[str, Any]
    ctx_per_slot: int
    parallel: int
    threads: int | None


Factory = Callable[[RoleSpec, Path], LLM]


@dataclass(frozen=True, slots=True)
class Provider:
    name: str
    factory: Factory
    description: str
    base_url: str | None = None  # default when the role sets none
    key_env: str | None = None  # default variable holding the key


_PROVIDERS: dict[str, Provider] = {}


def register(
    name: str, *, description: str, base_url: str | None = None, key_env: str | None = None
) -> Callable[[Factory], Factory]:
    """Register `factory` under `name` (lower case, no colon); a later call replaces it."""
    if not name or ":" in name or name != name.lower():
        raise ValueError(f"provider name must be lower case without ':', got {name!r}")

    def decorate(factory: Factory) -> Factory:
        _PROVIDERS[name] = Provider(name, factory, description, base_url, key_env)
        return factory

    return decorate


def providers() -> dict[str, Provider]:
    return dict(_PROVIDERS)


def provider_names() -> list[str]:
    return sorted(_PROVIDERS)


def parse_spec(spec: str) -> tuple[str, str]:
    """`"ollama:gemma3:27b"` → `("ollama", "gemma3:27b")`; `"qwen2.5-coder-0.5b"` → local."""
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


def create(role: RoleSpec, models_dir: Path) -> LLM:
    """The LLM for a role's settings."""
    provider = _PROVIDERS.get(role.provider)
    if provider is None:
        raise ConfigError(
            f"llm provider {role.provider!r} is not registered; use one of "
            f"{', '.join(provider_names())}"
        )
    return provider.factory(role, models_dir)


# -- built-in providers ---------------------------------------------------------------------


@register("local", description="packaged or .gguf model, in-process llama.cpp (xllamacpp)")
def _local(role: RoleSpec, models_dir: Path) -> LLM:
    from crag.models.llm.llamacpp import LlamaCppLLM

    return LlamaCppLLM(
        role.model,
        models_dir=models_dir,
        ctx_per_slot=role.ctx_per_slot,
        parallel=role.parallel,
        threads=role.threads,
    )


@register(
    "ollama", description="Ollama's native API (/api/chat)", base_url="http://127.0.0.1:11434"
)
def _ollama(role: RoleSpec, models_dir: Path) -> LLM:
    from crag.models.llm.ollama import OllamaLLM

    return OllamaLLM(
        role.model,
        base_url=role.base_url,  # None: $OLLAMA_HOST, else the default above
        timeout=role.timeout,
        max_retries=role.max_retries,
        keep_alive=role.keep_alive,
        logprobs=role.logprobs,
        options=role.options,
        api_key_env=role.api_key_env,
    )


def _openai_preset(name: str, base_url: str, key_env: str | None, description: str) -> None:
    @register(name, description=description, base_url=base_url, key_env=key_env)
    def factory(role: RoleSpec, models_dir: Path) -> LLM:
        from crag.models.llm.openai import OpenAICompatLLM

        return OpenAICompatLLM(
            role.model,
            base_url=role.base_url or base_url,
            api_key_env=role.api_key_env or key_env,
            timeout=role.timeout,
            max_retries=role.max_retries,
            logprobs=role.logprobs,
            extra_body=role.options,
            provider=name,
        )


_openai_preset(
    "openai",
    "https://api.openai.com/v1",
    None,  # chosen by host: OPENAI_API_KEY only for api.openai.com (see openai.key_env_for)
    "any OpenAI-compatible /chat/completions (set base_url)",
)
_openai_preset("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", "Groq (OpenAI API)")
_openai_preset("together", "https://api.together.xyz/v1", "TOGETHER_API_KEY", "Together AI")
_openai_preset(
    "gemini",
    "https://generativelanguage.googleapis.com/v1beta/openai",
    "GEMINI_API_KEY",
    "Google Gemini (OpenAI-compatible endpoint)",
)
_openai_preset("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", "OpenRouter")
_openai_preset("lmstudio", "http://127.0.0.1:1234/v1", None, "LM Studio's local server")
_openai_preset("vllm", "http://127.0.0.1:8000/v1", None, "a vLLM server (vllm serve)")
_openai_preset("llamacpp", "http://127.0.0.1:8080/v1", None, "llama.cpp's llama-server")

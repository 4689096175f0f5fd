"""The provider registry: a name → a factory that builds an `LLM` from a role's settings.

As in simonw/llm, a provider is a registered name, so adding one (a plugin, a test double, a
hosted API with its own defaults) is `@register("name")` on a factory and no edit elsewhere;
config validation, `crag models` and `make_llm` all read the names. The names and their
defaults live in the leaf `crag.providers` (so settings validate without importing model
code); this module holds the factories: one per API (`local`, `ollama`, `openai`, the last
serving every OpenAI-compatible preset) plus any registered by name.

A role is chosen by a spec string `provider:model` (`crag.providers.parse_spec`).
Factories import their provider module when called, so importing this table stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from crag.errors import ConfigError
from crag.models.llm.base import LLM
from crag.providers import Provider, declare, parse_spec, provider_names, providers

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

_BY_NAME: dict[str, Factory] = {}  # registered with `register`
_BY_API: dict[str, Factory] = {}  # the built-ins, by `Provider.api`


def register(
    name: str, *, description: str, base_url: str | None = None, key_env: str | None = None
) -> Callable[[Factory], Factory]:
    """Register `factory` under `name` (lower case, no colon); a later call replaces it."""
    provider = Provider(name, description, base_url, key_env, api=name)
    if not name or ":" in name or name != name.lower():
        raise ValueError(f"provider name must be lower case without ':', got {name!r}")

    def decorate(factory: Factory) -> Factory:
        declare(provider)
        _BY_NAME[name] = factory
        return factory

    return decorate


def create(role: RoleSpec, models_dir: Path) -> LLM:
    """The LLM for a role's settings."""
    provider = providers().get(role.provider)
    factory = None
    if provider is not None:
        factory = _BY_NAME.get(provider.name) or _BY_API.get(provider.api)
    if factory is None:
        raise ConfigError(
            f"llm provider {role.provider!r} is not registered; use one of "
            f"{', '.join(provider_names())}"
        )
    return factory(role, models_dir)


# -- built-in providers ---------------------------------------------------------------------


def _local(role: RoleSpec, models_dir: Path) -> LLM:
    from crag.models.llm.llamacpp import LlamaCppLLM

    return LlamaCppLLM(
        role.model,
        models_dir=models_dir,
        ctx_per_slot=role.ctx_per_slot,
        parallel=role.parallel,
        threads=role.threads,
    )


def _ollama(role: RoleSpec, models_dir: Path) -> LLM:
    from crag.models.llm.ollama import OllamaLLM

    return OllamaLLM(
        role.model,
        base_url=role.base_url,  # None: $OLLAMA_HOST, else Ollama's default port
        timeout=role.timeout,
        max_retries=role.max_retries,
        keep_alive=role.keep_alive,
        logprobs=role.logprobs,
        options=role.options,
        api_key_env=role.api_key_env,
    )


def _openai(role: RoleSpec, models_dir: Path) -> LLM:
    """Any OpenAI-compatible server; a preset fills in its base URL and key variable."""
    from crag.models.llm.openai import OpenAICompatLLM

    preset = providers()[role.provider]
    return OpenAICompatLLM(
        role.model,
        base_url=role.base_url or preset.base_url or "",
        api_key_env=role.api_key_env or preset.key_env,
        timeout=role.timeout,
        max_retries=role.max_retries,
        logprobs=role.logprobs,
        extra_body=role.options,
        provider=preset.name,
    )


_BY_API.update(local=_local, ollama=_ollama, openai=_openai)

"""Settings of the language models: one section per role (grader, generator, reflector)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ROLES = ("grader", "generator", "reflector")


class LLMRoleSettings(BaseModel):
    """Which model plays a role, and how to reach it.

    Also accepts a spec string, `"PROVIDER:MODEL"` (`"ollama:gemma3:27b"`), wherever a role
    is set: in crag.toml (`generator = "ollama:gemma3:27b"`) or `CRAG_GENERATOR=...`.
    API keys are never settings: `api_key_env` names the environment variable that holds one.
    """

    provider: str = Field(
        "local",
        description=(
            "'local' (packaged GGUF, in-process llama.cpp), 'ollama', 'openai' (any "
            "OpenAI-compatible server), or a preset: groq, together, gemini, openrouter, "
            "lmstudio, vllm, llamacpp. `crag models` lists them."
        ),
    )
    model: str = Field(
        "qwen2.5-coder-0.5b",
        description=(
            "local: packaged 'qwen2.5-coder-0.5b' / 'qwen2.5-coder-1.5b' or a .gguf path; "
            "otherwise the provider's model name (gemma3:27b, gpt-4o-mini, ...)."
        ),
    )
    base_url: str | None = Field(
        None, description="Server URL; default per provider (Ollama: $OLLAMA_HOST or :11434)."
    )
    api_key_env: str | None = Field(
        None,
        description=(
            "Name of the environment variable holding the API key (default per provider/host: "
            "OPENAI_API_KEY for api.openai.com, GROQ_API_KEY for groq, ...)."
        ),
    )
    timeout: float = Field(120.0, gt=0, description="Seconds to wait for a reply (per request).")
    max_retries: int = Field(
        2, ge=0, le=10, description="Retries after connection errors, timeouts, 429 and 5xx."
    )
    keep_alive: str | None = Field(
        None, description="Ollama: how long the model stays loaded ('5m', '1h', '-1')."
    )
    logprobs: bool | None = Field(
        None,
        description=(
            "Ask for log-probabilities (judge scores); default: ask, and fall back to "
            "structured yes/no replies when the server returns none. false: never ask."
        ),
    )
    options: dict[str, Any] = Field(
        default_factory=dict,
        description=(
            "Extra request fields: Ollama `options` (e.g. num_ctx); for OpenAI-compatible "
            "servers, extra top-level body fields."
        ),
    )
    ctx_per_slot: int = Field(4096, ge=512, description="local: context tokens per slot.")
    parallel: int = Field(2, ge=1, le=16, description="local: requests llama.cpp batches.")
    threads: int | None = Field(None, ge=1, description="local: CPU threads; default all.")

    @model_validator(mode="before")
    @classmethod
    def _spec_string(cls, value: Any) -> Any:
        return _spec_dict(value) if isinstance(value, str) else value

    @field_validator("provider")
    @classmethod
    def _registered(cls, value: str) -> str:
        from crag.providers import provider_names

        value = value.strip().lower()
        if value not in provider_names():
            raise ValueError(
                f"unknown provider {value!r}; use one of {', '.join(provider_names())}"
            )
        return value

    @field_validator("api_key_env")
    @classmethod
    def _a_name_not_a_key(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.match(value):
            # never echo the value: it may be the key itself, pasted in the wrong place
            raise ValueError(
                "must be the NAME of an environment variable (like GROQ_API_KEY), not a key; "
                "put the key in that variable"
            )
        return value


_ROLE_DEFAULTS: dict[str, dict[str, Any]] = {
    "grader": {},
    # Two slots: the reader and the verifier take turns on the generator's model, and
    # llama.cpp gives each request the idle slot whose cached prompt it shares most of, so the
    # verifier's instructions stay computed (one slot: 4 of ~150 prompt tokens found cached,
    # 1.7 s a verification on 2 cores; two: 27, 1.4 s). About 115 MB more KV cache.
    "generator": {"model": "qwen2.5-coder-1.5b", "parallel": 2},
}


def _spec_dict(value: str) -> dict[str, str]:
    """'provider:model' (or a bare model name) as the role's fields."""
    from crag.errors import ConfigError
    from crag.providers import parse_spec

    try:
        provider, model = parse_spec(value)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    return {"provider": provider, "model": model}


def _generator_default() -> LLMRoleSettings:
    return LLMRoleSettings(**_ROLE_DEFAULTS["generator"])


class LLMSettings(BaseModel):
    """Roles, as in the seed's dual-model design: a fast grader and a strong generator.

    Defaults: the 0.5B model grades (one token per passage, speed matters most), the 1.5B model
    writes the answer — the 0.5B model does not follow the cite-or-refuse instructions (it
    answered NOT_FOUND to every question in our checks), the 1.5B model does. The
    `reflector` (Self-RAG checks) uses the generator's model unless set.
    """

    grader: LLMRoleSettings = Field(default_factory=LLMRoleSettings)
    generator: LLMRoleSettings = Field(default_factory=_generator_default)
    reflector: LLMRoleSettings | None = Field(
        None, description="Self-RAG reflection; default: the generator's model."
    )
    models_dir: Path | None = Field(
        None, description="Where packaged GGUF files are assembled; default <data_dir>/models."
    )

    @model_validator(mode="before")
    @classmethod
    def _role_defaults(cls, value: Any) -> Any:
        """A role given in part (`CRAG_LLM__GENERATOR__MODEL=...`) keeps its role's defaults
        for the fields not given, e.g. the generator's model."""
        if isinstance(value, dict):
            value = dict(value)
            for role, defaults in _ROLE_DEFAULTS.items():
                given = value.get(role)
                if isinstance(given, str):
                    given = _spec_dict(given)
                if isinstance(given, dict):
                    value[role] = {**defaults, **given}
        return value

    def role(self, name: str) -> LLMRoleSettings:
        """Settings of a role by name; the reflector falls back to the generator."""
        if name == "reflector":
            return self.reflector or self.generator
        if name == "grader":
            return self.grader
        if name == "generator":
            return self.generator
        raise ValueError(f"unknown role {name!r}; roles are {', '.join(ROLES)}")

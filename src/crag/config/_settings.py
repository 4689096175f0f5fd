"""The whole of crag's settings and how they are loaded: defaults, `crag.toml`, `CRAG_*`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from crag.config._generate import GenerateSettings
from crag.config._index import (
    EmbeddingSettings,
    IndexSettings,
    IngestSettings,
    KeywordSettings,
    RerankSettings,
    RetrievalSettings,
)
from crag.config._llm import ROLES, LLMSettings
from crag.config._stages import (
    EvaluateSettings,
    PipelineSettings,
    RefineSettings,
    WebSettings,
)


def default_data_dir() -> Path:
    """`$XDG_DATA_HOME/crag` (usually `~/.local/share/crag`): one index per user, any cwd."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "crag"


class _RoleShortcuts(PydanticBaseSettingsSource):
    """`CRAG_GRADER=local:qwen2.5-coder-0.5b`, `CRAG_GENERATOR=ollama:gemma3:27b`, ...

    One variable per role, PROVIDER:MODEL. It sets provider and model only, below the nested
    variables (`CRAG_LLM__GENERATOR__BASE_URL`, which add to it) and above crag.toml.
    """

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        from crag.errors import ConfigError
        from crag.providers import parse_spec

        roles: dict[str, Any] = {}
        for role in ROLES:
            name = f"CRAG_{role.upper()}"
            spec = os.environ.get(name)
            if spec:
                try:
                    provider, model = parse_spec(spec)
                except ConfigError as exc:
                    raise ConfigError(f"{name}: {exc}") from None
                roles[role] = {"provider": provider, "model": model}
        return {"llm": roles} if roles else {}


class ServerSettings(BaseModel):
    """`crag serve`. API keys are not here: they come only from `CRAG_API_KEYS` (a secret)."""

    host: str = Field("127.0.0.1", description="Address to bind; beyond loopback needs API keys.")
    port: int = Field(8000, ge=0, le=65535)
    allow_unauthenticated: bool = Field(
        False, description="Serve beyond loopback without API keys (only behind your own auth)."
    )
    max_concurrent: int = Field(
        1, ge=1, le=64, description="Questions answered at once: they share the local models."
    )
    max_queue: int = Field(
        8, ge=0, description="Questions waiting for a slot; beyond that: 503 + Retry-After."
    )
    queue_timeout_s: float = Field(
        120.0, gt=0, description="A question waiting longer than this gets 503 + Retry-After."
    )
    max_body_kb: int = Field(256, ge=1, description="Largest JSON request body.")
    max_upload_mb: float = Field(64.0, gt=0, description="Largest document upload request.")
    max_question_chars: int = Field(4000, ge=1, description="Longest question accepted.")
    max_jobs: int = Field(16, ge=1, description="Ingestion jobs waiting; beyond that: 503.")
    job_timeout_s: float = Field(
        3600.0, gt=0, description="An ingestion job running longer than this is stopped."
    )
    lock_wait_s: float = Field(
        900.0,
        ge=0,
        description=(
            "How long a job waits for the collection's writer lock (held by `crag ingest`) "
            "before it fails."
        ),
    )
    docs: bool = Field(
        True, description="Serve the API documentation: /docs, /redoc and /openapi.json."
    )
    warmup: bool = Field(
        True,
        description=(
            "Load the models before the port opens; off: on the first question, which then "
            "stalls every request while a model loads (llama.cpp holds the GIL to load)."
        ),
    )


class Settings(BaseSettings):
    """All of crag's settings. Every field has a default, so an empty config runs offline."""

    model_config = SettingsConfigDict(
        env_prefix="CRAG_",
        env_nested_delimiter="__",
        extra="forbid",
        validate_default=True,
    )

    data_dir: Path = Field(default_factory=default_data_dir)
    collection: str = Field("default", pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,60}$")
    chroma_url: str | None = Field(
        None, description="http://host:port of a `chroma run` server; unset = embedded store."
    )
    index: IndexSettings = Field(default_factory=IndexSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    keyword: KeywordSettings = Field(default_factory=KeywordSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    rerank: RerankSettings = Field(default_factory=RerankSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    evaluate: EvaluateSettings = Field(default_factory=EvaluateSettings)
    refine: RefineSettings = Field(default_factory=RefineSettings)
    generate: GenerateSettings = Field(default_factory=GenerateSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    pipeline: PipelineSettings = Field(default_factory=PipelineSettings)

    server: ServerSettings = Field(default_factory=ServerSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_path = Path(os.environ.get("CRAG_CONFIG", "crag.toml"))
        return (
            init_settings,
            env_settings,
            _RoleShortcuts(settings_cls),
            TomlConfigSettingsSource(settings_cls, toml_file=toml_path),
        )


def load_settings(**overrides: Any) -> Settings:
    """Build settings, turning pydantic's validation error into a `ConfigError` naming the field."""
    from pydantic import ValidationError

    from crag.errors import ConfigError

    try:
        return Settings(**overrides)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"invalid configuration: {problems}") from exc

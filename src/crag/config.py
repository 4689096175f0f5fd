"""Settings: defaults here, overridden by `crag.toml`, overridden by `CRAG_*` environment variables.

Nested sections use a double underscore in the environment: `CRAG_RETRIEVAL__TOP_K=10`.
The file is `./crag.toml`, or the path in `CRAG_CONFIG`. Secrets (API keys) are never read
from the file, only from the environment, by the components that need them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from crag.modes import Mode, describe_modes

__all__ = [
    "EmbeddingSettings",
    "EvaluateSettings",
    "GenerateSettings",
    "IndexSettings",
    "IngestSettings",
    "KeywordSettings",
    "LLMRoleSettings",
    "LLMSettings",
    "PipelineSettings",
    "RefineSettings",
    "RerankSettings",
    "RetrievalSettings",
    "ServerSettings",
    "Settings",
    "WebSettings",
    "default_data_dir",
    "load_settings",
]


def default_data_dir() -> Path:
    """`$XDG_DATA_HOME/crag` (usually `~/.local/share/crag`): one index per user, any cwd."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "crag"


class IngestSettings(BaseModel):
    chunk_size: int = Field(500, ge=50, description="Max characters per chunk (seed: 500).")
    chunk_overlap: int = Field(50, ge=0, description="Characters shared by neighbouring chunks.")
    max_file_mb: float = Field(200.0, gt=0, description="Larger files are skipped with a reason.")
    detect_encoding: bool = Field(
        True, description="Decode non-UTF-8 text by detection (with a warning) instead of skipping."
    )
    batch_chunks: int = Field(512, ge=1, description="Chunks embedded and written per commit.")
    encoding: str | None = Field(
        None,
        description=(
            "Force one text encoding for every source (e.g. 'latin-1', 'cp1254') instead of "
            "UTF-8 and detection; undecodable bytes are then an error."
        ),
    )

    @field_validator("encoding")
    @classmethod
    def _known_encoding(cls, value: str | None) -> str | None:
        if not value:
            return None
        import codecs

        try:
            return codecs.lookup(value).name
        except LookupError:
            raise ValueError(f"unknown encoding {value!r}") from None

    @model_validator(mode="after")
    def _overlap_below_size(self) -> IngestSettings:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError("ingest.chunk_overlap must be smaller than ingest.chunk_size")
        return self


class EmbeddingSettings(BaseModel):
    model: str = Field(
        "all-MiniLM-L6-v2",
        description=(
            "'all-MiniLM-L6-v2' (packaged, default), 'use-multilingual' (packaged, 16 languages "
            "incl. Turkish), or any sentence-transformers model name or local path."
        ),
    )
    batch_size: int = Field(64, ge=1)
    device: str = Field("cpu", description="torch device for sentence-transformers models.")


class KeywordSettings(BaseModel):
    language: str = Field(
        "english",
        description="Snowball stemmer for BM25 ('english', 'turkish', ... or 'none').",
    )

    @field_validator("language")
    @classmethod
    def _known_language(cls, value: str) -> str:
        import snowballstemmer

        value = value.lower()
        if value != "none" and value not in snowballstemmer.algorithms():
            raise ValueError(
                f"keyword.language={value!r} is not a snowball language; "
                f"use 'none' or one of {sorted(snowballstemmer.algorithms())}"
            )
        return value


class IndexSettings(BaseModel):
    """Where the index lives: embedded (SQLite + Chroma under `data_dir`, the default) or one
    PostgreSQL database that every replica shares (catalog, keyword index, vectors, jobs)."""

    url: str | None = Field(
        None,
        description=(
            "postgresql://user@host:port/db to keep the index (and the server's jobs) in "
            "PostgreSQL with pgvector; unset = embedded. Put the password in PGPASSWORD or "
            "~/.pgpass, not here."
        ),
    )
    db_schema: str = Field(
        "crag",
        pattern=r"^[a-z_][a-z0-9_]{0,62}$",
        description="PostgreSQL schema holding this deployment's collections (one per set).",
    )
    pool_size: int = Field(4, ge=1, le=64, description="Connections per open collection.")

    @field_validator("url")
    @classmethod
    def _postgres_url(cls, value: str | None) -> str | None:
        if value and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError("index.url must start with postgresql:// (or be unset)")
        return value or None


class RetrievalSettings(BaseModel):
    top_k: int = Field(20, ge=1, description="Candidates returned by hybrid retrieval (seed: 20).")
    mode: Literal["bm25", "dense", "hybrid"] = "hybrid"
    fusion: Literal["rrf", "weighted"] = Field(
        "weighted",
        description=(
            "Min-max normalised weighted scores (default: higher recall@5 than RRF on SQuAD and "
            "NQ in bench/retrieval.py), or reciprocal rank fusion."
        ),
    )
    bm25_weight: float = Field(0.5, ge=0)
    dense_weight: float = Field(0.5, ge=0)
    rrf_k: int = Field(60, ge=1, description="RRF constant (Cormack et al. 2009).")
    candidates: int = Field(50, ge=1, description="Hits taken from each retriever before fusion.")


# Chosen on the evaluator's "calibrate" questions (python -m bench.retrieval --part calibrate
# --rerank-weights ...): crag-evaluator learned "holds the answer", not "is about the question",
# and alone it lowers recall@5; blended with the fused score it raises it. See the README.
WEIGHT_DEFAULT = 0.7


class RerankSettings(BaseModel):
    model: str | None = Field(
        "crag-evaluator",
        description=(
            "Cross-encoder: the packaged, trained 'crag-evaluator' (default; with evaluate.method "
            "'evidence' or 'cross-encoder' one model serves both stages), a model folder or hub "
            "name; none = keep the fused order."
        ),
    )
    top_k: int = Field(5, ge=1, description="Chunks kept after reranking (seed: 5).")
    weight: float = Field(
        WEIGHT_DEFAULT,
        ge=0,
        le=1,
        description=(
            "Share of the reranker's score in the final order; the rest is the fused retrieval "
            "score, min-max normalised over the candidates (1 = reranker alone)."
        ),
    )


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
    "generator": {"model": "qwen2.5-coder-1.5b", "parallel": 1},
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
        for the fields not given, e.g. the generator's single llama.cpp slot."""
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


class Thresholds(BaseModel):
    upper: float = Field(ge=0, le=1)
    lower: float = Field(ge=0, le=1)

    @model_validator(mode="after")
    def _ordered(self) -> Thresholds:
        if self.lower > self.upper:
            raise ValueError("lower must not exceed upper")
        return self


class EvaluateSettings(BaseModel):
    method: Literal["evidence", "cross-encoder", "llm"] = Field(
        "evidence",
        description=(
            "'evidence' (default): the trained cross-encoder (evaluate.model) combined with the "
            "embedding cosine and the question's term overlap, calibrated on held-apart "
            "questions; 'cross-encoder': the trained evaluator alone; 'llm': the grader model's "
            "Yes/No log-probability judge (slow on a laptop CPU)."
        ),
    )
    model: str = Field(
        "crag-evaluator",
        description="Cross-encoder: packaged 'crag-evaluator', a trained model folder, a name.",
    )
    upper: float | None = Field(
        None,
        ge=0,
        le=1,
        description="CORRECT if any chunk scores >= upper; default: measured for the grader.",
    )
    lower: float | None = Field(
        None,
        ge=0,
        le=1,
        description="INCORRECT if every chunk scores < lower; default: measured for the grader.",
    )
    per_collection: dict[str, Thresholds] = Field(
        default_factory=dict, description="Thresholds for a named collection, overriding the above."
    )
    concurrency: int = Field(2, ge=1, description="Judge calls in flight per question.")

    @model_validator(mode="after")
    def _ordered(self) -> EvaluateSettings:
        if self.lower is not None and self.upper is not None and self.lower > self.upper:
            raise ValueError("evaluate.lower must not exceed evaluate.upper")
        return self


class RefineSettings(BaseModel):
    mode: Literal["selection", "excerption", "fixed_num"] = Field(
        "excerption", description="Strips: whole chunks, ~3-sentence excerpts, 50-word windows."
    )
    top_k: int = Field(5, ge=1, description="Strips kept.")
    floor: float | None = Field(
        None,
        ge=0,
        le=1,
        description="Minimum strip score kept; default: none for local strips (rank and score "
        "decide), evaluate.lower for web strips.",
    )
    keep_best_of: int = Field(
        2,
        ge=0,
        description="The best strip of this many leading chunks is kept whatever its score.",
    )
    excerpt_sentences: int = Field(3, ge=1, description="Sentences per excerption strip.")
    excerpt_chars: int = Field(600, ge=80, description="Longest excerption strip.")
    window_words: int = Field(50, ge=5)


class GenerateSettings(BaseModel):
    max_tokens: int = Field(320, ge=16, description="Longest answer, in tokens.")
    verify: bool = Field(
        True,
        description=(
            "When the evaluator is not sure, ask the generator's model whether the passage "
            "holding the answer states it (one short call); off: the passage's score decides."
        ),
    )
    verify_cut: float | None = Field(
        None,
        ge=0,
        le=1,
        description=(
            "P(yes) the verification must reach; default 0.5 (yes more likely than no). "
            "Stricter: 0.62 or 0.88 (the packaged 1.5B model's measured judge thresholds) "
            "refuse more near misses and more right answers (docs/benchmarks.md)."
        ),
    )
    read_alone: int = Field(
        1,
        ge=0,
        le=5,
        description=(
            "crag modes: also read the best N sources one at a time and answer with the "
            "candidate whose source ties it closest to the question (0: one reading)."
        ),
    )
    align_floor: float = Field(
        0.15,
        ge=0,
        le=1,
        description=(
            "crag modes: the least a reading of one source alone must tie its answer to the "
            "question (share of the question's words near the answer) to be used."
        ),
    )
    prefer_best: float = Field(
        0.05,
        ge=0,
        le=1,
        description=(
            "crag modes: the reading of the best-scored source alone also wins when it ties "
            "its answer within this much of an answer taken from another source."
        ),
    )
    last_look: bool = Field(
        True,
        description=(
            "crag modes: when every reading declines, one last look at the best source alone "
            "(its answer must still pass the alignment floor and the answer check)."
        ),
    )
    temperature: float = Field(0.0, ge=0, le=2)
    min_support: float = Field(
        0.5,
        ge=0,
        le=1,
        description=(
            "Drop answer sentences whose new content words are not mostly in the sources they "
            "cite (0 disables); an answer with no supported sentence becomes a refusal."
        ),
    )


class PipelineSettings(BaseModel):
    """Which graph answers by default, and Self-RAG's reflection bounds (`crag.reflect`)."""

    mode: Mode = Field(Mode.CRAG, description=describe_modes() + ".")
    reflect: Literal["auto", "always"] = Field(
        "auto",
        description=(
            "self-crag: 'auto' reflects only when the verdict was AMBIGUOUS, the generator "
            "refused despite trusted sources, or its confidence is low; 'always' on every answer."
        ),
    )
    max_regenerations: int = Field(
        2, ge=0, le=10, description="Regenerations of an answer found ungrounded."
    )
    max_steps: int = Field(
        6,
        ge=1,
        le=20,
        description="Hard bound on reflection rounds; reaching it returns the best answer so far, "
        "flagged 'step_limit'.",
    )
    min_confidence: float = Field(
        0.8, ge=0, le=1, description="reflect=auto: reflect when the generator's support is below."
    )
    grounded_threshold: float = Field(
        0.5, ge=0, le=1, description="A claim is supported when the reflector's P(yes) reaches it."
    )
    useful_threshold: float = Field(
        0.5, ge=0, le=1, description="An answer is useful when the reflector's P(yes) reaches it."
    )


class WebSettings(BaseModel):
    """Web search correction for the INCORRECT and AMBIGUOUS verdicts. Off by default (offline).

    API keys are never read from here: Tavily's comes from `TAVILY_API_KEY` in the environment.
    """

    provider: Literal["none", "tavily", "searxng", "duckduckgo"] = Field(
        "none", description="'none' (offline default), 'tavily', 'searxng' or 'duckduckgo'."
    )
    tavily_url: str = Field("https://api.tavily.com", description="Tavily API base URL.")
    searxng_url: str | None = Field(
        None, description="SearXNG instance base URL (CRAG_SEARXNG_URL works too)."
    )
    max_results: int = Field(5, ge=1, le=20, description="Search results asked for.")
    fetch_pages: int = Field(3, ge=0, le=10, description="Top result pages fetched and read.")
    prefer_wikipedia: bool = Field(
        False, description="Bias the query towards Wikipedia and read wikipedia.org pages first."
    )
    search_timeout: float = Field(10.0, gt=0, description="Seconds for one search request.")
    fetch_timeout: float = Field(8.0, gt=0, description="Seconds for one page, all hops included.")
    max_page_bytes: int = Field(1_000_000, ge=1024, description="Page bytes read at most.")
    max_redirects: int = Field(5, ge=0, le=20)
    max_strips: int = Field(
        24, ge=1, description="Web strips judged at most (a cheap word-overlap pre-filter first)."
    )
    top_k: int = Field(3, ge=1, description="Web strips kept for generation.")
    cache_ttl: float = Field(
        86400.0, ge=0, description="Seconds a (provider, query) result is reused; 0 = no cache."
    )
    rewrite: bool = Field(True, description="Let the grader turn the question into keywords.")
    allow_private_addresses: bool = Field(
        False,
        description=(
            "Fetch pages on private, loopback and link-local addresses (SSRF protection off). "
            "Only for local test servers."
        ),
    )
    user_agent: str = Field("crag/0.1 (+corrective RAG; page reader)")

    @model_validator(mode="after")
    def _searxng_from_env(self) -> WebSettings:
        if self.searxng_url is None and os.environ.get("CRAG_SEARXNG_URL"):
            self.searxng_url = os.environ["CRAG_SEARXNG_URL"]
        return self


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

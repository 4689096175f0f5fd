"""Settings: defaults here, overridden by `crag.toml`, overridden by `CRAG_*` environment variables.

Nested sections use a double underscore in the environment: `CRAG_RETRIEVAL__TOP_K=10`.
The file is `./crag.toml`, or the path in `CRAG_CONFIG`. Secrets (API keys) are never read
from the file, only from the environment, by the components that need them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

__all__ = [
    "EmbeddingSettings",
    "EvaluateSettings",
    "GenerateSettings",
    "IngestSettings",
    "KeywordSettings",
    "LLMRoleSettings",
    "LLMSettings",
    "RefineSettings",
    "RerankSettings",
    "RetrievalSettings",
    "ServerSettings",
    "Settings",
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


class RerankSettings(BaseModel):
    model: str | None = Field(
        None, description="sentence-transformers CrossEncoder name or path; none = pass-through."
    )
    top_k: int = Field(5, ge=1, description="Chunks kept after reranking (seed: 5).")


class LLMRoleSettings(BaseModel):
    provider: Literal["local"] = Field(
        "local", description="'local': a GGUF model run in-process by llama.cpp (xllamacpp)."
    )
    model: str = Field(
        "qwen2.5-coder-0.5b",
        description=(
            "Packaged 'qwen2.5-coder-0.5b' or 'qwen2.5-coder-1.5b', or a path to a .gguf file."
        ),
    )
    ctx_per_slot: int = Field(4096, ge=512, description="Context tokens per parallel slot.")
    parallel: int = Field(2, ge=1, le=16, description="Requests llama.cpp batches together.")
    threads: int | None = Field(None, ge=1, description="CPU threads; default: all cores.")


def _generator_default() -> LLMRoleSettings:
    return LLMRoleSettings(model="qwen2.5-coder-1.5b", parallel=1)


class LLMSettings(BaseModel):
    """Two roles, as in the seed's dual-model design: a fast grader and a strong generator.

    Defaults: the 0.5B model grades (one token per passage, speed matters most), the 1.5B model
    writes the answer — the 0.5B model does not follow the cite-or-refuse instructions (it
    answered NOT_FOUND to every question in our checks), the 1.5B model does.
    """

    grader: LLMRoleSettings = Field(default_factory=LLMRoleSettings)
    generator: LLMRoleSettings = Field(default_factory=_generator_default)
    models_dir: Path | None = Field(
        None, description="Where packaged GGUF files are assembled; default <data_dir>/models."
    )


class Thresholds(BaseModel):
    upper: float = Field(ge=0, le=1)
    lower: float = Field(ge=0, le=1)

    @model_validator(mode="after")
    def _ordered(self) -> Thresholds:
        if self.lower > self.upper:
            raise ValueError("lower must not exceed upper")
        return self


# (upper, lower) of the LLM judge per grader model, from `python -m bench.evaluator`: upper is
# the lowest score at which >= 80% of judged pairs are positives, lower the score 90% of
# positives reach (0.5B: 302 pairs, 1.5B: 201 pairs of SQuAD + NQ with hard negatives).
JUDGE_THRESHOLDS: dict[str, tuple[float, float]] = {
    "qwen2.5-coder-0.5b": (0.54, 0.23),
    "qwen2.5-coder-1.5b": (0.88, 0.62),
}
UNMEASURED_THRESHOLDS = (0.5, 0.25)  # any other judge: run bench/evaluator.py and set them


class EvaluateSettings(BaseModel):
    method: Literal["llm"] = Field("llm", description="'llm': Yes/No log-probability judge.")
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

    def thresholds(self, collection: str, grader_model: str) -> Thresholds:
        """Per-collection thresholds, else the configured ones, else those measured for the
        grader model by bench/evaluator.py (JUDGE_THRESHOLDS)."""
        if collection in self.per_collection:
            return self.per_collection[collection]
        upper, lower = JUDGE_THRESHOLDS.get(grader_model.lower(), UNMEASURED_THRESHOLDS)
        return Thresholds(
            upper=self.upper if self.upper is not None else upper,
            lower=self.lower if self.lower is not None else lower,
        )


class RefineSettings(BaseModel):
    mode: Literal["selection", "excerption", "fixed_num"] = Field(
        "excerption", description="Strips: whole chunks, ~3-sentence excerpts, 50-word windows."
    )
    top_k: int = Field(5, ge=1, description="Strips kept.")
    floor: float | None = Field(
        None, ge=0, le=1, description="Minimum strip score kept; default: evaluate.lower."
    )
    excerpt_sentences: int = Field(3, ge=1, description="Sentences per excerption strip.")
    excerpt_chars: int = Field(600, ge=80, description="Longest excerption strip.")
    window_words: int = Field(50, ge=5)


class GenerateSettings(BaseModel):
    max_tokens: int = Field(320, ge=16, description="Longest answer, in tokens.")
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
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    keyword: KeywordSettings = Field(default_factory=KeywordSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    rerank: RerankSettings = Field(default_factory=RerankSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    evaluate: EvaluateSettings = Field(default_factory=EvaluateSettings)
    refine: RefineSettings = Field(default_factory=RefineSettings)
    generate: GenerateSettings = Field(default_factory=GenerateSettings)
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
            TomlConfigSettingsSource(settings_cls, toml_file=toml_path),
        )


def load_settings(**overrides: object) -> Settings:
    """Build settings, turning pydantic's validation error into a `ConfigError` naming the field."""
    from pydantic import ValidationError

    from crag.errors import ConfigError

    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"invalid configuration: {problems}") from exc

"""Settings of what is indexed and how it is searched: ingest, embedding, keywords, the
store, retrieval and reranking."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator


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
    titles: bool = Field(
        True,
        description=(
            "Read each chunk with its document's title (reranker, strips, reader, verification; "
            "not the verdict) when the candidates come from documents with different titles."
        ),
    )


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

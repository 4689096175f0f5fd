"""crag: Corrective Retrieval-Augmented Generation over your own documents.

The public API is what `__all__` lists; everything else is private and may change
(`tests/unit/test_exports.py` keeps the two in step). A minimal run::

    from crag import Index, Ingestor, build_pipeline, load_settings

    settings = load_settings(collection="notes")
    index = Index.open(settings)
    Ingestor(index, settings.ingest).ingest(["docs/"])
    answer = build_pipeline(settings, index).ask("How do bees show where flowers are?")
    print(answer.text, answer.verdict, answer.trace.stages_ms)

The pipeline (`Pipeline`, `Components`, `build_pipeline`) loads on first use: importing it
pulls in LangGraph, which every `crag` command would otherwise pay for at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crag.config import Settings, load_settings
from crag.errors import (
    ConfigError,
    CragError,
    EmbeddingMismatchError,
    IndexCorruptError,
    LLMError,
    LoaderError,
    ModelLoadError,
    UnsupportedFileError,
    WebSearchError,
)
from crag.index.retriever import HybridRetriever
from crag.index.store import Index
from crag.ingest.chunking import Chunker
from crag.ingest.ingestor import Ingestor
from crag.ingest.report import IngestReport
from crag.models.embedder import Embedder, make_embedder
from crag.models.reranker import Reranker, make_reranker, rerank
from crag.modes import Mode
from crag.trace import Trace
from crag.types import Answer, Chunk, Citation, Document, ScoredChunk, Verdict

if TYPE_CHECKING:
    from crag.pipeline import Components, Pipeline, build_pipeline

__all__ = [
    "Answer",
    "Chunk",
    "Chunker",
    "Citation",
    "Components",
    "ConfigError",
    "CragError",
    "Document",
    "Embedder",
    "EmbeddingMismatchError",
    "HybridRetriever",
    "Index",
    "IndexCorruptError",
    "IngestReport",
    "Ingestor",
    "LLMError",
    "LoaderError",
    "Mode",
    "ModelLoadError",
    "Pipeline",
    "Reranker",
    "ScoredChunk",
    "Settings",
    "Trace",
    "UnsupportedFileError",
    "Verdict",
    "WebSearchError",
    "build_pipeline",
    "load_settings",
    "make_embedder",
    "make_reranker",
    "rerank",
]
__version__ = "0.1.0"

_LAZY = {
    "Components": "crag.pipeline",
    "Pipeline": "crag.pipeline",
    "build_pipeline": "crag.pipeline",
}


def __getattr__(name: str) -> Any:
    """The pipeline's names, imported when first asked for (PEP 562)."""
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'crag' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

"""crag: Corrective Retrieval-Augmented Generation over your own documents.

The public API is what `__all__` lists; everything else is private and may change.
"""

from crag.config import Settings, load_settings
from crag.errors import (
    ConfigError,
    CragError,
    EmbeddingMismatchError,
    IndexCorruptError,
    LoaderError,
    ModelLoadError,
    UnsupportedFileError,
)
from crag.index.retriever import HybridRetriever
from crag.index.store import Index
from crag.ingest.chunking import Chunker
from crag.ingest.ingestor import Ingestor, IngestReport
from crag.models.embedder import Embedder, make_embedder
from crag.models.reranker import Reranker, make_reranker, rerank
from crag.types import Chunk, Document, ScoredChunk

__all__ = [
    "Chunk",
    "Chunker",
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
    "LoaderError",
    "ModelLoadError",
    "Reranker",
    "ScoredChunk",
    "Settings",
    "UnsupportedFileError",
    "load_settings",
    "make_embedder",
    "make_reranker",
    "rerank",
]
__version__ = "0.1.0"

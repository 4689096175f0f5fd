"""Settings: defaults here, overridden by `crag.toml`, overridden by `CRAG_*` environment variables.

Nested sections use a double underscore in the environment: `CRAG_RETRIEVAL__TOP_K=10`.
The file is `./crag.toml`, or the path in `CRAG_CONFIG`. Secrets (API keys) are never read
from the file, only from the environment, by the components that need them.

One module per part of the flow: `_index` (ingest, embedding, keywords, store, retrieval,
rerank), `_llm` (the model roles), `_stages` (evaluate, refine, pipeline, web), `_generate`
(how the sources are read and the answer checked) and `_settings` (the whole, the server, and
loading).
"""

from __future__ import annotations

from crag.config._generate import GenerateSettings
from crag.config._index import (
    WEIGHT_DEFAULT,
    EmbeddingSettings,
    IndexSettings,
    IngestSettings,
    KeywordSettings,
    RerankSettings,
    RetrievalSettings,
)
from crag.config._llm import ROLES, LLMRoleSettings, LLMSettings
from crag.config._settings import ServerSettings, Settings, default_data_dir, load_settings
from crag.config._stages import (
    EvaluateSettings,
    PipelineSettings,
    RefineSettings,
    Thresholds,
    WebSettings,
)

__all__ = [
    "ROLES",
    "WEIGHT_DEFAULT",
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
    "Thresholds",
    "WebSettings",
    "default_data_dir",
    "load_settings",
]

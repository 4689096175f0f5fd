"""Index a dataset's knowledge base once and expose the two look-ups pair mining needs.

Pairs are mined from crag's own hybrid retrieval over the dataset, chunked by crag's own
chunker, so the evaluator is trained on the very chunks it will score. The index lives in a
work folder and is reused by later runs (ingestion skips unchanged files).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from crag.errors import LoaderError
from crag.types import Chunk

__all__ = ["DatasetIndex"]


class DatasetIndex:
    """A crag index over one knowledge-base file, opened in `work/<name>`."""

    def __init__(self, kb_file: Path, work: Path, name: str, **settings: Any) -> None:
        from crag.config import load_settings
        from crag.index.retriever import HybridRetriever
        from crag.index.store import Index
        from crag.ingest.ingestor import Ingestor

        self.settings = load_settings(data_dir=work, collection=name, **settings)
        self.index = Index.open(self.settings)
        report = Ingestor(self.index, self.settings.ingest).ingest([kb_file])
        if not report.ok:
            reasons = "; ".join(reason for _, reason in report.failed) or "nothing was indexed"
            raise LoaderError(str(kb_file), f"could not index it for pair mining: {reasons}")
        self.retriever = HybridRetriever(self.index, self.settings.retrieval)
        self._by_unit: dict[str, list[Chunk]] = defaultdict(list)
        for info in self.index.sources():
            for chunk in self.index.catalog.chunks_of(info.source):
                self._by_unit[chunk.doc_id].append(chunk)

    def search(self, question: str, k: int) -> list[Chunk]:
        return [h.chunk for h in self.retriever.search(question, k=k)]

    def gold_chunks(self, doc_id: str) -> list[Chunk]:
        return sorted(self._by_unit.get(doc_id, []), key=lambda c: c.position)

    def close(self) -> None:
        self.index.close()

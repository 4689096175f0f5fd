"""What `bench.retrieval` measures on one index: the ingest rate against the embedder's raw encode
rate (stages timed inside the ingest), recall@k / MRR and the latency of each retrieval mode,
and whether the hybrid rows meet their targets. Apart from the datasets (bench.retrieval_data)
and the tables (bench.retrieval_tables), so the measurement reads as one piece."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.common import console, percentile
from bench.retrieval_data import Question

__all__ = [
    "CUTOFFS",
    "MODES",
    "RERANKED",
    "TARGET_INGEST_RATIO",
    "TARGET_REINGEST_RATIO",
    "TARGET_SQUAD_HYBRID_R5",
    "WARMUP_TEXTS",
    "K",
    "check_targets",
    "first_gold_rank",
    "measure_ingest",
    "measure_retrieval",
    "stage_timer",
]

# (label, mode, fusion)
MODES: list[tuple[str, str, str | None]] = [
    ("bm25", "bm25", None),
    ("dense", "dense", None),
    ("hybrid+rrf", "hybrid", "rrf"),
    ("hybrid+weighted", "hybrid", "weighted"),
]
RERANKED = "hybrid+weighted+rerank"
K = 20
CUTOFFS = (1, 5, 20)
TARGET_INGEST_RATIO = 0.80
TARGET_REINGEST_RATIO = 0.05
TARGET_SQUAD_HYBRID_R5 = 0.95
WARMUP_TEXTS = [
    "warm up",
    "The quick brown fox jumps over the lazy dog. " * 8,
    "Normans were the people who in the 10th and 11th centuries gave their name to Normandy.",
] * 16


@contextmanager
def stage_timer(targets: dict[str, tuple[Any, str]]) -> Iterator[dict[str, float]]:
    """Time calls of `obj.method` for each stage by shadowing the method on that instance only;
    the instance attribute is removed afterwards. Overhead: one perf_counter pair per call."""
    spent = dict.fromkeys(targets, 0.0)
    patched = []
    for stage, (obj, method) in targets.items():
        original = getattr(obj, method)

        def timed(*a: Any, _f: Any = original, _s: str = stage, **kw: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return _f(*a, **kw)
            finally:
                spent[_s] += time.perf_counter() - t0

        setattr(obj, method, timed)
        patched.append((obj, method))
    try:
        yield spent
    finally:
        for obj, method in patched:
            delattr(obj, method)


def measure_ingest(index: Any, ingestor: Any, path: Path) -> dict[str, Any]:
    from crag.ingest.ingestor import source_key

    t0 = time.perf_counter()
    index.embedder.embed(["warm up"])  # loads the model
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    index.embedder.embed(WARMUP_TEXTS)  # first real batch: kernel/allocator warm-up
    warm_s = time.perf_counter() - t0

    stages = {
        "embed": (index.embedder, "embed"),
        "keyword_catalog_write": (index.catalog, "replace_source"),
        "vector_upsert": (index.vectors, "upsert"),
    }
    cpu0 = time.process_time()
    with stage_timer(stages) as spent:
        first = ingestor.ingest([path])
    ingest_cpu = time.process_time() - cpu0
    spent["other"] = first.seconds - sum(spent.values())
    if not first.ok:
        raise SystemExit(f"ingest of {path} failed: {first.failed}")
    texts = [c.text for c in index.catalog.chunks_of(source_key(path))]
    if len(texts) != first.chunks:
        console.print(
            f"[yellow]warning: catalog holds {len(texts)} chunks for {path}, "
            f"ingest reported {first.chunks}[/yellow]"
        )
    cpu0, t0 = time.process_time(), time.perf_counter()
    vectors = index.embedder.embed(texts)
    raw_s = time.perf_counter() - t0
    raw_cpu = time.process_time() - cpu0
    # Diagnostic: the same texts in the slices Index.write embeds them in (embed_batch each),
    # now with every input shape seen; separates "first pass" from "slicing" effects.
    step = int(getattr(index, "embed_batch", 256))
    t0 = time.perf_counter()
    for i in range(0, len(texts), step):
        index.embedder.embed(texts[i : i + step])
    sliced_s = time.perf_counter() - t0
    embed_in_ingest_rate = first.chunks / spent["embed"] if spent["embed"] else float("nan")

    second = ingestor.ingest([path])
    ingest_rate = first.chunks / first.seconds if first.seconds else float("nan")
    raw_rate = len(texts) / raw_s if raw_s else float("nan")
    return {
        "model_load_seconds": load_s,
        "warmup_seconds": warm_s,
        "model_warm_before_ingest": True,
        "chunks": first.chunks,
        "embedded": first.embedded,
        "warnings": len(first.warnings),
        "first_ingest_seconds": first.seconds,
        "ingest_chunks_per_s": ingest_rate,
        "raw_encode_seconds": raw_s,
        "raw_encode_chunks_per_s": raw_rate,
        "first_ingest_stage_seconds": spent,
        "embed_stage_in_ingest_chunks_per_s": embed_in_ingest_rate,
        "raw_encode_sliced_batch": step,
        "raw_encode_sliced_chunks_per_s": len(texts) / sliced_s if sliced_s else float("nan"),
        "first_ingest_cpu_seconds": ingest_cpu,
        "raw_encode_cpu_seconds": raw_cpu,
        "ingest_over_raw_cpu": raw_cpu / ingest_cpu if ingest_cpu else float("nan"),
        "raw_encode_dim": int(vectors.shape[1]) if vectors.ndim == 2 else None,
        "ingest_over_raw": ingest_rate / raw_rate,
        "target_ingest_over_raw": TARGET_INGEST_RATIO,
        "reingest_seconds": second.seconds,
        "reingest_unchanged": len(second.unchanged),
        "reingest_embedded": second.embedded,
        "reingest_over_first": second.seconds / first.seconds,
        "target_reingest_over_first": TARGET_REINGEST_RATIO,
    }


def first_gold_rank(hits: list[Any], gold: str) -> int | None:
    for rank, hit in enumerate(hits, start=1):
        if hit.chunk.doc_id == gold:
            return rank
    return None


def measure_retrieval(
    retriever: Any,
    questions: list[Question],
    reranker: Any = None,
    weights: tuple[float, ...] = (1.0,),
) -> dict[str, Any]:
    from crag.models.reranker import rerank

    blends = {(RERANKED if w == 1.0 else f"{RERANKED} w={w:g}"): w for w in weights}
    labels = [label for label, _, _ in MODES] + (list(blends) if reranker else [])
    for _, mode, fusion in MODES:  # warm SQLite pages, Chroma's HNSW index, the query path
        retriever.search("warm up query", K, mode=mode, fusion=fusion)
    if reranker:
        reranker.score("warm up query", ["warm up passage"])
    ranks: dict[str, list[int | None]] = {label: [] for label in labels}
    lat_ms: dict[str, list[float]] = {label: [] for label in labels}
    for q in questions:
        for label, mode, fusion in MODES:
            t0 = time.perf_counter()
            hits = retriever.search(q.text, K, mode=mode, fusion=fusion)
            lat_ms[label].append((time.perf_counter() - t0) * 1000)
            ranks[label].append(first_gold_rank(hits, q.gold))
        if reranker:
            t0 = time.perf_counter()
            fused = retriever.search(q.text, K, mode="hybrid", fusion="weighted")
            search_ms = (time.perf_counter() - t0) * 1000
            for label, weight in blends.items():  # scores are cached: later blends cost ~0
                t0 = time.perf_counter()
                hits = rerank(reranker, q.text, fused, K, weight)
                lat_ms[label].append(search_ms + (time.perf_counter() - t0) * 1000)
                ranks[label].append(first_gold_rank(hits, q.gold))
    out: dict[str, Any] = {}
    n = len(questions)
    for label in labels:
        rs = ranks[label]
        row: dict[str, Any] = {
            f"recall@{c}": sum(1 for r in rs if r is not None and r <= c) / n for c in CUTOFFS
        }
        row[f"mrr@{K}"] = sum(1 / r for r in rs if r is not None) / n
        row["latency_ms_p50"] = percentile(lat_ms[label], 50)
        row["latency_ms_p95"] = percentile(lat_ms[label], 95)
        row["latency_ms_mean"] = sum(lat_ms[label]) / n
        out[label] = row
    return out


def check_targets(name: str, quality: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per hybrid row: the dataset's target, its figure and whether it holds."""
    targets: dict[str, dict[str, Any]] = {}
    if name == "squad-tr":
        return targets  # no target set for Turkish: measured only
    for label in ("hybrid+rrf", "hybrid+weighted"):
        row = quality[label]
        if name == "squad":
            targets[label] = {
                "target": f"recall@5 >= {TARGET_SQUAD_HYBRID_R5}",
                "ok": row["recall@5"] >= TARGET_SQUAD_HYBRID_R5,
            }
        else:
            best = {m: max(quality["bm25"][m], quality["dense"][m]) for m in ("recall@5", "mrr@20")}
            targets[label] = {
                "target": "recall@5 and MRR above both bm25 and dense",
                "ok": row["recall@5"] > best["recall@5"] and row["mrr@20"] > best["mrr@20"],
            }
    return targets

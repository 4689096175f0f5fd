"""Retrieval benchmark: ingest speed, recall@k / MRR and query latency on SQuAD, NQ, SQuAD-TR.

    python -m bench.retrieval [--datasets squad,nq,squad-tr] [--nq-limit N] [--questions N]
                              [--out PATH]

For each dataset a fresh index is built in a temporary data dir with crag's own settings
(`crag.config.load_settings`, so `crag.toml` / `CRAG_*` overrides apply), then:

- ingest: the model is loaded and warmed up *before* the first ingest is timed, so the figure
  excludes model loading. chunks/s of the first ingest is compared with the raw encode rate of
  the same embedder on the same chunk texts (`embedder.embed(texts)`, one call), measured right
  after. The unchanged file is then ingested again (it must be skipped by its SHA-256).
- quality: a question's gold is its SQuAD paragraph (`title#index`) or its NQ gold passage id;
  a hit is gold when `hit.chunk.doc_id` matches, and the rank of the first gold chunk in the top
  20 counts (a paragraph may be split into several chunks). recall@1/5/20 and MRR@20.
- latency: wall time of each `HybridRetriever.search` call, p50/p95 in ms, per mode. The modes
  are interleaved question by question so background load hits them alike.
- reranking (`--rerank`, default the shipped `crag-evaluator`): the hybrid+weighted top 20
  reordered by the cross-encoder, as `crag ask` does before keeping 5; its latency includes the
  retrieval. Questions are then drawn only from the evaluator's held-out "test" part
  (`crag.datasets.splits.evaluator_part`), since the reranker was trained on the rest.
  `--rerank-weights 1,0.7,...` adds one row per blend weight (`rerank.weight`: the reranker's
  share, the rest the fused score); choose it with `--part calibrate`, report it on `--part test`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.common import console, machine_info, percentile, print_table, write_results
from bench.retrieval_data import (
    NQ_PASSAGES,
    NQ_QUESTIONS,
    SQUAD_PATH,
    SQUAD_TR_PATH,
    TURKISH_SETTINGS,
    Question,
    nq_subset,
    squad_questions,
    squad_tr_questions,
)

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


# -- measurements -----------------------------------------------------------------------
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


# -- one dataset ------------------------------------------------------------------------
def run_dataset(name: str, args: argparse.Namespace) -> dict[str, Any]:
    from crag.config import load_settings
    from crag.index.retriever import HybridRetriever
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor

    console.rule(f"[bold]{name}")
    with tempfile.TemporaryDirectory(
        prefix=f"crag-bench-{name}-", ignore_cleanup_errors=True
    ) as tmp:
        work = Path(tmp)
        extra: dict[str, Any] = {}
        if name == "squad":
            corpus = SQUAD_PATH
            questions, info = squad_questions(
                SQUAD_PATH, args.questions, args.seed, part=args.part if args.rerank else None
            )
        elif name == "squad-tr":
            corpus, extra = SQUAD_TR_PATH, TURKISH_SETTINGS
            questions, info = squad_tr_questions(
                SQUAD_TR_PATH, args.questions, args.seed, part=args.part if args.rerank else None
            )
        else:
            corpus, questions, info = nq_subset(
                NQ_PASSAGES,
                NQ_QUESTIONS,
                work,
                args.nq_limit,
                args.questions,
                args.seed,
                part=args.part if args.rerank else None,
            )
        info["questions_evaluated"] = len(questions)
        settings = load_settings(data_dir=work / "data", collection=f"bench-{name}", **extra)
        index = Index.open(settings)
        try:
            ingestor = Ingestor(index, settings.ingest)
            console.print(
                f"{name}: ingesting {corpus.name} ({corpus.stat().st_size / 1e6:.1f} MB); "
                "model loaded and warmed up first, so ingest time excludes model loading"
            )
            ingest = measure_ingest(index, ingestor, corpus)
            doc_ids = {c.doc_id for c in index.catalog.chunks_of(str(corpus.resolve()))}
            missing = sorted({q.gold for q in questions} - doc_ids)
            if missing:
                console.print(
                    f"[red]{len(missing)} gold doc_ids are not in the index, e.g. {missing[:3]}"
                )
            info["documents_indexed"] = len(doc_ids)
            info["chunks_indexed"] = index.count()
            info["gold_doc_ids_missing"] = len(missing)
            console.print(
                f"{name}: {ingest['chunks']} chunks from {len(doc_ids)} documents; "
                f"evaluating {len(questions)} questions x {len(MODES)} modes"
            )
            t0 = time.perf_counter()
            reranker = None
            if args.rerank:
                from crag.models.reranker import make_reranker

                reranker = make_reranker(args.rerank)
            quality = measure_retrieval(
                HybridRetriever(index, settings.retrieval), questions, reranker, args.weights
            )
            eval_s = time.perf_counter() - t0
        finally:
            index.close()
    targets = check_targets(name, quality)
    show(name, info, ingest, quality, targets)
    return {
        "dataset": info,
        "settings": settings.model_dump(mode="json", exclude={"data_dir"}),
        "ingest": ingest,
        "retrieval": quality,
        "targets": targets,
        "eval_seconds": eval_s,
    }


def _ok(flag: bool) -> str:
    return "[green]ok[/green]" if flag else "[red]MISSED[/red]"


def show(
    name: str,
    info: dict[str, Any],
    ing: dict[str, Any],
    quality: dict[str, Any],
    targets: dict[str, dict[str, Any]],
) -> None:
    ratio_ok = ing["ingest_over_raw"] >= TARGET_INGEST_RATIO
    re_ok = ing["reingest_over_first"] <= TARGET_REINGEST_RATIO
    split = " / ".join(f"{v:.1f}" for v in ing["first_ingest_stage_seconds"].values())
    rows = [
        ("model load (excluded from ingest)", f"{ing['model_load_seconds']:.2f} s", ""),
        ("first ingest", f"{ing['first_ingest_seconds']:.1f} s", f"{ing['chunks']} chunks"),
        ("ingest rate", f"{ing['ingest_chunks_per_s']:.1f} chunks/s", ""),
        ("raw encode rate (same texts)", f"{ing['raw_encode_chunks_per_s']:.1f} chunks/s", ""),
        (
            "ingest / raw",
            f"{ing['ingest_over_raw']:.2f}",
            f">= {TARGET_INGEST_RATIO:.2f} {_ok(ratio_ok)}",
        ),
        ("  first ingest split", f"{split} s", "embed / keyword+catalog / vectors / other"),
        (
            "  embed stage inside ingest",
            f"{ing['embed_stage_in_ingest_chunks_per_s']:.1f} chunks/s",
            "first pass over these texts",
        ),
        (
            f"  raw in slices of {ing['raw_encode_sliced_batch']} (diagnostic)",
            f"{ing['raw_encode_sliced_chunks_per_s']:.1f} chunks/s",
            "as Index.write slices; shapes warm",
        ),
        (
            "  ingest / raw by CPU time",
            f"{ing['ingest_over_raw_cpu']:.2f}",
            "less sensitive to other load",
        ),
        (
            "re-ingest unchanged",
            f"{ing['reingest_seconds'] * 1000:.0f} ms",
            f"{ing['reingest_unchanged']} file skipped, {ing['reingest_embedded']} embedded",
        ),
        (
            "re-ingest / first",
            f"{ing['reingest_over_first']:.3%}",
            f"<= {TARGET_REINGEST_RATIO:.0%} {_ok(re_ok)}",
        ),
    ]
    print_table(f"{name}: ingest (model warm before timing)", ["metric", "value", "target"], rows)
    qrows = []
    for label in quality:
        r = quality[label]
        t = targets.get(label)
        qrows.append(
            (
                label,
                f"{r['recall@1']:.3f}",
                f"{r['recall@5']:.3f}",
                f"{r['recall@20']:.3f}",
                f"{r['mrr@20']:.3f}",
                f"{r['latency_ms_p50']:.1f}",
                f"{r['latency_ms_p95']:.1f}",
                f"{t['target']} {_ok(t['ok'])}" if t else "",
            )
        )
    corpus = (
        f"{info['paragraphs']} paragraphs"
        if name != "nq"
        else f"{info['passages_indexed']} of {info['passages_total']} passages"
    )
    print_table(
        f"{name}: retrieval, {info['questions_evaluated']} questions, {corpus}, "
        f"{info['chunks_indexed']} chunks",
        ["mode", "R@1", "R@5", "R@20", "MRR@20", "p50 ms", "p95 ms", "target"],
        qrows,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.retrieval", description=__doc__)
    parser.add_argument("--datasets", default="squad,nq", help="comma list of squad, nq, squad-tr")
    parser.add_argument(
        "--nq-limit", type=int, default=3000, help="NQ passages to index (0 = all 13,834)"
    )
    parser.add_argument("--questions", type=int, default=500, help="questions per dataset")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rerank",
        default="crag-evaluator",
        help="cross-encoder for the reranked row ('' = none; questions then from all parts)",
    )
    parser.add_argument(
        "--rerank-weights",
        default="1",
        help="comma list of reranker weights, one reranked row each (1 = reranker alone; "
        "w < 1 blends in the fused score; only the first row's latency includes the model)",
    )
    parser.add_argument(
        "--part",
        default="test",
        choices=["train", "calibrate", "test"],
        help="evaluator split the questions come from when reranking: choose a weight on "
        "'calibrate', report it on 'test'",
    )
    parser.add_argument("--out", default="retrieval", help="JSON path or name under bench/results")
    args = parser.parse_args(argv)
    args.weights = tuple(float(w) for w in args.rerank_weights.split(",") if w.strip())
    names = [d.strip() for d in args.datasets.split(",") if d.strip()]
    unknown = set(names) - {"squad", "nq", "squad-tr"}
    if unknown:
        parser.error(f"unknown datasets: {', '.join(sorted(unknown))}")

    started = time.time()
    machine = machine_info()
    console.print(
        f"machine: {machine['cpu_count']} CPUs, torch threads {machine.get('torch_threads')}, "
        f"load average {machine['loadavg']} (timings are noisy when other work shares the CPUs)"
    )
    results: dict[str, Any] = {}
    for name in names:
        results[name] = run_dataset(name, args)
    machine["loadavg_end"] = machine_info()["loadavg"]
    console.print(f"load average at the end: {machine['loadavg_end']}")
    payload = {
        "benchmark": "retrieval",
        "args": vars(args),
        "machine": machine,
        "wall_seconds": time.time() - started,
        "notes": [
            "model loaded and warmed up before the first ingest is timed",
            "raw encode: one embedder.embed(texts) call on the indexed chunk texts, same embedder",
            "latency: wall time per HybridRetriever.search(q, 20) call, modes interleaved",
        ],
        "datasets": results,
    }
    path = write_results(args.out, payload)
    console.print(f"results written to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

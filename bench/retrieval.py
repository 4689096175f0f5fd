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
from pathlib import Path
from typing import Any

from bench.common import console, machine_info, write_results
from bench.retrieval_data import (
    NQ_PASSAGES,
    NQ_QUESTIONS,
    SQUAD_PATH,
    SQUAD_TR_PATH,
    TURKISH_SETTINGS,
    nq_subset,
    squad_questions,
    squad_tr_questions,
)
from bench.retrieval_measure import MODES, check_targets, measure_ingest, measure_retrieval
from bench.retrieval_tables import show


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

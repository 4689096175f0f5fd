"""The tables `bench.retrieval` prints per dataset: ingest figures against their targets, then
recall, MRR and latency per retrieval mode. Apart from the measurement (bench.retrieval_measure)
so the figures and their layout change separately."""

from __future__ import annotations

from typing import Any

from bench.common import print_table
from bench.retrieval_measure import TARGET_INGEST_RATIO, TARGET_REINGEST_RATIO

__all__ = ["show"]


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

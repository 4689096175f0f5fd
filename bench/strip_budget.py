"""How much the generator reads, and whether the answer survives, under other refine settings.

    python -m bench.strip_budget RUN_DIR [--data-dir D] [--configs 3x5,3x3,2x4,1x5]

crag's reading of all sources costs about 17 ms per prompt token on 2 cores, and on SQuAD's
short paragraphs the shipped refinement (three-sentence excerpts, five kept) hands the
generator nearly as much text as plain RAG's five whole chunks. This re-refines the reranked
top 5 of every question of a finished `crag eval` run — the same chunks (looked up in the
run's collection), the same evaluator, the chunk scores its trace holds — under each
`SENTENCESxTOP_K` config (`refine.excerpt_sentences` × `refine.top_k`), and reports for each:

- **answer kept**: of the questions whose gold answer was in the reranked top 5, the share
  whose kept strips still hold it (the issue's "evidence that survives", before the verdict:
  an INCORRECT verdict reads nothing under any config);
- **words read**: the kept strips' words per question (median and mean).

No model call is made, so a config can be judged for its evidence before a run asks the
questions with it. Choose on `--tuning-part` runs. Writes bench/results/strip_budget.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from bench.common import console, print_table, write_results


def _config(text: str) -> tuple[int, int]:
    sentences, top_k = text.lower().split("x")
    return int(sentences), int(top_k)


def main(argv: list[str] | None = None) -> None:
    from crag.config import load_settings
    from crag.datasets.answers import contains_answer
    from crag.index.store import Index
    from crag.pipeline.build import make_judge
    from crag.refine import Refiner

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", type=Path, help="a crag eval output folder (results.jsonl, run.json)")
    p.add_argument("--data-dir", type=Path, default=None, help="the run's CRAG_DATA_DIR")
    p.add_argument("--configs", default="3x5,3x4,3x3,2x5,2x4,1x5")
    args = p.parse_args(argv)

    run = json.loads((args.run / "run.json").read_text())["fingerprint"]
    given = {"data_dir": args.data_dir} if args.data_dir else {}
    settings = load_settings(collection=run["collection"], **given)
    index = Index.open(settings)
    evaluator = make_judge(settings, None, index)
    rows = [json.loads(line) for line in (args.run / "results.jsonl").open()]
    rows = [r for r in rows if r["trace"]["reranked"] and r["trace"]["evaluations"]]
    configs = [_config(c) for c in args.configs.split(",")]
    out: dict[str, Any] = {"run": str(args.run), "questions": len(rows), "configs": {}}
    table = []
    for sentences, top_k in configs:
        refiner = Refiner(
            evaluator,
            mode="excerption",
            top_k=top_k,
            keep_best_of=settings.refine.keep_best_of,
            excerpt_sentences=sentences,
            excerpt_chars=settings.refine.excerpt_chars,
        )
        kept = looked = 0
        words: list[int] = []
        with console.status(f"{sentences}x{top_k}: refining {len(rows)} questions…"):
            for r in rows:
                trace = r["trace"]
                ids = [c["id"] for c in trace["reranked"]]
                found = index.catalog.get_chunks(ids)
                chunks = [found[i] for i in ids if i in found]
                known = {e["id"]: e["score"] for e in trace["evaluations"]}
                strips, _ = refiner.refine(r["question"], chunks, known)
                text = "\n".join(s.text for s in strips)
                words.append(len(text.split()))
                if r.get("answer_in_top5"):
                    looked += 1
                    kept += contains_answer(text, r["answers"], r.get("language") or "en")
        name = f"{sentences}x{top_k}"
        out["configs"][name] = {
            "excerpt_sentences": sentences,
            "top_k": top_k,
            "answer_kept": kept / looked if looked else None,
            "kept": kept,
            "looked": looked,
            "words_median": statistics.median(words),
            "words_mean": statistics.fmean(words),
        }
        table.append(
            [
                name,
                f"{kept}/{looked}",
                f"{statistics.median(words):.0f}",
                f"{statistics.fmean(words):.0f}",
            ]
        )
    print_table(
        f"refine settings on {args.run.name}",
        ["sentences x top_k", "answer kept", "words (median)", "words (mean)"],
        table,
    )
    write_results("strip_budget", out)


if __name__ == "__main__":
    main()

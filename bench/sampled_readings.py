"""Agreement among sampled readings as an answer check (tried, not adopted).

    python -m bench.sampled_readings RUN_DIR [--samples 5] [--limit 100]

A model that knows an answer tends to give it again when sampled; one that guesses scatters
(SelfCheckGPT, Manakul et al. 2023; semantic entropy, Kuhn et al. 2023). For each question of
a finished `crag eval` run whose reading of all sources answered, the same reading (the kept
strips in its trace, the shipped prompt) is sampled `--samples` times at temperature 0.8
(seeds 1…N), and the agreement is the share of samples whose short answer has token F1 ≥ 0.5
with the run's. Reported: how well the agreement tells right first readings from wrong ones
(ROC AUC), beside the verification's P(yes) from the trace on the verified ones, and the two
summed. The instructions and sources are the run's, so llama.cpp reuses the cached prompt and
each sample costs only its reply.

Use tuning-part runs (`crag eval … --tuning-part`). Writes bench/results/sampled_readings.json.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.common import console, generator, print_table, roc_auc, write_results
from bench.reader_prompts import load
from crag.datasets.answers import contains_answer, token_f1
from crag.generate.citations import number_sources
from crag.generate.declined import declined
from crag.generate.language import language_name
from crag.generate.matching import short_answer
from crag.generate.prompt import reading_request
from crag.generate.quote import STOP

TEMPERATURE = 0.8
MAX_TOKENS = 60  # the short answer and its citation come first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--limit", type=int, default=100)
    args = parser.parse_args()
    llm = generator()
    traces = {}
    for line in (args.run / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        traces[record["question"]] = record["trace"]
    rows: list[dict[str, Any]] = []
    for q in load(args.run)[: args.limit]:
        if not q.baseline:  # the reading of all sources declined: nothing to agree with
            continue
        sources = number_sources(q.strips)
        request = reading_request(
            q.question, sources, language_name(q.language), stop=STOP,
            temperature=TEMPERATURE, max_tokens=MAX_TOKENS,
        )  # fmt: skip
        shorts = []
        for seed in range(1, args.samples + 1):
            reply = llm.chat(replace(request, seed=seed)).text.strip()
            shorts.append("" if declined(reply, sources) else short_answer(reply))
        verified = [v for v in traces[q.question]["verifications"] if v["short"] == q.baseline]
        rows.append({
            "question": q.question,
            "right": contains_answer(q.baseline, q.answers, q.language),
            "agreement": sum(token_f1(s, [q.baseline]) >= 0.5 for s in shorts) / len(shorts),
            "p_yes": verified[0]["p_yes"] if verified else None,
            "samples": shorts,
        })  # fmt: skip
        console.print(f"{len(rows)}: {q.baseline!r} {shorts}")
    checked = [r for r in rows if r["p_yes"] is not None]
    labels = [int(r["right"]) for r in checked]
    table = [
        ["agreement", "all answered", len(rows), sum(r["right"] for r in rows),
         roc_auc([r["agreement"] for r in rows], [int(r["right"]) for r in rows])],
        ["agreement", "verified", len(checked), sum(labels),
         roc_auc([r["agreement"] for r in checked], labels)],
        ["P(yes)", "verified", len(checked), sum(labels),
         roc_auc([r["p_yes"] for r in checked], labels)],
    ]  # fmt: skip
    for weight in (0.25, 0.5, 1.0):
        summed = [r["p_yes"] + weight * r["agreement"] for r in checked]
        table.append([f"P(yes) + {weight} × agreement", "verified", len(checked), sum(labels),
                      roc_auc(summed, labels)])  # fmt: skip
    print_table(
        "Right against wrong first readings: ROC AUC of each signal",
        ["signal", "questions", "n", "right", "AUC"],
        [[*row[:4], f"{row[4]:.3f}"] for row in table],
    )
    write_results("sampled_readings", {"run": str(args.run), "rows": rows})


if __name__ == "__main__":
    main()

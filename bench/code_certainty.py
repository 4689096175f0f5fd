"""How sure the coded reading is of its span, against whether the span is right.

    python -m bench.code_certainty RUN_DIR [RUN_DIR ...] [--limit 100]

Each question's kept strips (as a finished `crag eval` run kept them, numbered as crag numbers
them) are read once by the configured generator framed as code (`crag.generate.code_reading`),
with its tokens' log-probabilities. The span's certainty is what `generate.reading = "code"`
judges: the lowest probability among the tokens that spell the short answer, as the pipeline
computes it (`crag.generate.reader.candidate`). Printed: the area under the ROC curve of that
certainty for right spans against wrong ones and against near misses answered, and what each
cut would turn into declines. Use tuning-part runs (T100 and its near-miss run): this chooses
`generate.code_sure`, it does not report. Writes bench/results/code_certainty.json.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import console, generator, print_table, roc_auc, write_results
from bench.reader_prompts import load, outcome
from crag.generate.citations import number_sources
from crag.generate.code_reading import read_first_as_code
from crag.generate.declined import declined
from crag.generate.reader import candidate

CUTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("runs", type=Path, nargs="+")
    parser.add_argument("--limit", type=int, default=100, help="questions per run")
    return parser.parse_args()


def main() -> None:
    args = _args()
    llm = generator()
    rows: list[dict[str, Any]] = []
    for run in args.runs:
        for q in load(run)[: args.limit]:
            sources = number_sources(q.strips)
            reading, _ = read_first_as_code(llm, q.question, sources)
            reply = reading.reply
            cand = None
            if not declined(reply, sources):
                cand = candidate(reply, q.question, sources, "all", 0, reading.tokens)
            short = cand.short if cand else ""
            rows.append({"run": str(run), "question": q.question, "reply": reply,
                         "outcome": outcome(short, q.answers, q.answerable, q.language),
                         "sure": min(cand.probs) if cand and cand.probs else None})  # fmt: skip
            console.print(f"{len(rows)}: {rows[-1]}")
    known = [r for r in rows if r["sure"] is not None]

    def auc(other: str) -> str:
        pairs = [(r["sure"], r["outcome"] == "right") for r in known
                 if r["outcome"] in ("right", other)]  # fmt: skip
        if not any(g for _, g in pairs) or all(g for _, g in pairs):
            return "–"
        return f"{roc_auc([p for p, _ in pairs], [int(g) for _, g in pairs]):.3f}"

    console.print(f"spans with known certainty: {len(known)} of {len(rows)}; area under the "
                  f"ROC curve, right against wrong: {auc('wrong')}, against near misses "
                  f"answered: {auc('near_answered')}")  # fmt: skip
    table = []
    for cut in CUTS:
        dropped = Counter(r["outcome"] for r in known if r["sure"] < cut)
        table.append([f"{cut:.1f}", dropped["right"], dropped["wrong"], dropped["near_answered"]])
    print_table(
        "Coded spans a cut would turn into declines",
        ["cut", "right", "wrong", "near misses answered"],
        table,
    )
    write_results("code_certainty", {"runs": [str(r) for r in args.runs], "rows": rows})


if __name__ == "__main__":
    main()

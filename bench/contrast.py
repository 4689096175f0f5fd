"""Does asking the verification about a rival answer separate right answers from wrong ones?

    python -m bench.contrast RUN_DIR [RUN_DIR ...] [--rivals 2]

The answer check asks the generator's model whether the passage holding the short answer
states it as the answer (P(yes), `crag.generate.verify`). Its yes is not comparable from one
passage to the next: on a cast list it says yes to every actor. This bench re-asks, for every
answer a finished run verified, the same question about the passage's *rivals* — other spans
of the same shape (names for a name, numbers and dates for a number: `bench.rivals`)
tied closest to the question — and reports how well P(yes) alone, the margin over the best
rival, and both together separate right answers from wrong ones (answerable questions answered
wrongly, near misses and unanswerable questions answered at all).

The passage is rebuilt from the trace exactly as the answer check built it: the kept strips in
reading order, numbered per chunk, the strips of the verified source that hold the short
answer. Only runs without web strips are read. Choose on `--tuning-part` runs.
Writes bench/results/contrast.json.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from pathlib import Path
from typing import Any

from bench.common import console, generator, kept_strips, print_table, roc_auc, write_results
from bench.rivals import rivals
from crag.eval.metrics import contains_answer
from crag.eval.summary import expects_answer
from crag.generate.citations import number_sources
from crag.generate.matching import find_in_sources

_VERIFIED = re.compile(r"^verified (.*) against \[(\d+)\]: P\(yes\) ([0-9.]+)$", re.S)


def _short(text: str) -> str:
    """A short answer as the note shows it (Python's repr)."""
    return str(ast.literal_eval(text))


def load(run: Path) -> list[dict[str, Any]]:
    """Every verification a run noted: question, short answer, passage, P(yes), label."""
    out = []
    for line in (run / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        t = r["trace"]
        if r.get("error") or r["mode"] == "rag" or t.get("web"):
            continue
        strips = kept_strips(t)
        sources = {s.n: s for s in number_sources(strips)}
        for note in t["notes"]:
            m = _VERIFIED.match(note)
            if not m or int(m.group(2)) not in sources:
                continue
            short, n, p = _short(m.group(1)), int(m.group(2)), float(m.group(3))
            own = [s for s in strips if s.chunk.id == sources[n].chunk.id]
            held = [s for s in own if find_in_sources(short, {0: s.text})] or own
            language = r.get("language") or "en"
            answerable = expects_answer(r, False)
            right = answerable and contains_answer(short, r["answers"], language)
            passage = " … ".join(s.text for s in held)
            out.append({
                "question": r["question"], "short": short, "passage": passage,
                "p": p, "right": right, "answerable": answerable, "language": language,
                "refused": r["refused"],
            })  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--rivals", type=int, default=2)
    args = parser.parse_args()
    from crag.generate.verify import AnswerJudge

    llm = generator()
    judge = AnswerJudge(llm)
    rows = [row for run in args.runs for row in load(run)]
    console.print(f"{len(rows)} verifications from {len(args.runs)} run(s)")
    for i, row in enumerate(rows):
        found = rivals(row["short"], row["question"], row["passage"], args.rivals)
        ps = [
            float(judge.score(f"{row['question'].strip()}\nAnswer: {x}", [row["passage"]])[0])
            for x in found
        ]
        row["rivals"], row["rival_p"] = found, ps
        row["margin"] = row["p"] - max(ps, default=0.0)
        console.print(
            f"{i + 1}/{len(rows)} {'R' if row['right'] else 'W'} p={row['p']:.2f} "
            f"{row['short']!r} rivals {[f'{x} {p:.2f}' for x, p in zip(found, ps, strict=True)]}"
        )
    labels = [int(r["right"]) for r in rows]
    with_rivals = [r for r in rows if r["rivals"]]
    rival_labels = [int(r["right"]) for r in with_rivals]
    table = [
        ["P(yes)", f"{roc_auc([r['p'] for r in rows], labels):.3f}"],
        ["margin over best rival", f"{roc_auc([r['margin'] for r in rows], labels):.3f}"],
        [
            "P(yes), answers with rivals",
            f"{roc_auc([r['p'] for r in with_rivals], rival_labels):.3f}",
        ],
        [
            "margin, answers with rivals",
            f"{roc_auc([r['margin'] for r in with_rivals], rival_labels):.3f}",
        ],
    ]
    print_table(f"{len(rows)} verifications, {sum(labels)} right, {len(with_rivals)} with rivals",
                ["score", "AUC"], table)  # fmt: skip
    grid = []
    for cut in (0.5, 0.6, 0.7, 0.75):
        for margin in (None, 0.0, 0.1, 0.2, 0.3):
            kept = [r for r in rows if r["p"] >= cut and (margin is None or r["margin"] >= margin)]
            grid.append([
                f"{cut:.2f}", "-" if margin is None else f"{margin:.1f}",
                str(sum(r["right"] for r in kept)), str(sum(not r["right"] for r in kept)),
            ])  # fmt: skip
    print_table("passed at cut and margin", ["cut", "margin", "right", "wrong"], grid)
    write_results("contrast", {"runs": [str(r) for r in args.runs], "rows": rows})


if __name__ == "__main__":
    main()

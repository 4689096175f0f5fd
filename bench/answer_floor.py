"""Where should the evidence floor of an unsure answer stand? Swept over `crag eval` runs.

    python -m bench.answer_floor RUN_DIR [RUN_DIR ...]

When the evaluator is not sure (AMBIGUOUS), crag answers only from a passage that itself
scored at least the lower threshold (`crag.pipeline.nodes.generate`). This reads the answers of
finished `crag eval` runs (their `results.jsonl`; crag modes only) and, for each cut, counts
what the floor would have done to the AMBIGUOUS answers: right answers kept, wrong answers and
answers to near-miss / unanswerable questions refused. The best cut maximises right − wrong −
hallucinated (a refusal scores 0, a right answer +1, any answered error −1), ties broken
toward the lower cut. A refused answer is counted as refused, although the generator might
then have found another candidate: the sweep is an estimate; a run with the cut set confirms it.

Use runs of the tuning part only (`crag eval … --tuning-part --near-miss 0.5`): a floor chosen
on the questions you report is tuned on them. Runs made without `--tuning-part` are refused.
Writes bench/results/answer_floor.json.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from bench.common import console, print_table, write_results
from crag.eval.metrics import contains_answer


def answered(run: Path) -> list[tuple[float, str]]:
    """(evidence of the cited passage, outcome) of each AMBIGUOUS crag answer of a run."""
    summary = json.loads((run / "summary.json").read_text())
    if not summary["run"].get("tuning_part"):
        raise SystemExit(f"{run}: not a --tuning-part run; choose the floor on tuning questions")
    out: list[tuple[float, str]] = []
    for line in (run / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["mode"] == "rag" or r["refused"] or r.get("error") or r["verdict"] != "ambiguous":
            continue
        trace, cited = r["trace"], set(r["citations"])
        ids = {h["id"] for h in trace["reranked"] if h["cite"] in cited}
        scores = [
            s["score"]
            for s in trace["strips"]
            if s["chunk_id"] in ids and s["score"] is not None and not math.isnan(s["score"])
        ]  # a 0.0 score is evidence too; only unscored strips (None, NaN) are left out
        if not scores:
            continue  # a web answer: its own floor
        if r.get("part") == "near_miss" or not r["answerable"]:
            outcome = "hallucinated"
        elif contains_answer(r["answer"], r["answers"], r.get("language", "en")):
            outcome = "right"
        else:
            outcome = "wrong"
        out.append((max(scores), outcome))
    return out


def sweep(rows: list[tuple[float, str]]) -> list[dict[str, Any]]:
    """The outcome of every cut between two observed evidence scores (and of no floor)."""
    cuts = sorted({0.0, *(round(e + 1e-3, 3) for e, _ in rows)})
    table = []
    for cut in cuts:
        kept = [o for e, o in rows if e >= cut]
        n = {k: kept.count(k) for k in ("right", "wrong", "hallucinated")}
        table.append({"cut": cut, **n, "score": n["right"] - n["wrong"] - n["hallucinated"]})
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path)
    args = parser.parse_args()
    rows = [row for run in args.runs for row in answered(run)]
    table = sweep(rows)
    best = max(table, key=lambda t: (t["score"], -t["cut"]))
    print_table(
        "The evidence floor of AMBIGUOUS answers",
        ["cut", "right kept", "wrong kept", "hallucinated kept", "right − errors"],
        [[f"{t['cut']:.3f}", t["right"], t["wrong"], t["hallucinated"], t["score"]]
         for t in table],
    )  # fmt: skip
    console.print(f"best cut {best['cut']:.3f} over {len(rows)} AMBIGUOUS answers")
    path = write_results("answer_floor", {"runs": [str(r) for r in args.runs], "rows": len(rows),
                                          "best": best, "table": table})  # fmt: skip
    console.print(f"wrote {path}")


if __name__ == "__main__":
    main()

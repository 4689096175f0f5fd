"""Choose the escalation's cuts (crag.grading.escalation) and measure them.

    python -m bench.combination --reuse-eval --data-dir DATA_DIR --rows rows.json  # mine once
    python -m bench.escalation --rows rows.json --scores judged.json

The rows are `bench.combination`'s (150 SQuAD-en "calibrate" and 150 "test" questions, each
also as a near miss, five reranked chunks each, with their texts). Each row is scored by the
shipped evidence evaluator (the packaged weights and thresholds for the MiniLM embedder); a
row whose best chunk falls between the thresholds is AMBIGUOUS, and that chunk is judged by
the generator's model with CRAG's judge question (`EscalationJudge`, the packaged 1.5B by
default). Judgements are kept in `--scores`, so an interrupted run resumes.

The cuts follow the evidence evaluator's own rules (`bench.combination`), applied to the
AMBIGUOUS rows of the "calibrate" part: `lower` lets at most 8 % of those holding a gold
chunk fall below it; `upper` is the lowest cut at which 90 % of those above it hold one. Then
the "test" rows are reported once: within the band, how well the judge and the evidence score
separate rows with a gold chunk from rows without (AUC), and over all rows how many verdicts
are decisive (CORRECT or INCORRECT) and right (gold chunk among the five ⇔ not INCORRECT),
with the evidence evaluator alone and with the escalation.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from bench.combination import choose_thresholds
from bench.common import print_table, roc_auc, write_results

EMBEDDING = "all-MiniLM-L6-v2"


def _embedding_key(row: dict[str, Any]) -> str:
    """The row's MiniLM cosine column (mined rows name the model with or without its org)."""
    return next(k for k in row if k.endswith(EMBEDDING))


def evidence(rows: list[dict[str, Any]]) -> list[tuple[float, int]]:
    """(best probability, index of that chunk) per row, by the shipped combination."""
    from crag.grading.evidence import packaged_combination

    comb = packaged_combination(EMBEDDING)
    out = []
    for r in rows:
        cos = r[_embedding_key(r)]
        p = [comb.probability(a, b, c) for a, b, c in zip(r["ce"], cos, r["lex"], strict=True)]
        best = max(p)
        out.append((best, p.index(best)))
    return out


def judge_band(rows: dict[str, list[dict[str, Any]]], scores: Path, model: str) -> dict[str, float]:
    """P(yes) of the best chunk of every AMBIGUOUS row, keyed "part:row:chunk" (resumable)."""
    from crag.config import load_settings
    from crag.grading.escalation import EscalationJudge
    from crag.grading.evidence import evidence_thresholds
    from crag.pipeline.build import make_roles

    upper, lower = evidence_thresholds(EMBEDDING)
    done: dict[str, float] = json.loads(scores.read_text()) if scores.is_file() else {}
    settings = load_settings()
    settings.llm.generator.model = model
    judge = EscalationJudge(make_roles(settings, ("generator",))["generator"])
    for part, part_rows in rows.items():
        for i, (r, (best, k)) in enumerate(zip(part_rows, evidence(part_rows), strict=True)):
            key = f"{part}:{i}:{k}"
            if not lower <= best < upper or key in done:
                continue
            if "texts" not in r:
                raise SystemExit(
                    "the rows hold no chunk texts: mine them again (bench.combination)"
                )
            done[key] = judge.score(r["question"], [r["texts"][k]])[0]
            scores.write_text(json.dumps(done))
    return done


def cuts(q: list[tuple[float, bool]]) -> tuple[float, float]:
    """bench.combination's threshold rules on (judge score, gold among the five)."""
    return choose_thresholds([(s, g, []) for s, g in q])


def _rows(part: str, rows: list[dict[str, Any]], judged: dict[str, float]) -> list[dict[str, Any]]:
    return [
        {
            "kind": r["kind"],
            "best": best,
            "gold": any(r["gold"]),
            "p": judged.get(f"{part}:{i}:{k}"),
        }
        for i, (r, (best, k)) in enumerate(zip(rows, evidence(rows), strict=True))
    ]


def figures(
    table: list[dict[str, Any]], band: tuple[float, float], up: float, low: float
) -> dict[str, Any]:
    """Decisive and right verdicts, the evidence evaluator alone and escalated."""
    upper, lower = band
    alone = escalated = right_alone = right_escalated = 0
    outcomes: Counter[str] = Counter()
    for x in table:
        v = "C" if x["best"] >= upper else "I" if x["best"] < lower else "A"
        if v != "A":
            alone += 1
            right_alone += (v == "C") == x["gold"]
        elif x["p"] is not None:
            v = "C" if x["p"] >= up else "I" if x["p"] < low else "A"
            outcomes[f"{v} {x['kind']} {'gold' if x['gold'] else 'no gold'}"] += 1
        if v != "A":
            escalated += 1
            right_escalated += (v == "C") == x["gold"]
    n = len(table)
    return {
        "questions": n,
        "decisive_alone": alone / n,
        "right_alone": right_alone / max(alone, 1),
        "decisive_escalated": escalated / n,
        "right_escalated": right_escalated / max(escalated, 1),
        "escalated_outcomes": dict(sorted(outcomes.items())),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=Path, required=True, help="bench.combination's mined rows")
    ap.add_argument("--scores", type=Path, required=True, help="judgements, kept and resumed")
    ap.add_argument("--model", default="qwen2.5-coder-1.5b", help="the judge (generator) model")
    args = ap.parse_args()
    from crag.grading.evidence import evidence_thresholds

    rows = json.loads(args.rows.read_text())
    judged = judge_band(rows, args.scores, args.model)
    band = evidence_thresholds(EMBEDDING)
    tables = {part: _rows(part, rows[part], judged) for part in ("calibrate", "test")}
    inside = [(x["p"], x["gold"]) for x in tables["calibrate"] if x["p"] is not None]
    up, low = cuts(inside)
    out: dict[str, Any] = {"model": args.model, "upper": up, "lower": low, "band": band}
    lines = []
    for part, table in tables.items():
        amb = [x for x in table if x["p"] is not None]
        gold = [int(x["gold"]) for x in amb]
        auc = (roc_auc([x["p"] for x in amb], gold), roc_auc([x["best"] for x in amb], gold))
        for only in (False, True):
            subset = [x for x in table if not only or x["kind"] == "answerable"]
            f = figures(subset, band, up, low)
            out[f"{part}{' answerable' if only else ''}"] = {**f, "auc_judge_evidence": auc}
            alone = f"{f['decisive_alone']:.0%} / {f['right_alone']:.0%}"
            escalated = f"{f['decisive_escalated']:.0%} / {f['right_escalated']:.0%}"
            kind = "answerable" if only else "mixed"
            lines.append(
                [part, kind, str(len(amb)), f"{auc[0]:.3f} / {auc[1]:.3f}", alone, escalated]
            )
    print_table(
        f"escalation: {args.model}, cuts {up} / {low} (chosen on 'calibrate')",
        ["part", "rows", "AMBIGUOUS judged", "AUC in band: judge / evidence",
         "evidence alone: decisive / right", "escalated: decisive / right"],
        lines,
    )  # fmt: skip
    write_results("escalation", out)


if __name__ == "__main__":
    main()

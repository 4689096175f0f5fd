"""How `bench.correction` scores: one answer's record (correct, refused, where the gold passage got
to), the figures per question group and mode, and their table. Apart from the run in
bench/correction.py (data, settings, the web double, the question loop), so the scoring rule
reads on its own."""

from __future__ import annotations

from typing import Any

from bench.common import print_table
from crag.modes import Mode

__all__ = ["GROUPS", "answer_record", "contains_gold", "show", "summarise"]

GROUPS = ("kb", "web", "held_out")  # where a question's gold passage is (crag.datasets.nq_part)


def contains_gold(answer: str, golds: list[str]) -> bool:
    """The harness's rule (`crag eval` scores the same way): SQuAD normalisation, gold tokens
    in order and adjacent."""
    from crag.eval.metrics import contains_answer

    return contains_answer(answer, golds)


def answer_record(answer: Any, golds: list[str], gold_id: str) -> dict[str, Any]:
    t = answer.trace
    web = t.web
    return {
        # where the gold passage got to: explains a miss (retrieval, search or generation)
        "gold_reranked": any(f"› {gold_id} chars" in h.cite for h in t.reranked),
        "gold_in_web_results": web is not None
        and any(r.url.endswith(f"/page/{gold_id}") for r in web.results),
        "answer": answer.text,
        "refused": answer.refused,
        "correct": (not answer.refused) and contains_gold(answer.text, golds),
        "contains_gold": contains_gold(answer.text, golds),
        "verdict": answer.verdict.value if answer.verdict else None,
        "citations": [{"n": c.n, "origin": c.origin, "label": c.label} for c in answer.citations],
        "web_query": t.web_query,
        "web_error": (web.error or None) if web else None,
        "web_pages_read": sum(p.status == "read" for p in web.pages) if web else 0,
        "web_strips_kept": sum(s.kept for s in web.strips) if web else 0,
        "total_ms": round(t.total_ms),
        "model_calls": len(t.calls),
    }


def summarise(rows: list[dict[str, Any]], modes: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode in modes:
        by_group: dict[str, Any] = {}
        for g in (*GROUPS, "mixed"):
            members = ("kb", "web") if g == "mixed" else (g,)
            items = [r[mode] for r in rows if mode in r and r["group"] in members]
            n = len(items)
            if not n:
                continue
            answered = [i for i in items if not i["refused"]]
            by_group[g] = {
                "n": n,
                "accuracy": sum(i["correct"] for i in items) / n,
                "refused": (n - len(answered)) / n,
                "hallucinated": sum(not i["contains_gold"] for i in answered) / n,
                "mean_s": sum(i["total_ms"] for i in items) / n / 1000,
            }
            if mode == Mode.CRAG:
                verdicts: dict[str, int] = {}
                for i in items:
                    verdicts[i["verdict"]] = verdicts.get(i["verdict"], 0) + 1
                by_group[g]["verdicts"] = verdicts
                by_group[g]["web_used"] = sum(i["web_strips_kept"] > 0 for i in items) / n
        out[mode] = by_group
    return out


def show(out: dict[str, Any]) -> None:
    s = out["summary"]
    rows = []
    for g in ("kb", "web", "mixed", "held_out"):
        cells = [g]
        for mode in (Mode.RAG, Mode.CRAG):
            m = s.get(mode, {}).get(g)
            cells += (
                [f"{m['accuracy']:.0%}", f"{m['refused']:.0%}", f"{m['hallucinated']:.0%}"]
                if m
                else ["–"] * 3
            )
        n = (s.get("crag", {}).get(g) or s.get("rag", {}).get(g) or {}).get("n", 0)
        rows.append([*cells, str(n)])
    verdicts = {g: s.get("crag", {}).get(g, {}).get("verdicts") for g in GROUPS}
    print_table(
        f"Correction: rag vs crag ({out['provider']} over the local web double; grader "
        f"{out['models']['grader']}, generator {out['models']['generator']}, evaluator "
        f"{out['evaluator']})",
        [
            "group",
            "rag acc",
            "rag refused",
            "rag halluc.",
            "crag acc",
            "crag refused",
            "crag halluc.",
            "n",
        ],
        rows,
        caption=f"crag verdicts per group: {verdicts}",
    )

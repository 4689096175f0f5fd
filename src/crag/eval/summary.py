"""Figures per mode from `results.jsonl` records: the numbers `summary.json` and the report show.

Definitions (documented in the README's `crag eval` section as well):

- **Expected answer**: a question crag should answer — it has a gold answer and its gold
  passage is reachable: in the knowledge base, or in the "web" part of a split corpus when web
  search is configured. Every other question (SQuAD 2.0 `is_impossible`, a held-out or, without
  web search, web-only gold passage) should be refused.
- **accuracy**: among expected-answer questions, the share answered (not refused) with a gold
  answer contained in the answer (`metrics.contains_answer`); a refusal counts as wrong.
  **f1**: mean token F1 over the same questions (0 for a refusal). **short_accuracy**: the
  same, with the gold answer contained in the short answer alone (the text before the answer's
  first `[n]` or sentence end): stricter, since an explanation sentence, quoted from a source or
  written by the model, can hold the gold answer beside a wrong short answer.
- **over_refusal**: among expected-answer questions, the share refused.
- **refusal_rate** / **found_elsewhere** / **hallucination_rate**: among should-refuse
  questions, the share refused / answered with a gold answer anyway (possible on a split
  corpus: another indexed passage held the same fact) / answered without one. The three add up
  to 1; for SQuAD 2.0 unanswerable questions (no gold answer) every answer is a hallucination.
- **recall@k**: among questions whose gold passage is in the index, the share with a chunk of
  it in the top k retrieved (before reranking).
- **evaluator**: for modes that judge retrieval (crag), verdict counts split by whether a
  gold-bearing chunk — one of the gold unit that holds a gold answer — was among the chunks the
  evaluator judged. CORRECT and AMBIGUOUS keep internal knowledge, INCORRECT discards it, so a
  verdict is right when it keeps (C/A) a gold-bearing set or discards (I) one without.
  `accuracy` is that agreement; `correct_precision` the share of CORRECT verdicts that had a
  gold-bearing chunk; `decisive` the share of verdicts that are not AMBIGUOUS;
  `decisive_right` the share of those that are right (CORRECT with a gold-bearing chunk,
  INCORRECT without): the issue-style "verdicts right" figure, which an AMBIGUOUS verdict
  neither helps nor hurts, unlike `accuracy`.
- **answer_kept**: among questions with a gold answer string in the reranked top 5 chunks,
  the share whose answer string is also in what the generator read — the kept strips (local
  and web) for crag, the top 5 chunks whole for rag. Evidence refinement must not lose it.
- **near_miss** (`--near-miss`): questions whose gold unit was withheld from the index; they
  count among should-refuse above, and are reported apart as well: their refusal rate,
  found-elsewhere and hallucination rate. The evaluator's figures are then split into
  `by_group`: `answerable` (expected answers) and `near_miss`.
- **verify_cuts**: the verification cut replayed from the traces (`crag.eval.cuts`): for each
  cut, right / wrong / refused among expected-answer questions and answered among
  should-refuse ones, had the answer check used that cut.
- **latency**: p50 / p95 / mean ms per stage (trace.stages_ms) and in total (trace.total_ms).
- **calls**: model calls and prompt / completion tokens per question, in all and by role.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from statistics import fmean
from typing import Any

from crag.datasets.nearmiss import NEAR_MISS
from crag.eval.cuts import replay_cuts
from crag.eval.metrics import contains_answer, percentile, token_f1
from crag.generate.matching import short_answer
from crag.trace import Trace

__all__ = ["expects_answer", "summarize", "summarize_mode"]

VERDICTS = ("correct", "ambiguous", "incorrect")
STAGES = ("retrieve", "rerank", "evaluate", "refine", "web_search", "reflect", "generate")
RECALL_K = (1, 5, 20)


def expects_answer(record: dict[str, Any], web: bool = False) -> bool:
    """Should crag answer this question (rather than refuse)? See the module docstring."""
    if not record.get("answerable") or not record.get("answers"):
        return False
    part = record.get("part")
    return part in (None, "kb") or (part == "web" and web)


def _rate(hits: int, n: int) -> float | None:
    return hits / n if n else None


def _mean(values: Sequence[float]) -> float | None:
    return fmean(values) if values else None


def _traces(records: Sequence[dict[str, Any]]) -> list[Trace]:
    """The records' traces, typed (a stored record holds its trace as JSON)."""
    return [Trace.model_validate(r["trace"]) for r in records]


def _latency(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    per: dict[str, list[float]] = defaultdict(list)
    for trace in _traces(records):
        for stage, ms in trace.stages_ms.items():
            per[stage].append(ms)
        per["total"].append(trace.total_ms)
    order = [s for s in STAGES if s in per] + sorted(set(per) - set(STAGES) - {"total"})
    return {
        stage: {
            "n": len(per[stage]),
            "p50_ms": percentile(per[stage], 50),
            "p95_ms": percentile(per[stage], 95),
            "mean_ms": fmean(per[stage]),
        }
        for stage in [*order, "total"]
        if per.get(stage)
    }


def _calls(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(records)
    total = Counter[str]()
    by_role: dict[str, Counter[str]] = defaultdict(Counter)
    for trace in _traces(records):
        for c in trace.calls:
            for counter in (total, by_role[c.role]):
                counter["calls"] += 1
                counter["prompt_tokens"] += c.prompt_tokens
                counter["completion_tokens"] += c.completion_tokens

    def per_q(c: Counter[str]) -> dict[str, float]:
        keys = ("calls", "prompt_tokens", "completion_tokens")
        return {k: c[k] / n if n else 0.0 for k in keys}

    return {"per_question": per_q(total), "by_role": {k: per_q(v) for k, v in by_role.items()}}


def _evaluator(records: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    judged = [r for r in records if r.get("verdict")]
    if not judged:
        return None
    table = {"gold": Counter[str](), "no_gold": Counter[str]()}
    for r in judged:
        table["gold" if r.get("gold_in_context") else "no_gold"][r["verdict"]] += 1
    right = sum(table["gold"][v] for v in ("correct", "ambiguous")) + table["no_gold"]["incorrect"]
    n_correct = table["gold"]["correct"] + table["no_gold"]["correct"]
    n = len(judged)
    n_decisive = n - table["gold"]["ambiguous"] - table["no_gold"]["ambiguous"]
    return {
        "n": n,
        "verdicts": {v: table["gold"][v] + table["no_gold"][v] for v in VERDICTS},
        "confusion": {k: {v: c[v] for v in VERDICTS} for k, c in table.items()},
        "accuracy": right / n,
        "correct_precision": _rate(table["gold"]["correct"], n_correct),
        "decisive": _rate(n_decisive, n),
        "decisive_right": _rate(
            table["gold"]["correct"] + table["no_gold"]["incorrect"], n_decisive
        ),
    }


def _answers(records: Sequence[dict[str, Any]], web: bool) -> dict[str, Any]:
    yes = [r for r in records if expects_answer(r, web)]
    no = [r for r in records if not expects_answer(r, web)]
    right = [
        not r["refused"] and contains_answer(r["answer"], r["answers"], r.get("language", "en"))
        for r in yes
    ]
    short = [
        not r["refused"]
        and contains_answer(short_answer(r["answer"]), r["answers"], r.get("language", "en"))
        for r in yes
    ]
    f1 = [0.0 if r["refused"] else token_f1(r["answer"], r["answers"]) for r in yes]
    refused_no = sum(r["refused"] for r in no)
    found_no = sum(
        not r["refused"] and contains_answer(r["answer"], r["answers"], r.get("language", "en"))
        for r in no
    )
    return {
        "n_answerable": len(yes),
        "accuracy": _mean([float(x) for x in right]),
        "short_accuracy": _mean([float(x) for x in short]),
        "f1": _mean(f1),
        "over_refusal": _rate(sum(r["refused"] for r in yes), len(yes)),
        "n_unanswerable": len(no),
        "refusal_rate": _rate(refused_no, len(no)),
        "found_elsewhere": _rate(found_no, len(no)),
        "hallucination_rate": _rate(len(no) - refused_no - found_no, len(no)),
    }


def _retrieval(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    # questions whose gold passage is in the index: answerable and not split off
    indexed = [
        r for r in records if r.get("gold_unit") and r.get("answerable") and r.get("part") in
        (None, "kb")
    ]  # fmt: skip
    out: dict[str, Any] = {"n": len(indexed)}
    for k in RECALL_K:
        hits = sum(1 for r in indexed if r.get("gold_rank") and r["gold_rank"] <= k)
        out[f"recall@{k}"] = _rate(hits, len(indexed))
    seen = sum(bool(r.get("gold_in_context")) for r in indexed)
    out["gold_in_context"] = _rate(seen, len(indexed))
    return out


def _answer_kept(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    # records written before the figure existed carry neither field: left out
    found = [r for r in records if r.get("answer_in_top5")]
    kept = sum(bool(r.get("answer_kept")) for r in found)
    return {"n": len(found), "rate": _rate(kept, len(found))}


def _near_miss(ok: Sequence[dict[str, Any]], web: bool) -> dict[str, Any] | None:
    near = [r for r in ok if r.get("part") == NEAR_MISS]
    if not near:
        return None
    answerable = [r for r in ok if expects_answer(r, web)]
    return {
        "answers": _answers(near, web),
        "by_group": {"answerable": _evaluator(answerable), "near_miss": _evaluator(near)},
    }


def _web_failed(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Questions whose web search failed (crag answered without it), with the first error,
    read from the trace's web record: a run whose search backend was down measures crag
    without web correction, and must say so rather than look like a worse crag."""
    failed = [
        f"web search failed: {web['error']}"
        for r in records
        if (web := (r.get("trace") or {}).get("web")) and web.get("error")
    ]
    return {"n": len(failed), "first": failed[0] if failed else None}


def summarize_mode(records: Sequence[dict[str, Any]], web: bool = False) -> dict[str, Any]:
    ok = [r for r in records if not r.get("error")]
    out: dict[str, Any] = {
        "n": len(ok),
        "errors": len(records) - len(ok),
        "answers": _answers(ok, web),
        "answer_kept": _answer_kept(ok),
        "retrieval": _retrieval(ok),
        "evaluator": _evaluator(ok),
        "latency": _latency(ok),
        "calls": _calls(ok),
        "web_failed": _web_failed(ok),
    }
    if cuts := replay_cuts(ok, lambda r: expects_answer(r, web)):
        out["verify_cuts"] = cuts
    if near := _near_miss(ok, web):
        out["near_miss"] = near["answers"]
        if out["evaluator"]:
            out["evaluator"]["by_group"] = near["by_group"]
    # near-miss questions have their own section
    parts = sorted({r["part"] for r in ok if r.get("part") and r["part"] != NEAR_MISS})
    if parts:
        out["by_part"] = {
            p: _answers([r for r in ok if r.get("part") == p], web) for p in parts
        }  # fmt: skip
    return out


def summarize(
    records: Iterable[dict[str, Any]], modes: Sequence[str], web: bool = False
) -> dict[str, Any]:
    """Figures for each mode, over the given records (one per question and mode)."""
    by_mode: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    for r in records:
        if r.get("mode") in by_mode:
            by_mode[r["mode"]].append(r)
    return {m: summarize_mode(rs, web) for m, rs in by_mode.items()}


def finite(value: Any) -> Any:
    """NaN and infinities as None, recursively: summary.json stays valid JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value

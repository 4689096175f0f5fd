"""Graph nodes: each calls one component and records what it did in the trace.

Nodes hold no logic of their own beyond choosing inputs from the state; timing and model
calls of each stage go into `trace.stages_ms` and `trace.calls`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from crag.models.reranker import rerank
from crag.modes import Mode
from crag.pipeline.reflect_step import reflect_step
from crag.pipeline.stage import stage as _stage
from crag.pipeline.state import Components, CragState
from crag.types import Strip, Verdict

__all__ = ["make_nodes"]


def _hit(h: Any) -> dict[str, Any]:
    return {"id": h.id, "score": round(h.score, 6), "cite": h.chunk.cite(), "scores": h.scores}


def _score(value: float) -> float | None:
    """A judge score for the trace: None where the judge could not score (NaN)."""
    return None if math.isnan(value) else round(value, 4)


def _strip(s: Strip, kept: bool) -> dict[str, Any]:
    return {"chunk_id": s.chunk.id, "score": _score(s.score), "kept": kept, "text": s.text}


def _with_chunk_scores(
    strips: list[Strip], hits: list[Any], scores: list[float] | None
) -> list[Strip]:
    """Strips scored at least as high as their whole chunk: a strip's own score is read on
    fewer words, and the chunk's score is what the thresholds were chosen on."""
    by_chunk = dict(zip((h.id for h in hits), scores or [], strict=False))
    out = []
    for s in strips:
        chunk = by_chunk.get(s.chunk.id, math.nan)
        known = [v for v in (s.score, chunk) if not math.isnan(v)]
        out.append(replace(s, score=max(known)) if known else s)
    return out


def make_nodes(c: Components) -> dict[str, Callable[[CragState], dict[str, Any]]]:
    def retrieve(state: CragState) -> dict[str, Any]:
        trace = state["trace"]
        with _stage(trace, "retrieve"):
            hits = c.retriever.search(state["question"], k=c.retrieve_k)
        trace.retrieved = [_hit(h) for h in hits]
        return {"retrieved": hits}

    def rerank_node(state: CragState) -> dict[str, Any]:
        trace = state["trace"]
        with _stage(trace, "rerank"):
            if c.reranker is None:
                top = state["retrieved"][: c.rerank_k]
            else:
                top = rerank(
                    c.reranker, state["question"], state["retrieved"], c.rerank_k, c.rerank_weight
                )
        trace.reranked = [_hit(h) for h in top]
        return {"reranked": top}

    def evaluate(state: CragState) -> dict[str, Any]:
        trace = state["trace"]
        hits = state["reranked"]
        with _stage(trace, "evaluate"):
            scores = c.evaluator.score(state["question"], [h.chunk.text for h in hits])
            verdict = c.trigger.decide(scores)
        trace.evaluations = [
            {"id": h.id, "score": _score(s), "cite": h.chunk.cite()}
            for h, s in zip(hits, scores, strict=True)
        ]
        trace.verdict = verdict.value
        trace.thresholds = {"upper": c.trigger.upper, "lower": c.trigger.lower}
        return {"scores": scores, "verdict": verdict}

    def refine(state: CragState) -> dict[str, Any]:
        trace = state["trace"]
        hits = state["reranked"]
        known = {h.id: s for h, s in zip(hits, state["scores"], strict=True)}
        chunks = [h.chunk for h in hits]
        # AMBIGUOUS too reads every reranked chunk: a strip's score can sit at noise level
        # (paraphrase), and the answer check verifies whatever the answer is drawn from.
        with _stage(trace, "refine"):
            kept, scored = c.refiner.refine(state["question"], chunks, known)
        kept_ids = {s.order for s in kept}
        trace.strips = [_strip(s, s.order in kept_ids) for s in scored]
        return {"strips": kept}

    def web_search(state: CragState) -> dict[str, Any]:
        trace = state["trace"]
        scores = state.get("scores") or []
        incorrect = state.get("verdict") is Verdict.INCORRECT
        why_local = (
            f"the best retrieved passage scored "
            f"{max((s for s in scores if not math.isnan(s)), default=0.0):.2f}, below the "
            f"{c.trigger.lower:.2f} needed to trust it, and "
            if incorrect
            else "the answer from the indexed sources did not answer the question, and "
            if state.get("attempts")
            else "no retrieved passage held a relevant strip, and "
        )
        if c.web is None:
            # The user is told the truth about the sources; the missing search is a trace note.
            detail = why_local.removesuffix(", and ") if incorrect else ""
            reason = "the indexed sources do not contain the answer" + (
                f" ({detail})" if detail else ""
            )
            trace.notes.append("web search skipped: web search is not configured")
            return {"web_strips": [], "refuse_reason": reason, "web_done": True}
        with _stage(trace, "web_search"):
            outcome = c.web.correct(state["question"])
        trace.web_query = outcome.query
        trace.web = outcome.record
        update: dict[str, Any] = {"web_strips": outcome.strips, "web_done": True}
        if outcome.error:
            trace.notes.append(f"web search failed, answering without it: {outcome.error}")
            web_part = f"web search failed ({outcome.error})"
        else:
            web_part = (
                f"web search ({outcome.record.get('provider')}, query {outcome.query!r}) "
                "found nothing relevant"
            )
            if not outcome.strips:
                trace.notes.append(web_part)
        if not outcome.strips:
            update["refuse_reason"] = why_local + web_part
        return update

    def generate(state: CragState) -> dict[str, Any]:
        from langgraph.config import get_stream_writer

        trace = state["trace"]
        writer = get_stream_writer()
        verdict = state.get("verdict")
        if trace.mode == Mode.RAG:
            strips = [Strip(h.chunk.text, h.chunk, i) for i, h in enumerate(state["reranked"])]
        else:
            strips = list(state.get("strips") or []) + list(state.get("web_strips") or [])
            strips = _with_chunk_scores(strips, state.get("reranked") or [], state.get("scores"))
        with _stage(trace, "generate"):
            generated = c.generator.generate(
                state["question"],
                strips,
                refuse_reason=state.get("refuse_reason", ""),
                on_token=lambda t: writer({"token": t}),
                feedback=state.get("feedback", ""),
                # CORRECT: a NOT_FOUND gets a second look; otherwise the passage holding the
                # answer must itself reach the lower threshold (it is evidence, not topic).
                confident=verdict is Verdict.CORRECT,
                evidence_floor=None
                if trace.mode == Mode.RAG or verdict is Verdict.CORRECT
                else c.trigger.lower,
            )
        trace.notes.extend(generated.notes)
        return {"generated": generated}

    def reflect(state: CragState) -> dict[str, Any]:
        return reflect_step(c, state)

    return {
        "reflect": reflect,
        "retrieve": retrieve,
        "rerank": rerank_node,
        "evaluate": evaluate,
        "refine": refine,
        "web_search": web_search,
        "generate": generate,
    }

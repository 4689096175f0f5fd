"""Graph nodes: each calls one component and returns what it found and what it recorded.

Nodes hold no logic of their own beyond choosing inputs from the state. They read their
components from the run's context (`runtime.context`) and return a partial state update; the
trace records go out as a `TracePart` under `trace` (with the stage's time, model calls and
notes from `crag.pipeline.stage`) and the state's reducer merges them. There are two generate
nodes: `generate_from_passages` (mode rag: the reranked chunks whole) and `generate` (the
corrective modes: the kept strips, local and web); the graph wires one or the other.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Protocol

from langgraph.runtime import Runtime

from crag.headings import link_text
from crag.models.reranker import rerank
from crag.pipeline.escalate_step import escalated
from crag.pipeline.reflect_step import reflect
from crag.pipeline.stage import stage
from crag.pipeline.state import Components, CragState
from crag.refine.merge import merge_budget
from crag.titles import titled
from crag.trace import (
    CandidateRecord,
    Evaluation,
    Hit,
    StripRecord,
    Thresholds,
    TracePart,
    VerificationRecord,
    WebRecord,
    judge_score,
)
from crag.types import ScoredChunk, Strip, Verdict

__all__ = ["NODES", "NOTHING_FOUND", "Node"]

# The refusal's reason when nothing retrieved was trusted and there is no web search. It says
# what crag knows: the passages it found do not seem to answer; not that the documents lack it.
NOTHING_FOUND = "none of the passages found in the indexed sources seems to answer this"


class Node(Protocol):
    """A graph node: the state in, a partial update out; components from the run context."""

    def __call__(self, state: CragState, runtime: Runtime[Components]) -> CragState: ...


def _with_chunk_scores(
    strips: list[Strip], hits: list[ScoredChunk], scores: list[float] | None
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


def retrieve(state: CragState, runtime: Runtime[Components]) -> CragState:
    c = runtime.context
    with stage("retrieve") as log:
        hits = c.retriever.search(state["question"], k=c.retrieve_k)
    with_titles = c.titles and titled(h.chunk for h in hits)
    notes = [
        "chunks read with their document's title (and section, where known): the candidates' "
        "titles differ"
    ]
    part = TracePart(retrieved=[Hit.of(h) for h in hits], notes=notes if with_titles else [])
    return {"retrieved": hits, "titled": with_titles, "trace": log.part(part)}


def rerank_node(state: CragState, runtime: Runtime[Components]) -> CragState:
    c = runtime.context
    with stage("rerank") as log:
        if c.reranker is None:
            top = state["retrieved"][: c.rerank_k]
        else:
            top = rerank(
                c.reranker, state["question"], state["retrieved"], c.rerank_k, c.rerank_weight,
                titles=bool(state.get("titled")),
            )  # fmt: skip
    return {"reranked": top, "trace": log.part(TracePart(reranked=[Hit.of(h) for h in top]))}


def evaluate(state: CragState, runtime: Runtime[Components]) -> CragState:
    c = runtime.context
    hits = state["reranked"]
    with stage("evaluate") as log:
        # as they are, not titled: the evidence weights and the thresholds (shipped or
        # calibrated) were fitted on chunks as they are, and a title makes every chunk of a
        # document look on topic (crag.titles)
        # (a Markdown link read as its text: crag.headings.link_text); the escalation's judge
        # reads the same texts, so the two verdicts weigh the same passage
        texts = [link_text(h.chunk.text) for h in hits]
        scores = c.evaluator.score(state["question"], texts)
        verdict = c.trigger.decide(scores)
    records = TracePart(
        evaluations=[
            Evaluation(id=h.id, score=judge_score(s), cite=h.chunk.cite())
            for h, s in zip(hits, scores, strict=True)
        ],
        verdict=verdict,
        thresholds=Thresholds(upper=c.trigger.upper, lower=c.trigger.lower),
    )
    update: CragState = {"scores": scores, "verdict": verdict, "trace": log.part(records)}
    if verdict is Verdict.AMBIGUOUS and c.escalation is not None:
        return escalated(state["question"], hits, texts, scores, c.escalation, update)
    return update


def refine(state: CragState, runtime: Runtime[Components]) -> CragState:
    c = runtime.context
    hits = state["reranked"]
    known = {h.id: s for h, s in zip(hits, state["scores"], strict=True)}
    chunks = [h.chunk for h in hits]
    # AMBIGUOUS too reads every reranked chunk: a strip's score can sit at noise level
    # (paraphrase), and the answer check verifies whatever the answer is drawn from.
    with stage("refine") as log:
        # strips are ranked titled, like the reranker's order: which of them to read
        kept, scored = c.refiner.refine(
            state["question"], chunks, known, titled=bool(state.get("titled"))
        )
    kept_ids = {s.order for s in kept}
    records = TracePart(strips=[StripRecord.of(s, s.order in kept_ids) for s in scored])
    return {"strips": kept, "trace": log.part(records)}


def web_search(state: CragState, runtime: Runtime[Components]) -> CragState:
    c = runtime.context
    scores = state.get("scores") or []
    incorrect = state.get("verdict") is Verdict.INCORRECT
    escalated = state.get("escalation")
    why_local = (
        f"the generator's model judged the best retrieved passage not to answer it (P(yes) "
        f"{escalated.p_yes:.2f}, below {escalated.lower:.2f}), and "
        if incorrect and escalated is not None and escalated.p_yes is not None
        else f"the best retrieved passage scored "
        f"{max((s for s in scores if not math.isnan(s)), default=0.0):.2f}, below the "
        f"{c.trigger.lower:.2f} needed to trust it, and "
        if incorrect
        else "the answer from the indexed sources did not answer the question, and "
        if state.get("attempts")
        else "no retrieved passage held a relevant strip, and "
    )
    if c.web is None:
        # The user is told the truth about the sources (NOTHING_FOUND); the missing search is
        # a trace note.
        detail = why_local.removesuffix(", and ") if incorrect else ""
        reason = NOTHING_FOUND + (f" ({detail})" if detail else "")
        return {
            "web_strips": [],
            "refuse_reason": reason,
            "web_done": True,
            "trace": TracePart(notes=["web search skipped: web search is not configured"]),
        }
    with stage("web_search") as log:
        outcome = c.web.correct(state["question"])
    notes = []
    if outcome.error:
        notes.append(f"web search failed, answering without it: {outcome.error}")
        web_part = f"web search failed ({outcome.error})"
    else:
        provider = outcome.record.provider
        web_part = f"web search ({provider}, query {outcome.query!r}) found nothing relevant"
        if not outcome.strips:
            notes.append(web_part)
    local, web_strips, record = _merged(state, c.merged_top_k, outcome.strips, outcome.record)
    update: CragState = {"web_strips": web_strips, "web_done": True}
    fields: dict[str, Any] = {"web_query": outcome.query, "web": record}
    if len(local) < len(state.get("strips") or []) or len(web_strips) < len(outcome.strips):
        kept = {(s.chunk.id, s.text) for s in local}
        fields["strips"] = [
            r.model_copy(update={"kept": r.kept and (r.chunk_id, r.text) in kept})
            for r in state["trace"].strips
        ]
        update["strips"] = local
        notes.append(f"read the best {c.merged_top_k} strips, local and web together: "
                     f"{len(local)} local, {len(web_strips)} web")  # fmt: skip
    update["trace"] = log.part(TracePart(notes=notes, **fields))
    if not outcome.strips:
        update["refuse_reason"] = why_local + web_part
    return update


def _merged(
    state: CragState, k: int, web: list[Strip], record: WebRecord
) -> tuple[list[Strip], list[Strip], WebRecord]:
    """The kept local and web strips under the reading budget `k` (crag.refine.merge), and the
    web record with the web strips left out marked as not kept."""
    local = list(state.get("strips") or [])
    local, chosen = merge_budget(local, web, k)
    if len(chosen) == len(web):
        return local, web, record
    read = {s.text for s in chosen}
    strips = [w.model_copy(update={"kept": w.kept and w.text in read}) for w in record.strips]
    return local, chosen, record.model_copy(update={"strips": strips})


def _generate(
    state: CragState,
    runtime: Runtime[Components],
    strips: list[Strip],
    evidence_floor: float | None,
    reread: bool = False,
) -> CragState:
    c = runtime.context
    writer = runtime.stream_writer
    with stage("generate") as log:
        generated = c.generator.generate(
            state["question"],
            strips,
            refuse_reason=state.get("refuse_reason", ""),
            on_token=lambda t: writer({"token": t}),
            feedback=state.get("feedback", ""),
            # CORRECT: a NOT_FOUND gets a second look
            confident=state.get("verdict") is Verdict.CORRECT,
            evidence_floor=evidence_floor,
            reread=reread,
            titled=bool(state.get("titled")),
        )
    readings = [
        CandidateRecord(
            short=k.short,
            reading=k.reading,
            source=k.source,
            alignment=round(k.alignment, 4),
            probs=list(k.probs),
        )
        for k in generated.candidates
    ]
    verified = [
        VerificationRecord(
            short=v.short, source=v.source, p_yes=judge_score(v.p_yes), cut=v.cut, passed=v.passed
        )
        for v in generated.verifications
    ]
    part = TracePart(
        notes=list(generated.notes),
        candidates=readings,
        read_alone=generated.read_alone,
        verifications=verified,
    )
    return {"generated": generated, "trace": log.part(part)}


def generate_from_passages(state: CragState, runtime: Runtime[Components]) -> CragState:
    """Mode rag: the reranked chunks, whole and unjudged."""
    strips = [Strip(h.chunk.text, h.chunk, i) for i, h in enumerate(state["reranked"])]
    return _generate(state, runtime, strips, None)


def generate(state: CragState, runtime: Runtime[Components]) -> CragState:
    """The corrective modes: the kept strips, local and web. Unless the evaluator's own
    verdict was CORRECT, the answer is verified against the passage holding it (it is
    evidence, not topic). The best sources are also read one at a time (crag.generate.reader)."""
    strips = list(state.get("strips") or []) + list(state.get("web_strips") or [])
    strips = _with_chunk_scores(strips, state.get("reranked") or [], state.get("scores"))
    # An escalated CORRECT is still verified: its judge read the passage, not the span the
    # reader takes from it (on the SQuAD tuning runs it let "Dave Logan" through unverified)
    unverified = state.get("verdict") is Verdict.CORRECT and state.get("escalation") is None
    floor = None if unverified else runtime.context.trigger.lower
    return _generate(state, runtime, strips, floor, reread=True)


NODES: dict[str, Node] = {
    "retrieve": retrieve,
    "rerank": rerank_node,
    "evaluate": evaluate,
    "refine": refine,
    "web_search": web_search,
    "generate": generate,
    "generate_from_passages": generate_from_passages,
    "reflect": reflect,
}

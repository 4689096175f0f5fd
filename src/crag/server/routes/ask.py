"""`POST /v1/ask`: a question in, a cited answer with verdict and trace out — whole, or as
server-sent events (`node` as each graph node finishes, `token` as the answer is written,
`answer` with the checked answer last; `error` instead if it fails mid-way).

The `token` events are the generator's draft, less the model's NOT_FOUND marker (held back
by `Pipeline.stream` while the draft could still be it: crag.generate.marker). The `answer`
event is authoritative: the check that runs on the finished draft may drop a sentence or turn
it into a refusal, and a client replaces what it showed of the draft with that event's `answer`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import asdict
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse

from crag.followup import Turn, ask_followup, followups_for, stream_followup
from crag.modes import Mode
from crag.pipeline.filtered import filtered
from crag.server.deps import RuntimeDep, require_key
from crag.server.errors import Conflict, error_response
from crag.server.routes.search import filter_of
from crag.server.runtime import Runtime
from crag.server.schemas import AskRequest, AskResponse, CitationOut
from crag.server.sse import PING, event, jsonable
from crag.types import Answer

__all__ = ["answer_out", "checked_question", "router"]

router = APIRouter(prefix="/v1", tags=["ask"], dependencies=[Depends(require_key)])

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
BUSY: dict[int | str, dict[str, Any]] = {
    503: {"description": "Busy: the queue is full. Retry after `Retry-After` seconds."},
    401: {"description": "Missing or invalid API key."},
}


def checked_question(question: str, rt: Runtime) -> str:
    from crag.errors import CragError

    question = question.strip()
    limit = rt.settings.server.max_question_chars
    if not question:
        raise CragError("question: empty; ask something")
    if len(question) > limit:
        raise CragError(
            f"question: {len(question)} characters, over server.max_question_chars={limit}"
        )
    return question


def ensure_not_empty(rt: Runtime) -> None:
    if rt.index.count() == 0:
        raise Conflict(
            f"collection {rt.index.collection!r} is empty; upload documents first "
            "(POST /v1/documents)"
        )


def answer_out(answer: Answer, mode: Mode, trace: bool = True) -> AskResponse:
    return AskResponse(
        question=answer.question,
        mode=mode,
        answer=answer.text,
        citations=[CitationOut.model_validate(asdict(c)) for c in answer.citations],
        verdict=answer.verdict,
        refused=answer.refused,
        reason=answer.reason,
        flags=list(answer.flags),
        trace=answer.trace if trace else None,
    )


async def _sse(
    request: Request, events: AsyncIterator[Any], mode: Mode, trace: bool
) -> AsyncIterator[bytes]:
    try:  # tokens come with the model's NOT_FOUND marker removed (Pipeline.stream)
        async for item in events:
            if item is None:
                yield PING
            elif item[0] == "node":
                yield event("node", {"node": item[1], "update": jsonable(item[2])})
            elif item[0] == "rewrite":
                r = item[1]
                yield event("rewrite", {"question": r.question, "original": r.original})
            elif item[0] == "token":
                yield event("token", {"text": item[1]})
            elif item[0] == "answer":
                yield event("answer", answer_out(item[1], mode, trace).model_dump(mode="json"))
    except Exception as exc:
        yield event("error", bytes(error_response(request, exc).body).decode())


@router.post(
    "/ask",
    response_model=AskResponse,
    responses={
        **BUSY,
        200: {
            "description": "The answer; with `stream: true`, server-sent events instead.",
            "content": {"text/event-stream": {}},
        },
    },
)
async def ask(request: Request, body: AskRequest, rt: RuntimeDep) -> Any:
    """Answer a question from the indexed documents, citing every claim."""
    if body.collection and rt.collections is not None:
        rt = await asyncio.to_thread(rt.collections.get, body.collection)
    question = checked_question(body.question, rt)
    where = filter_of(body.where)
    pipeline = filtered(rt.pipeline_for(body.options.top_k, body.options.rerank_k), where)
    await asyncio.to_thread(ensure_not_empty, rt)
    history = [Turn(t.question, t.answer) for t in body.history]
    followups = followups_for(pipeline)
    if not body.stream:
        answer = await rt.run(
            lambda: ask_followup(pipeline, followups, question, history, body.mode)
        )
        return answer_out(answer, body.mode, body.options.trace)
    events = await rt.open_stream(
        lambda: stream_followup(pipeline, followups, question, history, body.mode)
    )
    return StreamingResponse(
        _sse(request, events, body.mode, body.options.trace),
        media_type="text/event-stream",
        headers=SSE_HEADERS,
    )

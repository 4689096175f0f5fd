"""The OpenAI chat protocol, so chat UIs and SDKs can use crag as a model.

`POST /v1/chat/completions` with model `crag` (corrective) or `rag` (baseline) answers the
last user message from the indexed documents. Earlier turns make a follow-up standalone
before retrieval ("and when did it open?" → "When did the bridge open?", `crag.followup`);
the rewrite is in the trace. A model name `crag:NAME` asks collection NAME. The message text
is the answer followed by its numbered sources; the verdict, citations and trace ride along
in an extension member `crag`, which the SDKs keep (`completion.model_extra["crag"]` in Python).

Streaming sends `chat.completion.chunk` events and `data: [DONE]`, with ONE answer: the
checked one, cut into a few words per delta once the check has run (`: ping` comments keep the
connection open meanwhile). Why not the draft's tokens as they come: the OpenAI stream is
append-only — a client shows the concatenation of the deltas as the message, and nothing in
the protocol retracts text already sent. The check that runs on the finished draft may drop
a sentence or turn the draft into a refusal, so a streamed draft was either left standing
when wrong or followed by a second, checked copy (chat UIs showed the answer twice). Sending
the checked text only makes the streamed message equal, character for character, to the
non-streamed `message.content`; the cost is that the first words arrive when the answer is
ready rather than while it is written. (`/v1/ask` streams the draft, and its final event is
authoritative: a client of that endpoint is told to replace the draft.)
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import asdict
from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import JSONResponse, StreamingResponse

from crag.errors import CragError
from crag.followup import Turn, ask_followup, followups_for, stream_followup
from crag.modes import Mode
from crag.server.deps import RuntimeDep, require_key
from crag.server.errors import error_response
from crag.server.routes.ask import BUSY, SSE_HEADERS, checked_question, ensure_not_empty
from crag.server.schemas import ChatRequest
from crag.server.sse import PING, event
from crag.server.tokens import pieces
from crag.types import Answer

__all__ = ["MODELS", "router"]

router = APIRouter(prefix="/v1", tags=["openai"], dependencies=[Depends(require_key)])

PING_S = 10.0  # seconds without a write before a `: ping` comment
# model id -> pipeline mode
MODELS = {m.value: m for m in Mode}
_CREATED = int(time.time())


@router.get("/models")
def models(rt: RuntimeDep) -> dict[str, Any]:
    """The models this service offers, in the OpenAI list format: each mode, and each mode
    over each other collection as `MODE:COLLECTION`."""
    names = list(MODELS)
    if rt.collections is not None:
        others = [c for c in rt.collections.names() if c != rt.collections.default]
        names += [f"{mode}:{c}" for c in others for mode in MODELS]
    return {
        "object": "list",
        "data": [
            {"id": name, "object": "model", "created": _CREATED, "owned_by": "crag"}
            for name in names
        ],
    }


def message_text(answer: Answer) -> str:
    if not answer.citations:
        return answer.text
    listing = "\n".join(f"[{c.n}] {c.label}" for c in answer.citations)
    return f"{answer.text}\n\nSources:\n{listing}"


def extension(answer: Answer, mode: str) -> dict[str, Any]:
    """crag's fields beside OpenAI's: the same as `/v1/ask`'s."""
    return {
        "mode": mode,
        "verdict": answer.verdict.value if answer.verdict else None,
        "refused": answer.refused,
        "reason": answer.reason,
        "citations": [asdict(c) for c in answer.citations],
        "trace": answer.trace.to_dict(),
    }


def usage(answer: Answer) -> dict[str, int]:
    """Tokens of every model call the question made (the judge's included), not just the
    answer's: that is what it cost."""
    prompt = sum(c.prompt_tokens for c in answer.trace.calls)
    completion = sum(c.completion_tokens for c in answer.trace.calls)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _question(body: ChatRequest) -> str:
    for message in reversed(body.messages):
        if message.role == "user":
            return message.text()
    raise CragError("messages: no user message; the last user message is the question")


def _history(body: ChatRequest) -> list[Turn]:
    """Earlier user/assistant exchanges before the last user message (system messages and
    tool calls are left out)."""
    messages = [m for m in body.messages if m.role in ("user", "assistant")]
    last = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    turns: list[Turn] = []
    for m in messages[: max(last, 0)]:
        if m.role == "user":
            turns.append(Turn(m.text(), ""))
        elif turns:
            turns[-1] = Turn(turns[-1].question, m.text())
    return turns


def _mode(body: ChatRequest) -> tuple[Mode, str | None]:
    """(mode, collection) from a model name: `crag`, or `crag:notes` for collection notes."""
    name, _, collection = body.model.partition(":")
    if name not in MODELS:
        raise HTTPException(
            404,
            f"model {body.model!r} does not exist; use one of {sorted(MODELS)}, "
            f"optionally with ':COLLECTION' (e.g. '{Mode.CRAG}:notes')",
        )
    return MODELS[name], collection or None


@router.post(
    "/chat/completions",
    responses={
        **BUSY,
        200: {
            "description": "A chat.completion; with `stream: true`, chat.completion.chunk events.",
            "content": {"text/event-stream": {}},
        },
    },
)
async def chat_completions(request: Request, body: ChatRequest, rt: RuntimeDep) -> Any:
    """Answer the last user message; OpenAI chat-completions format (streaming too)."""
    mode, collection = _mode(body)
    if collection and rt.collections is not None:
        rt = await asyncio.to_thread(rt.collections.get, collection)
    question = checked_question(_question(body), rt)
    history = _history(body)
    followups = followups_for(rt.pipeline)
    await asyncio.to_thread(ensure_not_empty, rt)
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    created = int(time.time())
    if not body.stream:
        answer = await rt.run(lambda: ask_followup(rt.pipeline, followups, question, history, mode))
        return JSONResponse(
            {
                "id": completion_id,
                "object": "chat.completion",
                "created": created,
                "model": body.model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": message_text(answer)},
                        "finish_reason": "stop",
                    }
                ],
                "usage": usage(answer),
                "crag": extension(answer, mode),
            }
        )
    events = await rt.open_stream(
        lambda: stream_followup(rt.pipeline, followups, question, history, mode)
    )
    include_usage = bool(body.stream_options and body.stream_options.include_usage)
    chunks = _chunks(request, events, completion_id, created, body.model, mode, include_usage)
    return StreamingResponse(chunks, media_type="text/event-stream", headers=SSE_HEADERS)


async def _chunks(
    request: Request,
    events: AsyncIterator[Any],
    completion_id: str,
    created: int,
    model: str,
    mode: str,
    include_usage: bool,
) -> AsyncIterator[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        body = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
        return event(None, body)

    yield chunk({"role": "assistant", "content": ""})
    quiet = time.monotonic()
    try:
        async for item in events:
            if item is None or time.monotonic() - quiet >= PING_S:
                # keep-alive, also while draft tokens flow unsent: proxies stay open, and a
                # client that left is noticed (and its question stopped) at the next write
                quiet = time.monotonic()
                yield PING
            # draft tokens and node updates are not sent (see the module docstring)
            if item is not None and item[0] == "answer":
                answer: Answer = item[1]
                for piece in pieces(message_text(answer)):
                    yield chunk({"content": piece})
                yield chunk({}, "stop", crag=extension(answer, mode))
                if include_usage:
                    body = {
                        "id": completion_id,
                        "object": "chat.completion.chunk",
                        "created": created,
                        "model": model,
                        "choices": [],
                        "usage": usage(answer),
                    }
                    yield event(None, body)
    except Exception as exc:
        yield event(None, bytes(error_response(request, exc).body).decode())
    yield b"data: [DONE]\n\n"

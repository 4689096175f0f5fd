"""The OpenAI endpoint's request parsing: `MODE:COLLECTION` model names and the history of
earlier turns before the last user message."""

from __future__ import annotations

import pytest
from fastapi import HTTPException

from crag.server.routes.chat import _history, _mode
from crag.server.schemas import ChatRequest


def _body(model: str = "crag", messages: list[dict] | None = None) -> ChatRequest:
    return ChatRequest(model=model, messages=messages or [{"role": "user", "content": "hi"}])


def test_model_names_pick_mode_and_collection() -> None:
    assert _mode(_body("crag")) == ("crag", None)
    assert _mode(_body("rag:notes")) == ("rag", "notes")
    assert _mode(_body("self-crag:a.b")) == ("self-crag", "a.b")
    with pytest.raises(HTTPException) as caught:
        _mode(_body("gpt-4:notes"))
    assert caught.value.status_code == 404 and "crag:notes" in caught.value.detail


def test_history_is_the_exchanges_before_the_last_question() -> None:
    body = _body(
        messages=[
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "Who built the lighthouse?"},
            {"role": "assistant", "content": "Sostratus [1].\n\nSources:\n[1] l.txt"},
            {"role": "user", "content": [{"type": "text", "text": "and when?"}]},
        ]
    )
    turns = _history(body)
    assert [(t.question, t.answer) for t in turns] == [
        ("Who built the lighthouse?", "Sostratus [1].\n\nSources:\n[1] l.txt")
    ]
    assert _history(_body()) == []

"""Server-sent events: the wire format, and node updates made JSON.

An event is `event: NAME` + `data: JSON` + a blank line; a line starting with `:` is a comment
(used as a keep-alive ping so proxies do not close a stream while the judge is thinking).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, is_dataclass
from enum import Enum
from typing import Any

from pydantic import BaseModel

from crag.types import ScoredChunk, Strip

__all__ = ["PING", "event", "jsonable"]

PING = b": ping\n\n"


def event(name: str | None, data: Any) -> bytes:
    """One SSE event; `data` is JSON-encoded on one line (JSON escapes newlines). A string is
    sent as it is, one `data:` line per line of it (a client joins them back with "\n"), so
    no line break inside it can end the event early or start a field of its own."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    head = f"event: {_one_line(name)}\n" if name else ""
    body = "".join(f"data: {line}\n" for line in _LINE_BREAK.split(payload))
    return f"{head}{body}\n".encode()


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _one_line(name: str) -> str:
    return _LINE_BREAK.sub(" ", name)


def jsonable(value: Any, depth: int = 0) -> Any:
    """A JSON-ready summary of a graph node's update: chunks as id/score/citation, strips with
    their text, the generated answer without its sources (the final `answer` event has them)."""
    if depth > 6:
        return repr(value)
    if isinstance(value, ScoredChunk):
        return {"id": value.id, "score": round(value.score, 6), "cite": value.chunk.cite()}
    if isinstance(value, Strip):
        return {"chunk_id": value.chunk.id, "score": round(value.score, 4), "text": value.text}
    if isinstance(value, BaseModel):  # a trace part
        return value.model_dump(mode="json")
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v, depth + 1) for v in value]
    if isinstance(value, float):
        return round(value, 6)
    if value is None or isinstance(value, str | int | bool):
        return value
    if is_dataclass(value) and not isinstance(value, type):
        fields = {k: v for k, v in asdict(value).items() if k not in ("sources",)}
        return jsonable(fields, depth + 1)
    return repr(value)

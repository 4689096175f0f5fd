"""Reading structured answers out of what models actually write.

Asking for JSON (a schema, Ollama's `format`, OpenAI's `response_format`) is the first line of
defence; this is the second, because many servers ignore the request and small models wrap
JSON in code fences, add a sentence before it, think aloud in `<think>` tags, answer "Yes." or
"Yes, because …", or write "0.8" or "8/10". Each parser returns `None` when it cannot tell —
never a default that quietly picks one side — so the caller can retry and, failing that, say
"unknown" out loud. (Peers that map a parse failure to "not relevant" silently disable
their corrective branch.)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "JUDGEMENT_SCHEMA",
    "ReasoningFilter",
    "extract_json",
    "parse_judgement",
    "strip_reasoning",
    "without_reasoning",
]

# What the judge asks for when it cannot read log-probabilities: constrained to two values.
JUDGEMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
    "required": ["answer"],
    "additionalProperties": False,
}

_THINK = re.compile(r"<(think|thinking|reasoning)>.*?(</\1>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_YES = {"yes", "y", "true", "evet", "relevant", "answerable", "correct"}
_NO = {"no", "n", "false", "hayır", "hayir", "irrelevant", "unanswerable", "incorrect"}
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_NUMBER = re.compile(
    r"^\s*(?:score\s*[:=]\s*)?(\d+(?:[.,]\d+)?|[.,]\d+)\s*(%|/\s*(?:10|100|5|1)\b)?", re.IGNORECASE
)
_KEYS = ("answer", "answerable", "relevant", "relevance", "score", "judgement", "judgment",
         "verdict", "result", "label", "cevap", "yanıt")  # fmt: skip


def without_reasoning(text: str) -> str:
    """`text` minus a leading `<think>…</think>` block; unchanged when it has none."""
    if not text.lstrip().startswith(ReasoningFilter._OPEN):
        return text
    return strip_reasoning(text)


def strip_reasoning(text: str) -> str:
    """Drop `<think>…</think>` blocks (reasoning models) and surrounding whitespace."""
    return _THINK.sub(" ", text).strip()


class ReasoningFilter:
    """Pass streamed text on, holding back a leading `<think>…</think>` block.

    Reasoning models served raw (DeepSeek-R1 on some hosts, older Ollama) stream their
    thinking inside the answer; the user should see the answer, and the generator's checks
    should read only the answer.
    """

    _OPEN = ("<think>", "<thinking>", "<reasoning>")

    def __init__(self, on_token: Callable[[str], None]) -> None:
        self.on_token = on_token
        self._buffer = ""
        self._state = "start"  # start -> (thinking ->) passing

    def __call__(self, piece: str) -> None:
        if self._state == "passing":
            self.on_token(piece)
            return
        self._buffer += piece
        if self._state == "start":
            head = self._buffer.lstrip()
            if any(head.startswith(tag) for tag in self._OPEN):
                self._state = "thinking"
            elif any(tag.startswith(head) for tag in self._OPEN) and head:
                return  # could still become a tag
            elif not head:
                return
            else:
                self._state = "passing"
                self.on_token(self._buffer)
                self._buffer = ""
                return
        close = re.search(r"</(think|thinking|reasoning)>", self._buffer)
        if close:
            rest = self._buffer[close.end() :].lstrip()
            self._state, self._buffer = "passing", ""
            if rest:
                self.on_token(rest)

    def flush(self) -> None:
        """End of stream: text held back that never became a tag is passed on."""
        if self._state == "start" and self._buffer:
            self.on_token(self._buffer)
        self._buffer = ""


def extract_json(text: str) -> Any | None:
    """The first JSON value in `text`: whole, inside a code fence, or embedded in prose.

    A truncated object (`{"answer": "yes"`) is closed and tried once more. None if nothing
    parses.
    """
    text = strip_reasoning(text)
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        candidate = candidate.strip()
        for attempt in (candidate, candidate + "}", candidate + '"}'):
            try:
                return json.loads(attempt)
            except ValueError:
                pass
        for match in re.finditer(r"[\[{]", candidate):
            try:
                value, _ = decoder.raw_decode(candidate, match.start())
                return value
            except ValueError:
                continue
    return None


def _from_value(value: Any) -> float | None:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return _scaled(float(value), "")
    if isinstance(value, str):
        return _from_text(value)
    if isinstance(value, dict):
        lowered = {str(k).lower(): v for k, v in value.items()}
        for key in _KEYS:
            if key in lowered:
                return _from_value(lowered[key])
        if len(value) == 1:
            return _from_value(next(iter(value.values())))
    if isinstance(value, list) and len(value) == 1:
        return _from_value(value[0])
    return None


def _scaled(number: float, scale: str) -> float | None:
    scale = scale.replace(" ", "")
    if scale == "%" or scale == "/100":
        number /= 100
    elif scale.startswith("/"):
        number /= float(scale[1:])
    return number if 0.0 <= number <= 1.0 else None


def _from_text(text: str) -> float | None:
    text = text.strip().strip("*_`\"' ").strip()
    if not text:
        return None
    number = _NUMBER.match(text)
    if number:
        rest = text[number.end() :].strip()
        if not rest or not _WORD.match(rest) or rest.lower().startswith(("out of", "of")):
            return _scaled(float(number.group(1).replace(",", ".")), number.group(2) or "")
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return None
    opposite = _NO if words[0] in _YES else _YES
    hedged = len(words) > 1 and (words[1] == "or" or words[1] in opposite)  # "yes or no"
    if words[0] in _YES and not hedged:
        return 1.0
    if (words[0] in _NO and not hedged) or words[:2] == ["not", "relevant"]:
        return 0.0
    # "The answer is yes." / "I think no": exactly one side named, and not negated
    yes = any(w in _YES for w in words)
    no = any(w in _NO for w in words) or "not relevant" in text.lower()
    if yes != no and len(words) <= 12 and not hedged:
        return 1.0 if yes else 0.0
    return None


def parse_judgement(text: str) -> float | None:
    """A yes/no or 0–1 judgement in [0, 1] from a model's reply; None if it says neither.

    Accepts `{"answer": "yes"}` (also `relevant`, `score`, booleans, Turkish `evet`/`hayır`),
    the same inside fences or prose, a bare "Yes." / "no, because …", "0.8", "80%", "8/10".
    Refusals and replies that name both sides are None.
    """
    text = strip_reasoning(text)
    if not text:
        return None
    if "{" in text or "[" in text:
        value = extract_json(text)
        if value is not None:
            judged = _from_value(value)
            if judged is not None:
                return judged
    return _from_text(text)

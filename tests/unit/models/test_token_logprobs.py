"""Each generated token's log-probability: asked for, read from completions and streams."""

from __future__ import annotations

import math
from typing import Any

from crag.models.llm import ChatRequest
from crag.models.llm.wire import StreamFold, openai_body, parse_completion, token_logprobs

_CONTENT: list[dict[str, Any]] = [
    {"token": "18", "logprob": -0.1, "top_logprobs": []},
    {"token": "89", "logprob": -0.7, "top_logprobs": []},
    {"token": " [", "logprob": 0.0},
    {"token": "broken"},  # no logprob: skipped
]


def test_a_request_for_token_logprobs_asks_for_one_alternative() -> None:
    body = openai_body(ChatRequest.of("s", "u", logprobs=True), stream=False)
    assert body["logprobs"] is True and body["top_logprobs"] == 1
    judge = openai_body(ChatRequest.of("s", "u", top_logprobs=10), stream=False)
    assert judge["top_logprobs"] == 10
    assert "logprobs" not in openai_body(ChatRequest.of("s", "u"), stream=False)
    off = openai_body(ChatRequest.of("s", "u", logprobs=True), stream=False, logprobs=False)
    assert "logprobs" not in off  # a server known to reject the parameter


def test_completion_and_stream_give_the_same_tokens() -> None:
    expected = (("18", -0.1), ("89", -0.7), (" [", 0.0))
    assert token_logprobs(_CONTENT) == expected
    assert token_logprobs(None) == ()
    response = {"choices": [{"message": {"content": "1889 ["}, "logprobs": {"content": _CONTENT}}]}
    assert parse_completion(response, "m").token_logprobs == expected
    fold = StreamFold(lambda _t: None)
    for entry in _CONTENT:
        fold.feed({"choices": [{"delta": {"content": entry["token"]},
                                "logprobs": {"content": [entry]}}]})  # fmt: skip
    result = fold.result("m")
    assert result.token_logprobs == expected
    assert math.isclose(result.first_token_logprobs["18"], -0.1)

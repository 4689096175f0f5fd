"""Providers against a real misbehaving HTTP server on 127.0.0.1 (tests/servers/faulty.py).

Each fault asserts what a user or the pipeline observes: the error class and message (which
provider, which model, what to do), how many requests the server saw and what reached the
caller. The judge's faults are in `test_judge_faults.py`. No model is loaded; the servers are
real sockets.
"""

from __future__ import annotations

import socket
import time

import pytest
from tests.servers.faulty import FaultyAPI, malformed, reply, sleep, status, stream
from tests.servers.loopback import serve
from tests.support.fault_clients import ollama_client, openai_client

from crag.errors import (
    LLMAuthError,
    LLMRateLimitError,
    LLMRequestError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
    LLMUnavailableError,
)
from crag.models.llm import (
    ChatRequest,
    OllamaLLM,
    OpenAICompatLLM,
    RoleLLM,
    recording_calls,
)

pytestmark = pytest.mark.slow  # starts servers (no model: each test takes about a second)

ASK = ChatRequest.of("Be brief.", "Say yes.", max_tokens=8)
SECRET = "sk-test-0123456789abcdef-do-not-print"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("make", [openai_client, ollama_client])
def test_server_down_names_provider_model_and_what_to_do(make) -> None:
    llm = make(f"http://127.0.0.1:{_free_port()}", max_retries=1)
    started = time.perf_counter()
    with pytest.raises(LLMUnavailableError) as caught:
        llm.chat(ASK)
    message = str(caught.value)
    assert llm.provider in message and llm.name in message and "cannot connect" in message
    assert "gave up after 2 attempts" in message
    assert caught.value.provider == llm.provider and caught.value.model == llm.name
    assert time.perf_counter() - started < 5  # one short backoff, no hang
    if llm.provider == "ollama":
        assert "ollama serve" in message
    assert not llm.check().ok


def test_timeout_is_retried_then_reported() -> None:
    with serve(FaultyAPI, default=sleep(3.0)) as server:
        llm = openai_client(server.url, timeout=0.4, max_retries=1)
        with pytest.raises(LLMTimeoutError) as caught:
            llm.chat(ASK)
        assert len(server.state["requests"]) == 2
    assert "within 0.4 s" in str(caught.value) and "timeout" in str(caught.value)


@pytest.mark.parametrize("make", [openai_client, ollama_client])
def test_429_then_success_honours_retry_after(make) -> None:
    steps = [status(429, "slow down", {"Retry-After": "1"}), reply("Yes")]
    with serve(FaultyAPI, steps=steps) as server:
        llm = RoleLLM("grader", make(server.url))
        started = time.perf_counter()
        with recording_calls() as calls:
            result = llm.chat(ASK)
        waited = time.perf_counter() - started
        assert len(server.state["requests"]) == 2
    assert result.text == "Yes" and result.attempts == 2
    assert waited >= 0.95  # the server's Retry-After, not the 0.5 s backoff
    assert calls[0].attempts == 2 and calls[0].provider == llm.provider
    assert calls[0].prompt_tokens == 11 and calls[0].completion_tokens == 3


def test_429_forever_is_a_rate_limit_error() -> None:
    with serve(FaultyAPI, default=status(429, "quota", {"Retry-After": "0"})) as server:
        with pytest.raises(LLMRateLimitError) as caught:
            openai_client(server.url, max_retries=2).chat(ASK)
        assert len(server.state["requests"]) == 3
    assert "HTTP 429: quota" in str(caught.value)


@pytest.mark.parametrize("make", [openai_client, ollama_client])
def test_500_is_retried_a_bounded_number_of_times(make) -> None:
    with serve(FaultyAPI, default=status(500, "CUDA out of memory")) as server:
        with pytest.raises(LLMServerError) as caught:
            make(server.url, max_retries=2).chat(ASK)
        assert len(server.state["requests"]) == 3
    message = str(caught.value)
    assert "HTTP 500: CUDA out of memory" in message and "gave up after 3 attempts" in message
    assert caught.value.status == 500


def test_500_then_success_streams_normally() -> None:
    with serve(FaultyAPI, steps=[status(503), stream(["Hel", "lo"])]) as server:
        pieces: list[str] = []
        result = openai_client(server.url).stream(ASK, pieces.append)
    assert pieces == ["Hel", "lo"] and result.text == "Hello" and result.attempts == 2
    assert result.completion_tokens == 2


@pytest.mark.parametrize("make", [openai_client, ollama_client])
@pytest.mark.parametrize("how", ["cut", "no_end"])
def test_truncated_stream_is_an_error_after_the_tokens_it_delivered(make, how) -> None:
    step = stream(["The ", "answer ", "is"], cut=how == "cut", finish=False)
    with serve(FaultyAPI, default=step) as server:
        pieces: list[str] = []
        with pytest.raises(LLMResponseError) as caught:
            make(server.url).stream(ASK, pieces.append)
        assert len(server.state["requests"]) == 1  # not retried: tokens were already shown
    assert pieces == ["The ", "answer ", "is"]
    assert "incomplete" in str(caught.value)


@pytest.mark.parametrize("make", [openai_client, ollama_client])
def test_streams_deliver_pieces_and_usage(make) -> None:
    with serve(FaultyAPI, default=stream(["a", "b", "c"])) as server:
        pieces: list[str] = []
        result = make(server.url).stream(ASK, pieces.append)
        body = server.state["requests"][0]["body"]
    assert pieces == ["a", "b", "c"] and result.text == "abc"
    assert result.prompt_tokens == 9 and result.completion_tokens == 3
    assert body["stream"] is True


@pytest.mark.parametrize("make", [openai_client, ollama_client])
def test_malformed_json_body_and_stream_line(make) -> None:
    with serve(FaultyAPI, default=malformed()) as server, pytest.raises(LLMResponseError) as caught:
        make(server.url).chat(ASK)
    assert "malformed JSON" in str(caught.value) and "tiny" in str(caught.value)
    bad_line = stream(["ok"], bad_line=True)
    with (
        serve(FaultyAPI, default=bad_line) as server,
        pytest.raises(LLMResponseError, match="JSON"),
    ):
        make(server.url).stream(ASK, lambda _: None)


def test_not_an_openai_server() -> None:
    hello = serve(FaultyAPI, default=lambda h, b: h.send_json(200, {"hello": "world"}))
    with hello as server, pytest.raises(LLMResponseError, match="OpenAI-compatible"):
        openai_client(server.url).chat(ASK)


def test_unknown_ollama_model_says_pull() -> None:
    with serve(FaultyAPI, default=status(404, "model 'tiny:1b' not found")) as server:
        llm = ollama_client(server.url)
        with pytest.raises(LLMRequestError) as caught:
            llm.chat(ASK)
        assert len(server.state["requests"]) == 1  # a 404 is not retried
    assert "ollama pull tiny:1b" in str(caught.value)


def test_key_goes_only_in_the_header_and_never_into_messages(monkeypatch) -> None:
    monkeypatch.setenv("CRAG_TEST_KEY", SECRET)
    echo = status(401, f"Incorrect API key provided: {SECRET}")
    with serve(FaultyAPI, default=echo) as server:
        llm = openai_client(server.url, api_key_env="CRAG_TEST_KEY")
        with pytest.raises(LLMAuthError) as caught:
            llm.chat(ASK)
        sent = server.state["requests"][0]["headers"]
    assert sent.get("Authorization") == f"Bearer {SECRET}"
    assert SECRET not in str(caught.value) and SECRET not in repr(llm)
    assert SECRET not in repr(llm._http) and "CRAG_TEST_KEY" in str(caught.value)
    assert len(server.state["requests"]) == 1  # a 401 is not retried


def test_a_key_is_not_sent_to_a_host_it_does_not_belong_to(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with serve(FaultyAPI) as server:
        openai_client(server.url).chat(ASK)
        sent = server.state["requests"][0]["headers"]
    assert "Authorization" not in sent


def test_missing_key_fails_before_sending(monkeypatch) -> None:
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    with serve(FaultyAPI) as server:
        llm = OpenAICompatLLM("llama", base_url=server.url, api_key_env="GROQ_API_KEY")
        with pytest.raises(LLMAuthError, match=r"\$GROQ_API_KEY is not set"):
            llm.chat(ASK)
        assert server.state.get("requests", []) == []
        assert "GROQ_API_KEY is not set" in llm.check().detail


def test_health_checks_against_the_wire() -> None:
    tags = {"models": [{"name": "tiny:1b"}]}
    with serve(FaultyAPI, default=lambda h, b: h.send_json(200, tags)) as server:
        assert ollama_client(server.url).check().ok
        missing = OllamaLLM("other", base_url=server.url).check()
        assert not missing.ok and "ollama pull other" in missing.detail
    listing = {"object": "list", "data": [{"id": "tiny"}]}
    with serve(FaultyAPI, default=lambda h, b: h.send_json(200, listing)) as server:
        assert openai_client(server.url).check().ok
        assert server.state["requests"][0]["path"] == "/v1/models"


@pytest.mark.parametrize("make", [openai_client, ollama_client])
def test_streamed_reasoning_is_not_shown_as_the_answer(make) -> None:
    with serve(FaultyAPI, default=stream(["<think>", "the passage... ", "</think>", "Yes"])) as s:
        pieces: list[str] = []
        result = make(s.url).stream(ASK, pieces.append)
    assert "".join(pieces) == "Yes" and result.text == "Yes"

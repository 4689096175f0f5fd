"""Quick tests of the provider layer's pure parts: specs, settings, parsing, request shapes.

The servers' behaviour is tested for real in test_provider_faults.py and
test_providers_live.py; here `httpx.MockTransport` stands in only for what cannot run here —
hosted APIs' quirks (OpenAI's reasoning models rejecting `max_tokens` and `temperature`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import httpx
import pytest

from crag.config import load_settings
from crag.errors import ConfigError, LLMAuthError
from crag.grading import ActionTrigger
from crag.models.llm import ChatRequest, OllamaLLM, OpenAICompatLLM, create, register
from crag.models.llm._http_errors import Endpoint, retry_after
from crag.models.llm.openai import key_env_for
from crag.models.llm.registry import parse_spec
from crag.models.llm.structured import (
    JUDGEMENT_SCHEMA,
    ReasoningFilter,
    extract_json,
    parse_judgement,
    without_reasoning,
)
from crag.models.llm.wire import openai_body
from crag.refine import Refiner
from crag.types import Chunk, Verdict

SECRET = "sk-live-abcdefghijklmnopqrstuvwxyz0123"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("ollama:gemma3:27b", ("ollama", "gemma3:27b")),
        ("local:qwen2.5-coder-0.5b", ("local", "qwen2.5-coder-0.5b")),
        ("OpenAI:gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("groq:llama-3.1-8b-instant", ("groq", "llama-3.1-8b-instant")),
        ("qwen2.5-coder-1.5b", ("local", "qwen2.5-coder-1.5b")),
        ("/models/x.gguf", ("local", "/models/x.gguf")),
        ("C:\\models\\x.gguf", ("local", "C:\\models\\x.gguf")),
    ],
)
def test_parse_spec(spec: str, expected: tuple[str, str]) -> None:
    assert parse_spec(spec) == expected


@pytest.mark.parametrize("spec", ["gemma3:27b", "ollama:", ""])
def test_parse_spec_rejects_with_a_fix(spec: str) -> None:
    with pytest.raises(ConfigError, match=r"PROVIDER:MODEL|write ollama:MODEL"):
        parse_spec(spec)


def test_role_shortcuts_and_nested_variables_merge(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CRAG_GENERATOR", "ollama:gemma3:27b")
    monkeypatch.setenv("CRAG_LLM__GENERATOR__BASE_URL", "http://gpu-box:11434")
    monkeypatch.setenv("CRAG_LLM__GENERATOR__KEEP_ALIVE", "30m")
    monkeypatch.setenv("CRAG_GRADER", "openai:gpt-4o-mini")
    llm = load_settings().llm
    assert (llm.generator.provider, llm.generator.model) == ("ollama", "gemma3:27b")
    assert llm.generator.base_url == "http://gpu-box:11434" and llm.generator.keep_alive == "30m"
    assert (llm.grader.provider, llm.grader.model) == ("openai", "gpt-4o-mini")
    assert llm.role("reflector") is llm.generator  # unset: the generator's


def test_toml_spec_strings_and_role_defaults(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "crag.toml").write_text(
        '[llm]\nreflector = "groq:llama-3.3-70b-versatile"\n'
        '[llm.generator]\nmodel = "qwen2.5-coder-0.5b"\n'
    )
    llm = load_settings().llm
    assert llm.reflector is not None and llm.reflector.provider == "groq"
    assert llm.generator.model == "qwen2.5-coder-0.5b" and llm.generator.parallel == 2
    monkeypatch.setenv("CRAG_LLM__GENERATOR__PARALLEL", "3")
    assert load_settings().llm.generator.model == "qwen2.5-coder-0.5b"  # not reset to 0.5b default


def test_bad_role_settings_name_the_field(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CRAG_LLM__GRADER__PROVIDER", "claude")
    with pytest.raises(ConfigError, match=r"llm\.grader\.provider.*unknown provider 'claude'"):
        load_settings()
    monkeypatch.delenv("CRAG_LLM__GRADER__PROVIDER")
    monkeypatch.setenv("CRAG_GENERATOR", "gemma3:27b")
    with pytest.raises(ConfigError, match=r"CRAG_GENERATOR: .*unknown provider 'gemma3'"):
        load_settings()


def test_a_key_pasted_as_api_key_env_is_refused_without_echoing_it(monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CRAG_LLM__GENERATOR__API_KEY_ENV", SECRET.replace("-", " "))
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert "NAME of an environment variable" in str(caught.value)
    assert "abcdefghij" not in str(caught.value)


def test_settings_never_hold_a_key(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GROQ_API_KEY", SECRET)
    monkeypatch.setenv("CRAG_GENERATOR", "groq:llama-3.1-8b-instant")
    settings = load_settings()
    assert SECRET not in settings.model_dump_json() and SECRET not in repr(settings)
    llm = create(settings.llm.generator, tmp_path)
    assert SECRET not in repr(llm) and llm.key_env == "GROQ_API_KEY"


def test_key_variable_follows_the_host() -> None:
    assert key_env_for("https://api.openai.com/v1", None) == "OPENAI_API_KEY"
    assert key_env_for("https://api.groq.com/openai/v1", None) == "GROQ_API_KEY"
    assert key_env_for("http://127.0.0.1:8000/v1", None) is None
    assert key_env_for("http://127.0.0.1:8000/v1", "MY_KEY") == "MY_KEY"
    assert OpenAICompatLLM("m", base_url="http://127.0.0.1:8080").base_url.endswith(":8080/v1")


def test_ollama_url_from_ollama_host(monkeypatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0:11500")
    assert OllamaLLM("m").base_url == "http://127.0.0.1:11500"
    assert OllamaLLM("m", base_url="http://box:11434/api/").base_url == "http://box:11434"


def test_registry_takes_new_providers(tmp_path: Path) -> None:
    class Echo:
        name, provider = "echo", "echo"

        def chat(self, request: ChatRequest):
            raise NotImplementedError

    register("echo-test", description="test")(lambda role, models_dir: Echo())
    settings = load_settings(llm={"grader": "echo-test:anything"})
    assert isinstance(create(settings.llm.grader, tmp_path), Echo)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"answer": "yes"}', 1.0),
        ('{"answer": "no"}', 0.0),
        ('```json\n{"answer": "yes"}\n```', 1.0),
        ('```\n{"relevant": false}\n```', 0.0),
        ('Here you go: {"score": 0.7}.', 0.7),
        ('{"answer": "no"', 0.0),
        ('{"Answer": "Yes"}', 1.0),
        ('{"cevap": "evet"}', 1.0),
        ("Yes", 1.0),
        ("yes.", 1.0),
        ("**No**", 0.0),
        ("Yes, because the passage says so.", 1.0),
        ("No - it is about bees.", 0.0),
        ("Evet.", 1.0),
        ("Hayır, pasajda yok.", 0.0),
        ("The answer is yes.", 1.0),
        ("0.8", 0.8),
        ("Score: 0.35", 0.35),
        ("80%", 0.8),
        ("8/10", 0.8),
        ("<think>The passage mentions Paris... no wait</think>Yes", 1.0),
        ("true", 1.0),
        ("I'm sorry, but I can't help with that.", None),
        ("As an AI language model I cannot judge this.", None),
        ("Yes or no? Hard to say.", None),
        ("7", None),
        ("", None),
        ("<think>unfinished reasoning that never ends", None),
        ("{}", None),
    ],
)
def test_parse_judgement(text: str, expected: float | None) -> None:
    got = parse_judgement(text)
    assert got == (pytest.approx(expected) if expected is not None else None)


def test_extract_json() -> None:
    assert extract_json('text ```json\n{"a": [1, 2]}\n``` more') == {"a": [1, 2]}
    assert extract_json('prefix {"a": 1} suffix {"b": 2}') == {"a": 1}
    assert extract_json("no json here") is None


def test_unknown_scores_never_decide_alone() -> None:
    trigger = ActionTrigger(upper=0.6, lower=0.3)
    nan = math.nan
    assert trigger.decide([nan, nan]) is Verdict.AMBIGUOUS
    assert trigger.decide([0.1, nan]) is Verdict.AMBIGUOUS  # not INCORRECT: one is unknown
    assert trigger.decide([0.9, nan]) is Verdict.CORRECT
    assert trigger.decide([0.1, 0.2]) is Verdict.INCORRECT
    assert trigger.decide([]) is Verdict.INCORRECT


def test_refiner_ranks_unknown_strips_after_scored_ones_and_keeps_them() -> None:
    class Fixed:
        name = "fixed"

        def score(self, question: str, passages: list[str]) -> list[float]:
            return [{"a": 0.9, "b": math.nan, "c": 0.1, "d": 0.5}[p] for p in passages]

    chunks = [Chunk(id=t, text=t, source="s", doc_id=t, position=0, start=0, end=1) for t in "abcd"]
    kept, scored = Refiner(Fixed(), mode="selection", top_k=3, floor=0.3).refine("q", chunks)
    assert [s.text for s in kept] == ["a", "b", "d"]  # reading order; c is under the floor
    assert math.isnan(scored[1].score)


def test_openai_body_shapes() -> None:
    request = ChatRequest.of("s", "u", max_tokens=5, top_logprobs=50, json_schema=JUDGEMENT_SCHEMA)
    body = openai_body(request, stream=True, model="m")
    assert body["model"] == "m" and body["top_logprobs"] == 20 and body["logprobs"] is True
    assert body["response_format"]["json_schema"]["schema"] == JUDGEMENT_SCHEMA
    assert body["stream_options"] == {"include_usage": True}
    plain = openai_body(ChatRequest.of("s", "u"), stream=False, logprobs=False)
    assert "response_format" not in plain and "logprobs" not in plain and "model" not in plain


def test_ollama_body_shape() -> None:
    seen: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json={"message": {"content": "ok"}, "done": True,
                                         "prompt_eval_count": 4, "eval_count": 1})  # fmt: skip

    llm = OllamaLLM("gemma3:27b", base_url="http://x", keep_alive="-1",
                    options={"num_ctx": 8192}, transport=httpx.MockTransport(handler))  # fmt: skip
    result = llm.chat(ChatRequest.of("s", "u", max_tokens=7, json_schema=JUDGEMENT_SCHEMA))
    body = seen[0]
    assert body["keep_alive"] == -1 and body["stream"] is False
    assert body["options"] == {"temperature": 0.0, "num_predict": 7, "seed": 0, "num_ctx": 8192}
    assert body["format"] == JUDGEMENT_SCHEMA
    assert (result.text, result.prompt_tokens, result.completion_tokens) == ("ok", 4, 1)


def test_hosted_quirks_are_learned_once() -> None:
    """OpenAI reasoning models reject `max_tokens` and a non-default temperature."""
    bodies: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        bodies.append(body)
        for name, message in (
            ("max_tokens", "Unsupported parameter: 'max_tokens' is not supported with this "
                           "model. Use 'max_completion_tokens' instead."),
            ("temperature", "Unsupported value: 'temperature' does not support 0 with this "
                            "model."),
        ):  # fmt: skip
            if name in body:
                return httpx.Response(400, json={"error": {"message": message}})
        return httpx.Response(200, json={"choices": [{"message": {"content": "hi"},
                                                      "finish_reason": "stop"}]})  # fmt: skip

    llm = OpenAICompatLLM("o4-mini", base_url="http://x/v1", transport=httpx.MockTransport(handler))
    assert llm.chat(ChatRequest.of("s", "u")).text == "hi"
    assert len(bodies) == 3 and bodies[-1]["max_completion_tokens"] == 256
    assert llm.chat(ChatRequest.of("s", "u")).text == "hi"
    assert len(bodies) == 4  # remembered: no more rejected requests


def test_missing_key_for_openai_host(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMAuthError, match=r"\$OPENAI_API_KEY is not set"):
        OpenAICompatLLM("gpt-4o-mini").chat(ChatRequest.of("s", "u"))


def test_retry_after_forms() -> None:
    assert retry_after(httpx.Headers({"retry-after": "2"})) == 2.0
    assert retry_after(httpx.Headers({"retry-after-ms": "1500"})) == 1.5
    assert retry_after(httpx.Headers({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0.0
    assert retry_after(httpx.Headers({})) is None


@pytest.mark.parametrize(
    ("pieces", "shown"),
    [
        (["<th", "ink>I think", "...</thi", "nk>\n\nThe answer", " is 42"], "The answer is 42"),
        (["The", " answer"], "The answer"),
        (["<", "b>bold"], "<b>bold"),
        (["<think>never closed"], ""),
    ],
)
def test_streamed_reasoning_is_held_back(pieces: list[str], shown: str) -> None:
    out: list[str] = []
    hold = ReasoningFilter(out.append)
    for piece in pieces:
        hold(piece)
    hold.flush()
    assert "".join(out) == shown
    assert without_reasoning("".join(pieces)) == (shown or "")


def test_an_endpoint_never_shows_its_key() -> None:
    where = Endpoint("openai", "m", "http://127.0.0.1:9", key="sk-secret-123", key_env="K")
    assert "sk-secret" not in repr(where)
    error = where.status_error(httpx.Response(401, text="bad key sk-secret-123"))
    assert "sk-secret" not in str(error) and "***" in str(error)

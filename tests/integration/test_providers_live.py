"""The `openai` and `ollama` providers against real servers on 127.0.0.1 with the packaged model.

- OpenAI-compatible: llama.cpp's own HTTP server, embedded in xllamacpp, which the session's
  0.5B model already listens with on a loopback port (`LlamaCppLLM.server_url()`): the real
  `/v1/chat/completions`, SSE streaming, log-probabilities, `response_format`.
- Ollama: tests/servers/ollama_api.py, Ollama's API (`/api/chat` with and without streaming,
  `/api/tags`, `format`) in front of the same model — Ollama itself cannot be installed here.
- `crag ask` as a subprocess with the grader on one provider and the generator on the other.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import SAMPLE
from tests.servers.loopback import serve
from tests.servers.ollama_api import OllamaAPI

from crag.grading import LLMJudge
from crag.models.llm import ChatRequest, OllamaLLM, OpenAICompatLLM, RoleLLM, recording_calls
from crag.models.llm.structured import JUDGEMENT_SCHEMA
from crag.trace import Trace

pytestmark = pytest.mark.slow

EIFFEL = "The Eiffel Tower is a wrought-iron lattice tower in Paris, France, completed in 1889."
BEES = "Honey bees communicate the direction of flowers with the waggle dance."
QUESTION = "Where is the Eiffel Tower?"
OLLAMA_NAME = "qwen2.5-coder:0.5b"


@pytest.fixture(scope="module")
def openai_url(llm) -> str:
    return llm.server_url()


@pytest.fixture(scope="module")
def ollama(llm):
    with serve(OllamaAPI, llm=llm, name=OLLAMA_NAME, logprobs=False) as server:
        yield server


def test_openai_provider_chat_usage_and_logprobs(openai_url: str) -> None:
    llm = OpenAICompatLLM("qwen2.5-coder-0.5b", base_url=openai_url)
    result = llm.chat(ChatRequest.of("Reply with one word.", "Is Paris in France? Yes or No?",
                                     max_tokens=1, top_logprobs=5))  # fmt: skip
    assert result.text.strip() and result.attempts == 1
    assert result.prompt_tokens > 5 and result.completion_tokens == 1
    assert len(result.first_token_logprobs) >= 2
    assert llm.check().ok


def test_openai_provider_streams_sse(openai_url: str) -> None:
    pieces: list[str] = []
    result = OpenAICompatLLM("qwen2.5-coder-0.5b", base_url=openai_url).stream(
        ChatRequest.of("Be brief.", "Count from 1 to 5.", max_tokens=24), pieces.append
    )
    assert len(pieces) > 1 and "".join(pieces) == result.text
    assert result.completion_tokens > 1 and result.prompt_tokens > 0
    assert result.finish_reason in {"stop", "length"}


def test_logprob_judge_over_http_matches_the_in_process_judge(llm, openai_url: str) -> None:
    remote = LLMJudge(OpenAICompatLLM("qwen2.5-coder-0.5b", base_url=openai_url))
    scores = remote.score(QUESTION, [EIFFEL, BEES])
    local = LLMJudge(llm).score(QUESTION, [EIFFEL, BEES])
    assert remote.uses_logprobs is True and remote.unjudged == 0
    assert scores[0] > scores[1]
    assert scores == pytest.approx(local, abs=0.05)  # same model, same probabilities


def test_ollama_provider_chat_and_keep_alive(ollama) -> None:
    llm = OllamaLLM(OLLAMA_NAME, base_url=ollama.url, keep_alive="10m")
    with recording_calls() as calls:
        result = RoleLLM("generator", llm).chat(
            ChatRequest.of("Be brief.", "What is the capital of France?", max_tokens=16)
        )
    assert "Paris" in result.text
    assert calls[0].provider == "ollama" and calls[0].prompt_tokens > 5
    assert calls[0].completion_tokens > 0
    sent = ollama.state["requests"][-1]
    assert sent["stream"] is False and sent["keep_alive"] == "10m"
    assert sent["options"]["num_predict"] == 16
    assert llm.check().ok


def test_ollama_provider_streams_ndjson(ollama) -> None:
    pieces: list[str] = []
    result = OllamaLLM(OLLAMA_NAME, base_url=ollama.url).stream(
        ChatRequest.of("Be brief.", "Count from 1 to 5.", max_tokens=24), pieces.append
    )
    assert len(pieces) > 1 and "".join(pieces) == result.text
    assert result.completion_tokens > 1 and result.prompt_tokens > 0
    assert ollama.state["requests"][-1]["stream"] is True


def test_structured_judge_on_ollama(ollama) -> None:
    judge = LLMJudge(OllamaLLM(OLLAMA_NAME, base_url=ollama.url))
    before = len(ollama.state["requests"])
    scores = judge.score(QUESTION, [EIFFEL, BEES])
    sent = ollama.state["requests"][before:]
    assert judge.uses_logprobs is False and judge.unjudged == 0
    assert set(scores) <= {0.0, 1.0} and scores[0] >= scores[1]
    assert any(body.get("format") == JUDGEMENT_SCHEMA for body in sent)


def test_logprob_judge_on_a_newer_ollama(llm) -> None:
    with serve(OllamaAPI, llm=llm, name=OLLAMA_NAME, logprobs=True) as server:
        judge = LLMJudge(OllamaLLM(OLLAMA_NAME, base_url=server.url))
        scores = judge.score(QUESTION, [EIFFEL, BEES])
    assert judge.uses_logprobs is True and 0.0 < scores[1] < scores[0] < 1.0


def _crag(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("crag")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "200", **env})  # fmt: skip


def test_crag_ask_with_grader_and_generator_on_different_providers(
    tmp_path: Path, openai_url: str, ollama, monkeypatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-shown-0123456789")
    env = {
        "CRAG_DATA_DIR": str(tmp_path / "data"),
        "CRAG_GRADER": "openai:qwen2.5-coder-0.5b",
        "CRAG_LLM__GRADER__BASE_URL": openai_url,
        "CRAG_GENERATOR": f"ollama:{OLLAMA_NAME}",
        "CRAG_LLM__GENERATOR__BASE_URL": ollama.url,
        # the grader's provider is what is tested: the LLM judge, not the default evaluator
        "CRAG_EVALUATE__METHOD": "llm",
        # pinned so the generator is always reached: the routing itself is tested elsewhere
        "CRAG_EVALUATE__UPPER": "0",
        "CRAG_EVALUATE__LOWER": "0",
        "CRAG_RERANK__TOP_K": "3",
    }
    models = _crag("models", "--json", env=env)
    assert models.returncode == 0, models.stdout + models.stderr
    roles = {r["role"]: r for r in json.loads(models.stdout)["roles"]}
    assert roles["grader"]["provider"] == "openai" and roles["grader"]["reachable"]
    assert roles["generator"]["provider"] == "ollama" and roles["generator"]["reachable"]
    assert _crag("ingest", str(SAMPLE), env=env).returncode == 0
    before = len(ollama.state["requests"])
    out = _crag("ask", "How do honey bees tell nest mates where flowers are?", "--json", env=env)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    trace = Trace.model_validate(answer["trace"])
    graders = [c for c in trace.calls if c.role == "grader"]
    generators = [c for c in trace.calls if c.role == "generator"]
    assert graders and {c.provider for c in graders} == {"openai"}
    assert generators and {c.provider for c in generators} == {"ollama"}
    assert all(c.prompt_tokens > 0 and c.completion_tokens > 0 for c in trace.calls)
    assert answer["verdict"] == "correct" and len(trace.evaluations) == 3
    assert len(ollama.state["requests"]) > before  # the generator really went over HTTP
    assert "sk-test-never-shown" not in out.stdout + out.stderr + models.stdout

    dead = {**env, "CRAG_LLM__GRADER__BASE_URL": f"http://127.0.0.1:{_free_port()}/v1",
            "CRAG_LLM__GRADER__MAX_RETRIES": "0"}  # fmt: skip
    down = _crag("models", env=dead)
    assert down.returncode == 2 and "cannot connect" in down.stdout
    failed = _crag("ask", "How do honey bees tell nest mates where flowers are?", env=dead)
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    assert "openai model 'qwen2.5-coder-0.5b'" in failed.stderr
    assert "cannot connect" in failed.stderr


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

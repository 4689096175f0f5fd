"""The local LLM runtime, the judge and the generator against the real packaged 0.5B model."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from crag.errors import LLMError
from crag.generate import Generator
from crag.generate.citations import number_sources
from crag.grading import LLMJudge
from crag.models.llm import ChatRequest, ChatResult, RoleLLM, recording_calls
from crag.models.llm.packaged import PACKAGED_MODELS
from crag.types import Chunk, Strip

pytestmark = pytest.mark.slow

EIFFEL = "The Eiffel Tower is a wrought-iron lattice tower in Paris, France, completed in 1889."
BEES = "Honey bees communicate the direction of flowers with the waggle dance."


def test_assembled_model_matches_the_pinned_sha(llm) -> None:
    path = Path(llm._models_dir) / PACKAGED_MODELS["qwen2.5-coder-0.5b"].filename
    assert path.stat().st_size == PACKAGED_MODELS["qwen2.5-coder-0.5b"].size
    assert (path.with_name(path.name + ".sha256")).read_text() == hashlib.sha256(
        path.read_bytes()
    ).hexdigest()


def test_chat_returns_text_tokens_and_logprobs(llm) -> None:
    result = llm.chat(
        ChatRequest.of("Reply with one word.", "Is Paris in France? Yes or No?", max_tokens=1,
                       top_logprobs=5)
    )  # fmt: skip
    assert result.text.strip()
    assert result.prompt_tokens > 5 and result.completion_tokens == 1
    assert len(result.first_token_logprobs) >= 2
    assert all(lp <= 0.0 for lp in result.first_token_logprobs.values())


def test_stream_delivers_tokens_that_add_up(llm) -> None:
    pieces: list[str] = []
    result = llm.stream(
        ChatRequest.of("Be brief.", "Count from 1 to 5.", max_tokens=24), pieces.append
    )
    assert len(pieces) > 1 and "".join(pieces) == result.text
    assert result.completion_tokens > 1


def test_role_records_calls(llm) -> None:
    grader = RoleLLM("grader", llm)
    with recording_calls() as calls:
        LLMJudge(grader, concurrency=2).score("Where is the Eiffel Tower?", [EIFFEL, BEES])
    assert [c.role for c in calls] == ["grader", "grader"]
    assert all(c.purpose == "evaluate" and c.latency_ms > 0 and c.prompt_tokens for c in calls)


def test_judge_prefers_the_passage_with_the_answer(llm) -> None:
    scores = LLMJudge(llm).score("Where is the Eiffel Tower?", [EIFFEL, BEES])
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scores[0] > scores[1]


class Mangled:
    """Wraps the real model and damages its output: what a misbehaving provider returns."""

    def __init__(self, llm, text: str | None, logprobs: bool) -> None:
        self.llm, self.text, self.logprobs, self.name = llm, text, logprobs, "mangled"

    def chat(self, request: ChatRequest) -> ChatResult:
        result = self.llm.chat(request)
        return replace(
            result,
            text=result.text if self.text is None else self.text,
            first_token_logprobs=result.first_token_logprobs if self.logprobs else {},
        )


def test_judge_without_logprobs_or_with_garbage(llm) -> None:
    assert LLMJudge(Mangled(llm, "Yes.", False)).score("q", [EIFFEL]) == [1.0]
    judge = LLMJudge(Mangled(llm, "<|garbage|>", False), attempts=2)
    scores = judge.score("q", [EIFFEL, BEES])
    assert all(math.isnan(s) for s in scores)  # unknown, not a guess at either side
    assert judge.unjudged == 2


def test_structured_judge_on_the_local_model(llm) -> None:
    """Without log-probabilities the judge asks for {"answer": "yes"|"no"} (llama.cpp grammar)."""
    judge = LLMJudge(llm, logprobs=False)
    scores = judge.score("Where is the Eiffel Tower?", [EIFFEL, BEES])
    assert set(scores) <= {0.0, 1.0} and scores[0] >= scores[1] and judge.unjudged == 0


def _strip(text: str, i: int) -> Strip:
    c = Chunk(id=f"id{i}", text=text, source=f"/kb/doc{i}.md", doc_id="text", position=0, start=0,
              end=len(text))  # fmt: skip
    return Strip(text, c, i)


def test_generator_answers_with_citations_to_given_sources(generator_llm) -> None:
    gen = Generator(generator_llm, max_tokens=80)
    out = gen.generate("In which city is the Eiffel Tower?", [_strip(EIFFEL, 0), _strip(BEES, 1)])
    assert not out.refused
    assert "Paris" in out.text
    assert {c.chunk_id for c in out.citations} <= {"id0", "id1"}


def test_coded_reading_on_the_real_generator(generator_llm) -> None:
    """`generate.code_span`: the packaged 1.5B model reads the sources again framed as code
    and replies with a JSON value under llama.cpp's grammar; its span is the answer, cited to
    the source that holds it. The model's JSON never reaches the answer or the stream."""
    from crag.generate.code_reading import code_request, from_code

    strips = [_strip(BEES, 0), _strip(EIFFEL, 1)]
    sources = number_sources(strips)
    reply = generator_llm.chat(code_request("When was the Eiffel Tower completed?", sources))
    assert json.loads(reply.text)["answer"] == "1889", reply.text  # the grammar holds
    assert from_code(reply.text) == "1889 [2]."
    tokens: list[str] = []
    out = Generator(generator_llm, code_span=True).generate(
        "When was the Eiffel Tower completed?", strips, reread=True, on_token=tokens.append
    )
    assert not out.refused and out.text.startswith("1889 [2]"), out.text
    assert [c.chunk_id for c in out.citations] == ["id1"]
    assert any("read as code" in n for n in out.notes)
    assert tokens and "{" not in "".join(tokens)


def test_the_coded_reading_first_on_the_real_generator(generator_llm) -> None:
    """`generate.reading = "code"`: one coded reading of all sources, whose tokens'
    probabilities come back from llama.cpp under the grammar; a plain fact is read sure, and
    the same span is dropped when the cut is set above any probability."""
    strips = [_strip(BEES, 0), _strip(EIFFEL, 1)]
    question = "When was the Eiffel Tower completed?"
    tokens: list[str] = []
    out = Generator(generator_llm, reading="code").generate(
        question, strips, reread=True, on_token=tokens.append
    )
    assert not out.refused and out.text.startswith("1889 [2]"), out.text
    first = out.candidates[0]
    assert first.reading == "all" and first.probs and min(first.probs) >= 0.3, first
    assert tokens == ["1889 [2]."]
    above = min(first.probs) + 0.001  # a cut above every token's probability
    strict = Generator(generator_llm, reading="code", code_sure=above).generate(
        question, strips, reread=True
    )
    assert any("unsure of '1889'" in n for n in strict.notes), strict.notes


def test_generator_refuses_without_sources_and_on_empty_output(llm) -> None:
    out = Generator(llm).generate("Who won?", [], refuse_reason="nothing scored above 0.2")
    assert out.refused and "nothing scored above 0.2" in out.text
    assert Generator(llm).generate("Kim kazandı?", []).text.startswith("Bilmiyorum")
    empty = Generator(Mangled(llm, "   ", True)).generate("q?", [_strip(EIFFEL, 0)])
    assert empty.refused and "empty" in empty.text


def test_generator_refuses_when_sources_miss_the_answer(generator_llm) -> None:
    out = Generator(generator_llm, max_tokens=40).generate(
        "What is the boiling point of tungsten?", [_strip(BEES, 0)]
    )
    assert out.refused and not out.citations


def test_not_found_marker_becomes_a_refusal(llm) -> None:
    out = Generator(Mangled(llm, "NOT_FOUND", True)).generate("q?", [_strip(EIFFEL, 0)])
    assert out.refused and out.text.startswith("I don't know")


def test_provider_error_is_an_llm_error(llm) -> None:
    with pytest.raises(LLMError):
        llm.chat(ChatRequest.of("s", "x " * 20000, max_tokens=1))  # longer than the context

"""The LLM judge against a real misbehaving HTTP server on 127.0.0.1 (tests/servers/faulty.py):
servers that reject log-probabilities or JSON schemas, refusals and messy replies instead of a
score. An unreadable reply becomes a visible *unknown* that routes to AMBIGUOUS, never a
silent "irrelevant". No model is loaded; the servers are real sockets.
"""

from __future__ import annotations

import math

import pytest
from tests.servers.faulty import FaultyAPI, reply, status
from tests.servers.loopback import serve
from tests.support.fault_clients import ollama_client, openai_client

from crag.grading import ActionTrigger, LLMJudge
from crag.models.llm import RoleLLM, recording_notes
from crag.types import Verdict

pytestmark = pytest.mark.slow  # starts servers (no model: each test takes about a second)

REFUSAL = "I'm sorry, but I can't help with that request."


def test_server_rejecting_logprobs_is_learned_and_judge_goes_structured() -> None:
    """Groq-like: 400 names `logprobs`; the provider drops it once and remembers."""
    steps = [status(400, "logprobs is not supported with this model")]
    with serve(FaultyAPI, steps=steps, default=reply('{"answer": "no"}')) as server:
        judge = LLMJudge(openai_client(server.url))
        scores = judge.score("Where is the Eiffel Tower?", ["Bees dance.", "Ants march."])
        bodies = [r["body"] for r in server.state["requests"]]
    assert scores == [0.0, 0.0] and judge.uses_logprobs is False
    assert "logprobs" in bodies[0] and all("logprobs" not in b for b in bodies[1:])
    structured = [b for b in bodies if "response_format" in b]
    assert structured and structured[0]["response_format"]["type"] == "json_schema"


def test_server_rejecting_json_schema_falls_back_to_json_mode() -> None:
    steps = [status(400, "response_format json_schema is not supported")]
    with serve(FaultyAPI, steps=steps, default=reply('{"answer": "yes"}')) as server:
        judge = LLMJudge(openai_client(server.url), logprobs=False)
        assert judge.score("q", ["p"]) == [1.0]
        formats = [r["body"]["response_format"]["type"] for r in server.state["requests"]]
    assert formats == ["json_schema", "json_object"]


@pytest.mark.parametrize("make", [openai_client, ollama_client])
def test_refusal_instead_of_a_score_is_retried_then_unknown_and_visible(make) -> None:
    with serve(FaultyAPI, default=reply(REFUSAL)) as server:
        judge = LLMJudge(make(server.url), attempts=3)
        with recording_notes() as notes:
            scores = judge.score("Where is the Eiffel Tower?", ["The tower is in Paris."])
        requests = server.state["requests"]
    assert len(scores) == 1 and math.isnan(scores[0])
    # one logprob call (none came back), then three structured tries
    assert len(requests) == 4 and judge.unjudged == 1
    last = requests[-1]["body"]
    assert any("could not be read" in m["content"] for m in last["messages"])
    assert notes and "1 of 1 passages unscored" in notes[0] and "sorry" in notes[0]
    # unknown routes to AMBIGUOUS, never to INCORRECT (the corrective branch stays on)
    assert ActionTrigger(upper=0.5, lower=0.2).decide(scores) is Verdict.AMBIGUOUS


@pytest.mark.parametrize(
    ("text", "score"),
    [
        ('```json\n{"answer": "yes"}\n```', 1.0),
        ('Sure! Here is my answer: {"answer": "no"} Hope this helps.', 0.0),
        ('{"answer": "yes"', 1.0),  # cut off before the brace
        ("Yes, because the passage names Paris.", 1.0),
        ("no.", 0.0),
        ("Evet.", 1.0),
        ("0.8", 0.8),
    ],
)
def test_judge_reads_messy_structured_replies_over_http(text, score) -> None:
    with serve(FaultyAPI, default=reply(text)) as server:
        judge = LLMJudge(ollama_client(server.url))
        assert judge.score("q", ["p"]) == [score]
        assert judge.unjudged == 0


def test_judge_uses_logprobs_when_the_server_returns_them() -> None:
    logprobs = {"Yes": math.log(0.6), "No": math.log(0.2), "Maybe": math.log(0.2)}
    with serve(FaultyAPI, default=reply("Yes", logprobs)) as server:
        for llm in (openai_client(server.url), ollama_client(server.url)):
            judge = LLMJudge(llm)
            assert judge.score("q", ["p"]) == [pytest.approx(0.75)]
            assert judge.uses_logprobs is True
        bodies = [r["body"] for r in server.state["requests"]]
    assert bodies[0]["top_logprobs"] == 10 and bodies[1]["top_logprobs"] == 10


def test_ollama_schema_format_falls_back_to_json_on_old_servers() -> None:
    steps = [status(400, 'invalid format: expected "json"')]
    with serve(FaultyAPI, steps=steps, default=reply('{"answer": "yes"}')) as server:
        judge = LLMJudge(ollama_client(server.url), logprobs=False)
        assert judge.score("q", ["p", "p2"]) == [1.0, 1.0]
        formats = [r["body"]["format"] for r in server.state["requests"]]
    assert isinstance(formats[0], dict) and formats[1:] == ["json", "json"]


def test_unknown_scores_show_in_the_trace_and_route_to_ambiguous() -> None:
    """The pipeline's evaluate node over a grader that only refuses: visible, not INCORRECT."""
    from langgraph.runtime import Runtime

    from crag.pipeline.nodes import evaluate
    from crag.pipeline.state import Components
    from crag.refine import Refiner
    from crag.types import Chunk, ScoredChunk

    with serve(FaultyAPI, default=reply(REFUSAL)) as server:
        judge = LLMJudge(RoleLLM("grader", openai_client(server.url)), attempts=2)
        parts = Components(retriever=None, evaluator=judge, trigger=ActionTrigger(0.6, 0.3),
                           refiner=Refiner(judge), generator=None)  # fmt: skip
        chunk = Chunk(id="c1", text="The tower is in Paris.", source="s.md", doc_id="text",
                      position=0, start=0, end=22)  # fmt: skip
        state = {"question": "Where is the tower?", "reranked": [ScoredChunk(chunk, 0.9)]}
        update = evaluate(state, Runtime(context=parts))
    trace = update["trace"]  # the node's trace part
    assert update["verdict"] is Verdict.AMBIGUOUS and trace.verdict == "ambiguous"
    assert trace.evaluations[0].score is None
    assert any("passages unscored" in n for n in trace.notes)
    assert [c.role for c in trace.calls] == ["grader"] * 3  # 1 logprob try + 2 structured

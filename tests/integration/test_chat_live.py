"""`crag chat` on the sample corpus with the packaged models: the models load once, a
follow-up ("and when was it built?") is rewritten from the conversation and answered, and
the /commands work. Time per turn is printed."""

from __future__ import annotations

import time

import pytest
from tests.conftest import MODELS_DIR, SAMPLE

from crag.cli.chat import ChatSession, run_chat
from crag.config import load_settings
from crag.grading import ActionTrigger
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor

pytestmark = pytest.mark.slow


def test_a_conversation_with_a_follow_up(tmp_path, embedder, generator_llm, capsys) -> None:
    settings = load_settings(data_dir=tmp_path / "data", collection="sample")
    settings.llm.models_dir = MODELS_DIR
    settings.evaluate.method = "cross-encoder"
    settings.rerank.model = "crag-evaluator"
    settings.rerank.top_k = 3
    settings.refine.floor = 0.0
    settings.generate.max_tokens = 96
    index = Index.open(settings, embedder=embedder)
    Ingestor(index, settings.ingest).ingest([SAMPLE])
    index.close()

    session = ChatSession(settings, "crag")
    session.pipeline.components.generator.llm.llm = generator_llm  # the session's, loaded
    session.pipeline.components.trigger = ActionTrigger(upper=0.25, lower=0.2)  # this corpus
    session.warm_up()
    lines = iter(
        [
            "Who built the Lighthouse of Alexandria?",
            "and when was it built?",
            "/sources",
            "/trace",
            "/mode rag",
            "/mode nonsense",
            "/nothing",
            "/quit",
        ]
    )
    turns: list[float] = []
    asked = session.ask

    def timed(question: str):
        started = time.perf_counter()
        answer = asked(question)
        turns.append(time.perf_counter() - started)
        return answer

    session.ask = timed  # type: ignore[method-assign]
    try:
        run_chat(session, lambda prompt: next(lines))
    finally:
        session.close()
    out = capsys.readouterr().out
    print(f"\nseconds per turn: {[round(t, 1) for t in turns]}")
    assert len(turns) == 2
    last = session.last
    assert "lighthouse of alexandria" in last.question.lower(), last.question
    assert last.question != "and when was it built?"
    assert "(asked as:" in out
    assert not last.refused and "280" in last.text, last.text
    assert any("lighthouse.txt" in c.label for c in last.citations)
    assert last.trace.calls[0].purpose == "rewrite follow-up"
    assert "lighthouse.txt" in out.split("(asked as:")[1]  # /sources listed it
    assert "stages" in out and "model calls" in out  # /trace printed the tables
    assert session.mode == "rag" and "mode is rag" in out and "unknown command" in out
    assert session.pipeline.components.generator.llm.llm is generator_llm  # nothing reloaded

"""`crag ask --stream` shows the draft live, but never the generator's NOT_FOUND marker: the
marker arrives as tokens ("NOT", "_FO", "UND") and is an instruction to crag, not text. The
pipeline here is a real `Pipeline` whose graph events are scripted (the real graph is tested
with real models in tests/integration); what is under test is what `Pipeline.stream` lets
through and how the command renders it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

import crag.index.store
import crag.pipeline
from crag.cli import app
from crag.pipeline import Pipeline
from crag.trace import Trace
from crag.types import Answer

runner = CliRunner()


class _Index:
    def count(self) -> int:
        return 1

    def close(self) -> None:
        pass


class _Pipeline(Pipeline):
    def __init__(self, tokens: list[str], answer: Answer) -> None:
        self.tokens, self.answer = tokens, answer

    def _events(self, question: str, mode: Any) -> Iterator[tuple[Any, ...]]:
        yield ("node", "retrieve", {})
        for t in self.tokens:
            yield ("token", t)
        yield ("node", "generate", {})
        yield ("answer", self.answer)


def _ask(monkeypatch: pytest.MonkeyPatch, tmp_path: Any, tokens: list[str], answer: Answer) -> str:
    monkeypatch.setenv("CRAG_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(crag.index.store.Index, "open", classmethod(lambda cls, s: _Index()))
    monkeypatch.setattr(crag.pipeline, "build_pipeline", lambda s, i: _Pipeline(tokens, answer))
    out = runner.invoke(app, ["ask", "Where is Evilton?", "--stream"])
    assert out.exit_code == 0, out.output
    return out.stdout


def test_the_marker_never_reaches_the_terminal(monkeypatch, tmp_path) -> None:
    refusal = "I don't know: no answer to the question was found in the retrieved sources"
    answer = Answer("Where is Evilton?", refusal, [], None, True, Trace(question="q", mode="crag"))
    shown = _ask(monkeypatch, tmp_path, ["NOT", "_FO", "UND"], answer)
    assert "NOT" not in shown and "FO" not in shown and refusal in shown


def test_a_draft_without_the_marker_streams_whole(monkeypatch, tmp_path) -> None:
    answer = Answer(
        "Where is Evilton?", "Nowhere [1].", [], None, False, Trace(question="q", mode="crag")
    )
    shown = _ask(monkeypatch, tmp_path, ["Now", "here", " [1]."], answer)
    assert shown.count("Nowhere [1].") == 1 and "checked answer" not in shown

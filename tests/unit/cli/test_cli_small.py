"""Small command-line things: `crag --version`, `crag sources --json`, rag answers that cite
nothing list the passages they were written from, and `crag chat`'s /commands."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from crag.cli import app
from crag.cli.chat import _command
from crag.cli.render import print_answer
from crag.trace import Hit, Trace
from crag.types import Answer

runner = CliRunner()


def test_version() -> None:
    out = runner.invoke(app, ["--version"])
    assert out.exit_code == 0 and out.stdout.startswith("crag ")


def test_sources_json_on_an_empty_collection(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CRAG_DATA_DIR", str(tmp_path / "data"))
    out = runner.invoke(app, ["sources", "--json", "-c", "nothing"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data == {
        "collection": "nothing",
        "chunks": 0,
        "embedding_model": None,
        "sources": [],
    }


def test_a_rag_answer_without_citations_lists_its_passages(capsys) -> None:
    trace = Trace(question="q", mode="rag", reranked=[Hit(id="a", score=1.0, cite="notes.md › x")])
    print_answer(Answer("q", "Paris.", [], None, False, trace))
    out = capsys.readouterr().out
    assert "Passages the answer was written from" in out and "1. notes.md › x" in out


class _Session:
    def __init__(self) -> None:
        self.mode = "crag"
        self.last = None
        self.turns = [("a", "b")]
        self.settings = type("S", (), {"collection": "default"})()


def test_chat_commands_without_an_answer(capsys) -> None:
    session = _Session()
    assert _command(session, "/sources") and _command(session, "/trace")
    assert _command(session, "/mode rag") and session.mode == "rag"
    assert _command(session, "/mode wrong") and session.mode == "rag"
    assert _command(session, "/new") and session.turns == []
    assert _command(session, "/collection")
    assert not _command(session, "/quit")
    out = capsys.readouterr().out
    assert "no sources yet" in out and "no answer yet" in out and "mode: rag" in out
    assert "collection is default" in out

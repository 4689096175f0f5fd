"""Small command-line things: `crag --version`, `crag sources --json`, rag answers that cite
nothing list the passages they were written from, and `crag chat`'s /commands."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from crag.cli import app
from crag.cli.chat import _command
from crag.cli.render import print_answer
from crag.modes import Mode
from crag.trace import Hit, Trace
from crag.types import Answer, Verdict

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


def test_the_verdict_line_names_an_escalation() -> None:
    from crag.cli.render import verdict_line
    from crag.trace import EscalationRecord, Evaluation, Thresholds

    trace = Trace(question="q", mode=Mode.CRAG, evaluations=[Evaluation(id="a", score=0.31)],
                  thresholds=Thresholds(upper=0.515, lower=0.06))  # fmt: skip
    plain = verdict_line(Answer("q", "x", [], Verdict.AMBIGUOUS, False, trace))
    assert "(best chunk 0.31; upper 0.515, lower 0.06)" in plain
    record = EscalationRecord(id="a", score=0.31, p_yes=0.93, upper=0.897, lower=0.696,
                              verdict=Verdict.CORRECT)  # fmt: skip
    trace = trace.model_copy(update={"escalation": record})
    line = verdict_line(Answer("q", "x", [], Verdict.CORRECT, False, trace))
    assert (
        "verdict CORRECT (best chunk 0.31; upper 0.515, lower 0.06; escalated: P(yes) 0.93, "
        "cuts 0.897 / 0.696)" in line
    )


def test_ignored_files_are_counted_by_type_and_reason() -> None:
    from crag.cli.documents import _ignored
    from crag.ingest.ingestor import UNSUPPORTED_TYPE as TYPE

    paths = [("d/a.png", TYPE), ("d/b.png", TYPE), ("d/Makefile", TYPE), ("d/x.c", TYPE)]
    paths += [("d/y.PNG", TYPE), ("d/sbom.json", "not SQuAD JSON"), ("d/p.json", "not SQuAD JSON")]
    assert _ignored(paths) == (
        "7 file(s) crag does not read: a type crag does not read (.png 3, (none) 1, .c 1); "
        "not SQuAD JSON (2)"
    )
    many = [(f"f{i}.t{i}", TYPE) for i in range(8)]
    assert _ignored(many, shown=2).endswith("(.t0 1, .t1 1, …)")

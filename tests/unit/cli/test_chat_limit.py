"""`crag chat` applies the server's question limit too (issue 21): an over-long line is
refused with the setting's name and never reaches the pipeline; the conversation goes on."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from crag.cli.chat import run_chat
from crag.config import load_settings


def test_chat_refuses_an_over_long_question_and_goes_on(tmp_path, capsys) -> None:
    settings = load_settings(data_dir=tmp_path)
    settings.server.max_question_chars = 100
    session = SimpleNamespace(
        settings=settings, last=None, ask=lambda q: pytest.fail(f"asked {q[:20]}")
    )
    lines = iter(["why " * 50, "   ", "/quit"])
    run_chat(session, lambda prompt: next(lines))  # type: ignore[arg-type]
    assert "over server.max_question_chars=100" in capsys.readouterr().err

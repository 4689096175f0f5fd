"""Secrets out of output and logs (issue 21): URL userinfo redacted in messages, log lines and
tracebacks, `crag config` and CLI errors; the CLI applies the server's question limit."""

from __future__ import annotations

import io
import logging

import pytest
from typer.testing import CliRunner

from crag.cli import app
from crag.errors import CragError
from crag.limits import check_question
from crag.redact import RedactingFilter, redact


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://user:s3cret@host:8080/v1", "http://***@host:8080/v1"),
        (
            "cannot reach https://tok@api.example/x; check",
            "cannot reach https://***@api.example/x; check",
        ),
        (
            "postgresql://a:b@db/x and redis://:pw@r:6379",
            "postgresql://***@db/x and redis://***@r:6379",
        ),
        ("mail admin@example.com at http://host/a@b", "mail admin@example.com at http://host/a@b"),
        ("no url here", "no url here"),
    ],
)
def test_redact(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_log_lines_and_tracebacks_are_redacted() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter())
    log = logging.getLogger("crag.test.redact")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.warning("provider %s failed", "http://u:hunter2@llm.local/v1")
        try:
            raise ConnectionError("refused by http://u:hunter2@llm.local/v1")
        except ConnectionError:
            log.exception("call failed")
    finally:
        log.removeHandler(handler)
    out = stream.getvalue()
    assert "hunter2" not in out and out.count("http://***@llm.local/v1") >= 2


def test_crag_config_and_cli_errors_hide_url_passwords(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CRAG_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("CRAG_CHROMA_URL", "http://admin:topsecret@127.0.0.1:9")
    shown = CliRunner().invoke(app, ["config"])
    assert shown.exit_code == 0 and "topsecret" not in shown.output
    assert "http://***@127.0.0.1:9" in shown.output


def test_the_cli_applies_the_server_question_limit(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CRAG_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("CRAG_SERVER__MAX_QUESTION_CHARS", "100")
    result = CliRunner().invoke(app, ["ask", "why " * 50])
    assert result.exit_code == 1
    assert "over server.max_question_chars=100" in result.output
    with pytest.raises(CragError, match="empty"):
        check_question("   ", 10)
    assert check_question("  ok? ", 10) == "ok?"

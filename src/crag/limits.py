"""Limits every entry point applies the same way (the CLI as the server)."""

from __future__ import annotations

from crag.errors import CragError

__all__ = ["check_question"]


def check_question(question: str, limit: int) -> str:
    """The stripped question, or `CragError` when it is empty or longer than `limit`
    (server.max_question_chars): a 20,000-character question ran 4 minutes on the CLI before
    failing on the model's context size (issue 21)."""
    question = question.strip()
    if not question:
        raise CragError("question: empty; ask something")
    if len(question) > limit:
        raise CragError(
            f"question: {len(question)} characters, over server.max_question_chars={limit}"
        )
    return question

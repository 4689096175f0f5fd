"""`EvalItem`: one question as every reader yields it, and the answers' one spelling.

Every reader (SQuAD, JSONL) gives the question, its gold answers, the id of the unit that
holds the answer (`gold_unit`: the `doc_id` crag's own loaders give that paragraph or record,
so retrieved chunks can be matched to it for recall@k) and whether the question has an answer
at all (SQuAD 2.0 `is_impossible` questions do not).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crag.errors import LoaderError

__all__ = ["EvalItem", "answer_texts"]


@dataclass(frozen=True, slots=True)
class EvalItem:
    """One question to evaluate. `part` is set when the corpus is split (kb / web / held_out)."""

    id: str
    question: str
    answers: tuple[str, ...]
    gold_unit: str | None
    answerable: bool
    part: str | None = None
    # what crag.datasets.splits.evaluator_part keys on: the paragraph text (SQuAD), the gold id
    split_key: str | None = None


def answer_texts(raw: Any, where: str, path: Path) -> tuple[str, ...]:
    """Answers as strings: SQuAD `[{"text": ...}]` or JSONL `["..."]`; duplicates dropped."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise LoaderError(str(path), f'{where}: "answers" must be a list')
    texts: list[str] = []
    for i, a in enumerate(raw):
        text = a.get("text") if isinstance(a, dict) else a
        if not isinstance(text, str):
            raise LoaderError(str(path), f'{where}: answers[{i}] is not a string or {{"text"}}')
        if text.strip() and text.strip() not in texts:
            texts.append(text.strip())
    return tuple(texts)

"""JSONL questions (the NQ file among them) and the NQ passage convention.

One `{"question", "answers": [...], "gold"?, "id"?, "is_impossible"?}` per line
(`gold_passage` is read as `gold`: the NQ file). The knowledge base is given with `--kb`, or
is the sibling file with `questions` replaced by `passages` in its name
(`nq-questions-dev.jsonl` → `nq-passages.jsonl`), one `{"id", "text"}` per line.
"""

from __future__ import annotations

import json
from pathlib import Path

from crag.datasets.items import EvalItem, answer_texts
from crag.errors import LoaderError

__all__ = ["default_kb", "read_jsonl_questions", "read_passages"]


def read_jsonl_questions(path: Path, text: str) -> list[EvalItem]:
    items: list[EvalItem] = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"line {lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LoaderError(str(path), f"{where}: malformed JSON ({exc.msg})") from exc
        if not isinstance(record, dict):
            raise LoaderError(str(path), f"{where}: not a JSON object")
        question = record.get("question")
        if not isinstance(question, str) or not question.strip():
            raise LoaderError(str(path), f'{where}: "question" missing or empty')
        answers = answer_texts(record.get("answers"), where, path)
        impossible = bool(record.get("is_impossible", not answers))
        if impossible and answers:
            answers = ()
        gold = record.get("gold", record.get("gold_passage"))
        if gold is not None and not isinstance(gold, str | int):
            raise LoaderError(str(path), f'{where}: "gold" must be a passage id string')
        items.append(
            EvalItem(
                id=str(record.get("id", f"line-{lineno}")),
                question=question.strip(),
                answers=answers,
                gold_unit=None if gold is None else str(gold),
                answerable=not impossible,
                split_key=None if gold is None else str(gold),
            )
        )
    return items


def default_kb(path: Path) -> list[Path]:
    """The NQ convention: `…questions….jsonl` sits next to `…passages….jsonl`."""
    if "questions" not in path.name:
        return []
    stem = path.name.split("questions", 1)[0] + "passages"
    candidates = sorted(path.parent.glob(f"{stem}*.jsonl")) + sorted(
        path.parent.glob(f"{stem}*.jsonl.gz")
    )
    return candidates[:1]


def read_passages(path: Path) -> dict[str, str]:
    """Passage id → text of an NQ passage file, in file order.

    Raises what it meets (`FileNotFoundError`, `json.JSONDecodeError`, `KeyError` for a record
    without "id" or "text"): its callers say which file and what to do."""
    texts: dict[str, str] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                record = json.loads(line)
                texts[record["id"]] = record["text"]
    return texts

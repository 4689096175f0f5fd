"""SQuAD JSON (v1.1 / v2.0, `.gz` too): the one reader, and the one paragraph id scheme.

`data[].paragraphs[].{context, qas[]}`. A paragraph is one unit named `Title#index`
(`squad_unit_id`): `crag ingest` gives it that `doc_id` (crag.ingest.structured), so the eval
harness, the evaluator's trainer and bench/retrieval.py match retrieved chunks to the gold
paragraph by comparing ids. Questions are read strictly: a malformed record is an error naming
the file, the path in it and the field, because skipping it would silently change what the
figures are over.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from crag.datasets.items import EvalItem, answer_texts
from crag.datasets.text import read_text
from crag.errors import LoaderError

__all__ = ["read_squad", "squad_title", "squad_unit_id"]


def squad_title(article_title: Any, a_idx: int) -> str:
    """An article's title as crag shows it (underscores as spaces; untitled: `article N`)."""
    return str(article_title or f"article {a_idx}").replace("_", " ")


def squad_unit_id(article_title: Any, a_idx: int, p_idx: int) -> str:
    """The `doc_id` of paragraph `p_idx` of article `a_idx`: `Title#index`."""
    return f"{squad_title(article_title, a_idx)}#{p_idx}"


def _squad(path: Path, text: str, strict: bool = True) -> list[EvalItem]:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LoaderError(
            str(path), f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("data"), list):
        raise LoaderError(str(path), 'not SQuAD JSON: expected an object with a "data" list')
    items: list[EvalItem] = []
    for a_idx, article in enumerate(raw["data"]):
        paragraphs = article.get("paragraphs") if isinstance(article, dict) else None
        if not isinstance(paragraphs, list):
            raise LoaderError(str(path), f'data[{a_idx}]: no "paragraphs" list')
        for p_idx, para in enumerate(paragraphs):
            qas = para.get("qas", []) if isinstance(para, dict) else None
            if not isinstance(qas, list):
                raise LoaderError(str(path), f'data[{a_idx}].paragraphs[{p_idx}]: "qas" not a list')
            unit = squad_unit_id(article.get("title"), a_idx, p_idx)
            for q_idx, qa in enumerate(qas):
                where = f"data[{a_idx}].paragraphs[{p_idx}].qas[{q_idx}]"
                if not isinstance(qa, dict):
                    raise LoaderError(str(path), f"{where}: not an object")
                question = qa.get("question")
                if not isinstance(question, str) or not question.strip():
                    raise LoaderError(str(path), f'{where}: "question" missing or empty')
                answers = answer_texts(qa.get("answers"), where, path)
                impossible = bool(qa.get("is_impossible", False))
                if not answers and not impossible:
                    if strict:
                        raise LoaderError(
                            str(path), f'{where}: no "answers" and not marked "is_impossible"'
                        )
                    impossible = True  # nothing to match an answer against
                items.append(
                    EvalItem(
                        id=str(qa.get("id") or f"{a_idx}-{p_idx}-{q_idx}"),
                        question=question.strip(),
                        answers=() if impossible else answers,
                        gold_unit=unit,
                        answerable=not impossible,
                        split_key=para.get("context") or None,
                    )
                )
    return items


def read_squad(path: Path, *, strict: bool = True) -> list[EvalItem]:
    """Every question of a SQuAD file (`.json`, `.json.gz`) in file order, repeats included.

    The one SQuAD reader: `load_dataset` dedupes its ids for results files, and the evaluator's
    training data (`crag.grading.training.data.load_squad`) filters it by split and answer.
    `strict=False` reads a question with no answers and no `is_impossible` as unanswerable
    instead of failing: training keeps answerable questions only, so such a record (SQuAD-TR's
    "excluded" file is full of them) is simply not used, as before the readers were merged.
    """
    return _squad(path, read_text(path), strict)

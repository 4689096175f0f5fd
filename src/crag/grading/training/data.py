"""Labelled questions for training and testing the evaluator: SQuAD JSON and the NQ pair.

A `LabelledQuestion` knows its gold answers and the unit (SQuAD paragraph `title#index`, NQ
passage id) that holds them — the same `doc_id` crag's loaders give that unit, so chunks
retrieved from an index built from the same file can be labelled by comparing ids.

Which questions may be trained on is decided by `crag.datasets.splits.evaluator_part` on the gold
unit's text key (SQuAD: the paragraph's context, so a paragraph and its translation in another
file cannot straddle the split by id; NQ: the passage id).
"""

from __future__ import annotations

import json
import random
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from crag.datasets import read_passages, read_squad
from crag.datasets.splits import evaluator_part
from crag.errors import LoaderError

__all__ = ["LabelledQuestion", "load_nq", "load_squad", "sample", "squad_ids"]

Split = Literal["train", "calibrate", "test", "all"]


@dataclass(frozen=True, slots=True)
class LabelledQuestion:
    question: str
    answers: tuple[str, ...]
    gold: str  # doc_id of the unit holding the answer ("" when unanswerable)
    gold_text: str
    dataset: str
    qid: str = ""


def load_squad(
    path: Path,
    split: Split = "all",
    *,
    name: str | None = None,
    exclude_ids: AbstractSet[str] = frozenset(),
) -> list[LabelledQuestion]:
    """Answerable questions of a SQuAD v1.1/v2.0 file whose paragraph falls in `split`.

    Read by `crag.datasets.read_squad`, the reader `crag eval` uses, so training and eval
    agree on unit ids, questions and answers (answers stripped, repeats dropped); a question
    without answers is skipped, not an error (see `read_squad`'s `strict`).
    `exclude_ids` drops questions by id: SQuAD-TR keeps SQuAD's question ids, so the Turkish
    test set can exclude every paragraph whose English original was trained on.
    """
    out: list[LabelledQuestion] = []
    for item in read_squad(path, strict=False):
        context = item.split_key or ""
        if not item.answerable or not item.answers or item.id in exclude_ids:
            continue
        if split != "all" and evaluator_part(context) != split:
            continue
        gold = item.gold_unit or ""
        out.append(
            LabelledQuestion(item.question, item.answers, gold, context, name or path.name, item.id)
        )
    return out


def squad_ids(path: Path, split: Split) -> set[str]:
    """Question ids of the paragraphs of `path` in `split` (to exclude their translations)."""
    return {q.qid for q in load_squad(path, split)}


def load_nq(questions: Path, passages: Path, split: Split = "all") -> list[LabelledQuestion]:
    """NQ questions whose gold passage falls in `split`, with the gold passage text."""
    try:
        texts = read_passages(passages)
        out: list[LabelledQuestion] = []
        with questions.open(encoding="utf-8") as fh:
            for n, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                q = json.loads(line)
                gold = q["gold_passage"]
                if gold not in texts or (split != "all" and evaluator_part(gold) != split):
                    continue
                answers = tuple(a for a in q.get("answers", []) if a)
                out.append(
                    LabelledQuestion(q["question"], answers, gold, texts[gold], "nq", str(n))
                )
    except FileNotFoundError as exc:
        raise LoaderError(exc.filename or str(questions), "no such file") from exc
    except (json.JSONDecodeError, KeyError) as exc:
        raise LoaderError(str(questions), f"not the NQ format: {exc}") from exc
    return out


def sample(items: list[LabelledQuestion], n: int | None, seed: int) -> list[LabelledQuestion]:
    """A seeded sample of at most `n` items (all, shuffled, when n is None)."""
    items = list(items)
    random.Random(seed).shuffle(items)
    return items if n is None else items[:n]

"""Labelled questions for training and testing the evaluator: SQuAD JSON and the NQ pair.

A `LabelledQuestion` knows its gold answers and the unit (SQuAD paragraph `title#index`, NQ
passage id) that holds them — the same `doc_id` crag's loaders give that unit, so chunks
retrieved from an index built from the same file can be labelled by comparing ids.

Which questions may be trained on is decided by `crag.eval.splits.evaluator_part` on the gold
unit's text key (SQuAD: the paragraph's context, so a paragraph and its translation in another
file cannot straddle the split by id; NQ: the passage id).
"""

from __future__ import annotations

import gzip
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from crag.errors import LoaderError
from crag.eval.splits import evaluator_part

__all__ = ["LabelledQuestion", "load_nq", "load_squad", "read_json"]

Split = Literal["train", "calibrate", "test", "all"]


@dataclass(frozen=True, slots=True)
class LabelledQuestion:
    question: str
    answers: tuple[str, ...]
    gold: str  # doc_id of the unit holding the answer ("" when unanswerable)
    gold_text: str
    dataset: str
    qid: str = ""


def read_json(path: Path) -> object:
    """JSON from a `.json` or `.json.gz` file, with errors that name the file."""
    try:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError as exc:
        raise LoaderError(str(path), "no such file") from exc
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise LoaderError(str(path), f"cannot read JSON: {exc}") from exc


def load_squad(
    path: Path,
    split: Split = "all",
    *,
    name: str | None = None,
    exclude_ids: set[str] = frozenset(),
) -> list[LabelledQuestion]:
    """Answerable questions of a SQuAD v1.1/v2.0 file whose paragraph falls in `split`.

    `exclude_ids` drops questions by id: SQuAD-TR keeps SQuAD's question ids, so the Turkish
    test set can exclude every paragraph whose English original was trained on.
    """
    raw = read_json(path)
    if not isinstance(raw, dict) or not isinstance(raw.get("data"), list):
        raise LoaderError(str(path), 'not SQuAD JSON: expected {"data": [...]}')
    out: list[LabelledQuestion] = []
    for a_idx, article in enumerate(raw["data"]):
        title = str(article.get("title") or f"article {a_idx}").replace("_", " ")
        for p_idx, para in enumerate(article.get("paragraphs", [])):
            context = para.get("context", "")
            if split != "all" and evaluator_part(context) != split:
                continue
            for qa in para.get("qas", []):
                answers = tuple(a["text"] for a in qa.get("answers", []) if a.get("text"))
                if qa.get("is_impossible") or not answers or qa.get("id") in exclude_ids:
                    continue
                out.append(
                    LabelledQuestion(
                        qa["question"],
                        answers,
                        f"{title}#{p_idx}",
                        context,
                        name or path.name,
                        str(qa.get("id", "")),
                    )
                )
    return out


def squad_ids(path: Path, split: Split) -> set[str]:
    """Question ids of the paragraphs of `path` in `split` (to exclude their translations)."""
    return {q.qid for q in load_squad(path, split)}


def load_nq(questions: Path, passages: Path, split: Split = "all") -> list[LabelledQuestion]:
    """NQ questions whose gold passage falls in `split`, with the gold passage text."""
    texts: dict[str, str] = {}
    try:
        with passages.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    record = json.loads(line)
                    texts[record["id"]] = record["text"]
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

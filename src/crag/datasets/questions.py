"""Question sets for `crag eval`: a dataset file read by its format, deduplicated, sampled.

Formats (a `.gz` suffix is read through gzip): SQuAD `.json` (`crag.datasets.squad`; the file
itself is the knowledge base) and JSONL `.jsonl` questions (`crag.datasets.jsonl`; the
knowledge base is `--kb` or the sibling passages file).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from crag.datasets.items import EvalItem
from crag.datasets.jsonl import default_kb, read_jsonl_questions
from crag.datasets.squad import read_squad
from crag.datasets.text import read_text
from crag.errors import LoaderError

__all__ = ["EvalDataset", "load_dataset", "select_items"]


@dataclass(slots=True)
class EvalDataset:
    """A question set and the files that make up its knowledge base."""

    path: Path
    format: str  # "squad" | "jsonl"
    items: list[EvalItem]
    kb: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        name = self.path.name
        for suffix in (".gz", ".jsonl", ".json"):
            name = name.removesuffix(suffix)
        return name


def load_dataset(path: str | Path, kb: list[Path] | None = None) -> EvalDataset:
    """Read every question of `path`; `kb` overrides the knowledge-base files."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise LoaderError(str(path), "no such dataset file")
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    kind = suffixes[-1] if suffixes else ""
    if kind == ".json":
        items, fmt, kb_files = read_squad(path), "squad", [path]
    elif kind in (".jsonl", ".ndjson"):
        items, fmt = read_jsonl_questions(path, read_text(path)), "jsonl"
        kb_files = default_kb(path)
    else:
        raise LoaderError(str(path), "unknown dataset format: use SQuAD .json or .jsonl questions")
    if not items:
        raise LoaderError(str(path), "holds no question")
    items, notes = _dedupe(items)
    return EvalDataset(
        path=path, format=fmt, items=items, kb=list(kb) if kb else kb_files, notes=notes
    )


def _dedupe(items: list[EvalItem]) -> tuple[list[EvalItem], list[str]]:
    """Ids must be unique (results are keyed by them). A repeated question that is the same
    in every field is dropped (squad-en-dev-subset.json repeats 11); a different question
    under a used id gets `~2`, `~3`, ... appended."""
    seen: dict[str, EvalItem] = {}
    counts: Counter[str] = Counter()
    out: list[EvalItem] = []
    dropped = renamed = 0
    for it in items:
        counts[it.id] += 1
        if it.id not in seen:
            seen[it.id] = it
            out.append(it)
        elif seen[it.id] == it:
            dropped += 1
        else:
            renamed += 1
            out.append(replace(it, id=f"{it.id}~{counts[it.id]}"))
    notes = []
    if dropped:
        notes.append(f"{dropped} repeated question(s) (same id, same content) counted once")
    if renamed:
        notes.append(f"{renamed} question(s) reuse another's id; renamed with a ~N suffix")
    return out, notes


def select_items(
    items: list[EvalItem],
    *,
    limit: int | None = None,
    seed: int = 0,
    parts: set[str] | None = None,
    unanswerable_share: float | None = None,
) -> list[EvalItem]:
    """A deterministic sample: the items shuffled by `seed`, filtered, the first `limit`.

    The first N of a larger limit are the same N, so raising `--limit` on a resumed run only
    adds questions. `unanswerable_share` fixes the share of questions without an answer
    (SQuAD-TR dev is 72 % unanswerable; 0.5 balances it); otherwise the file's own mix is kept.
    """
    order = list(items)
    random.Random(seed).shuffle(order)
    if parts is not None:
        order = [it for it in order if it.part in parts]
    if unanswerable_share is None or limit is None:
        return order[:limit] if limit is not None else order
    n_no = round(limit * unanswerable_share)
    no = [it for it in order if not it.answerable][:n_no]
    yes = [it for it in order if it.answerable][: limit - len(no)]
    chosen = {id(it) for it in no + yes}
    return [it for it in order if id(it) in chosen]

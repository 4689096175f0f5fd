"""Question sets for `crag eval`: SQuAD JSON (v1.1 / v2.0), JSONL questions, and the NQ pair.

Every reader yields `EvalItem`s with the question, its gold answers, the id of the unit that
holds the answer (`gold_unit`: the `doc_id` crag's own loaders give that paragraph or record,
so retrieved chunks can be matched to it for recall@k) and whether the question has an answer
at all (SQuAD 2.0 `is_impossible` questions do not).

Formats (a `.gz` suffix is read through gzip):

- SQuAD `.json`: `data[].paragraphs[].{context, qas[]}`; the file itself is the knowledge
  base, each paragraph one unit named `Title#index` (as `crag ingest` names it).
- JSONL `.jsonl`: one `{"question", "answers": [...], "gold"?, "id"?, "is_impossible"?}` per
  line (`gold_passage` is read as `gold`: the NQ file). The knowledge base is given with
  `--kb`, or is the sibling file with `questions` replaced by `passages` in its name
  (`nq-questions-dev.jsonl` → `nq-passages.jsonl`).

Eval data is read strictly: a malformed record is an error naming the file, the line or path,
and the field, because skipping it would silently change what the figures are over.
"""

from __future__ import annotations

import gzip
import json
import random
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from crag.errors import LoaderError

__all__ = [
    "EvalDataset",
    "EvalItem",
    "load_dataset",
    "read_squad",
    "select_items",
    "squad_unit_id",
]


@dataclass(frozen=True, slots=True)
class EvalItem:
    """One question to evaluate. `part` is set when the corpus is split (kb / web / held_out)."""

    id: str
    question: str
    answers: tuple[str, ...]
    gold_unit: str | None
    answerable: bool
    part: str | None = None
    # what crag.eval.splits.evaluator_part keys on: the paragraph text (SQuAD), the gold id
    split_key: str | None = None


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


def squad_unit_id(article_title: Any, a_idx: int, p_idx: int) -> str:
    """The `doc_id` crag's SQuAD loader gives a paragraph (crag.ingest.structured)."""
    title = str(article_title or f"article {a_idx}").replace("_", " ")
    return f"{title}#{p_idx}"


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LoaderError(str(path), f"cannot read: {exc.strerror or exc}") from exc
    if path.suffix.lower() == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise LoaderError(str(path), f"not a valid gzip file ({exc})") from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoaderError(str(path), f"not UTF-8 text (byte {exc.start})") from exc


def _answer_texts(raw: Any, where: str, path: Path) -> tuple[str, ...]:
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
                answers = _answer_texts(qa.get("answers"), where, path)
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
    return _squad(path, _read_text(path), strict)


def _jsonl(path: Path, text: str) -> list[EvalItem]:
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
        answers = _answer_texts(record.get("answers"), where, path)
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


def _default_kb(path: Path) -> list[Path]:
    """The NQ convention: `…questions….jsonl` sits next to `…passages….jsonl`."""
    if "questions" not in path.name:
        return []
    stem = path.name.split("questions", 1)[0] + "passages"
    candidates = sorted(path.parent.glob(f"{stem}*.jsonl")) + sorted(
        path.parent.glob(f"{stem}*.jsonl.gz")
    )
    return candidates[:1]


def load_dataset(path: str | Path, kb: list[Path] | None = None) -> EvalDataset:
    """Read every question of `path`; `kb` overrides the knowledge-base files."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise LoaderError(str(path), "no such dataset file")
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    kind = suffixes[-1] if suffixes else ""
    if kind == ".json":
        items, fmt, default_kb = read_squad(path), "squad", [path]
    elif kind in (".jsonl", ".ndjson"):
        items, fmt, default_kb = _jsonl(path, _read_text(path)), "jsonl", _default_kb(path)
    else:
        raise LoaderError(str(path), "unknown dataset format: use SQuAD .json or .jsonl questions")
    if not items:
        raise LoaderError(str(path), "holds no question")
    items, notes = _dedupe(items)
    return EvalDataset(
        path=path, format=fmt, items=items, kb=list(kb) if kb else default_kb, notes=notes
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

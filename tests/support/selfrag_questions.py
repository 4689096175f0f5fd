"""The Self-RAG benchmark's committed question set and the small knowledge base it is about.

Why: issue 6 compares rag, crag and self-crag on answerable questions (accuracy), unanswerable
ones (in no KB paragraph: refusing is right) and false-premise ones (assuming what the KB
contradicts or never says: it must be caught), so the questions are written for one fixed KB,
every paragraph of a few SQuAD articles (`EN_ARTICLES`, `TR_ARTICLES`).

`bench/data/selfrag-questions.jsonl`, one object a line: `id`, `language` (en|tr), `kind`, then
answerable: `dataset` (squad-en|squad-tr), `squad_id` (question and answers are read from the
dataset: SQuAD-TR is CC BY-NC-ND, its text never enters this repo); unanswerable: `question`,
`topic`; false_premise: `question`, `premise`, `title`, `contradicted_by` ("absent", or
"contradicts" with the `dataset` and `paragraph`, the `#N` of crag's doc_id, that shows it false).
Read strictly, as crag's eval sets are: a bad line is a `LoaderError` naming file, line and field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cache, partial
from pathlib import Path
from typing import Any

from crag.datasets import EvalItem, load_dataset
from crag.errors import LoaderError
from crag.ingest.loaders import load_file
from crag.types import Document

__all__ = [
    "DATASETS", "DEFAULT_DATASETS", "DEFAULT_PATH", "EN_ARTICLES", "KB_TITLES", "KINDS",
    "LANGUAGES", "TR_ARTICLES", "SelfRagQuestion", "kb_documents", "load_questions",
]  # fmt: skip

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PATH = ROOT / "bench" / "data" / "selfrag-questions.jsonl"
DEFAULT_DATASETS = ROOT / ".." / "shared" / "datasets"  # /work/shared/datasets from a worktree
DATASETS = {"squad-en": "squad-en-dev-subset.json", "squad-tr": "squad-tr-dev-v1.0.0.json.gz"}
LANGUAGES = ("en", "tr")
KINDS = ("answerable", "unanswerable", "false_premise")
_DATASET_OF = {"en": "squad-en", "tr": "squad-tr"}

# squad-en-dev-subset.json is a single SQuAD "article" holding 553 dev-set paragraphs in dev-set
# order, so its real articles are runs of consecutive paragraphs (72 in all).
EN_ARTICLES = {"Super Bowl 50": range(0, 45), "Warsaw": range(45, 61), "Normans": range(61, 72)}
# SQuAD-TR articles by title, as crag's loader names them (underscores as spaces): 77 paragraphs.
# None overlaps an English one, so a Turkish question cannot be answered from English text.
TR_ARTICLES: tuple[str, ...] = ("1973 oil crisis", "Packet switch", "Harvard Üniversitesi")
KB_TITLES = {"en": tuple(EN_ARTICLES), "tr": TR_ARTICLES}

_COMMON = {"id", "language", "kind"}
_REQUIRED = {"answerable": {"dataset", "squad_id"}, "unanswerable": {"question", "topic"},
             "false_premise": {"question", "premise", "title", "contradicted_by"}}  # fmt: skip
_OPTIONAL = {"false_premise": {"dataset", "paragraph"}}


@dataclass(frozen=True, slots=True)
class SelfRagQuestion:
    """One benchmark question. `answers` is empty unless answerable; `title` is the KB article
    it is about; `unit` the `doc_id` of the paragraph holding the answer (answerable) or
    contradicting the premise (false_premise with `contradicted_by="contradicts"`)."""

    id: str
    language: str
    kind: str
    question: str
    answers: tuple[str, ...]
    premise: str = ""
    title: str = ""
    contradicted_by: str = ""
    unit: str = ""


def _article(doc: Document, dataset: str) -> str | None:
    """The KB article a dataset paragraph belongs to, or None when it is not in the KB."""
    if dataset == "squad-en":
        para = doc.metadata.get("paragraph", -1)
        return next((t for t, span in EN_ARTICLES.items() if para in span), None)
    return doc.title if doc.title in TR_ARTICLES else None


def _dataset_kb(dataset: str, datasets_dir: Path) -> list[Document]:
    """KB paragraphs as `crag ingest` reads them (same doc_ids), titled by their article."""
    docs = load_file(Path(datasets_dir).resolve() / DATASETS[dataset]).documents
    return [replace(doc, title=title, metadata={**doc.metadata, "dataset": dataset})
            for doc in docs if (title := _article(doc, dataset))]  # fmt: skip


def kb_documents(
    languages: tuple[str, ...] = LANGUAGES, datasets_dir: str | Path = DEFAULT_DATASETS
) -> list[Document]:
    """Every paragraph of the KB articles of `languages`, one `Document` each (source: the
    dataset file). To index them: `Chunker.split_all`, then `Index.write([PreparedSource])`."""
    if unknown := set(languages) - set(LANGUAGES):
        raise ValueError(f"unknown language(s) {sorted(unknown)}; use {list(LANGUAGES)}")
    return [doc for lang in languages for doc in _dataset_kb(_DATASET_OF[lang], Path(datasets_dir))]


def _error(path: Path, lineno: int, reason: str) -> LoaderError:
    return LoaderError(str(path), f"line {lineno}: {reason}")


def _record(path: Path, lineno: int, line: str, seen: set[str]) -> dict[str, Any]:
    """One line parsed and checked field by field (types, allowed values, no stray fields)."""
    fail = partial(_error, path, lineno)
    try:
        rec = json.loads(line)
    except json.JSONDecodeError as exc:
        raise fail(f"malformed JSON ({exc.msg})") from exc
    if not isinstance(rec, dict):
        raise fail("not a JSON object")
    kind = rec.get("kind")
    if kind not in KINDS:
        raise fail(f'"kind" must be one of {list(KINDS)}, got {kind!r}')
    for name in sorted(_COMMON | _REQUIRED[kind]):
        if not isinstance(rec.get(name), str) or not rec[name].strip():
            raise fail(f'"{name}" missing or not a non-empty string')
    if stray := sorted(set(rec) - _COMMON - _REQUIRED[kind] - _OPTIONAL.get(kind, set())):
        raise fail(f"unexpected field(s) {stray} for kind {kind!r}")
    if rec["id"] in seen:
        raise fail(f'"id" {rec["id"]!r} is used by an earlier line')
    seen.add(rec["id"])
    lang = rec["language"]
    if lang not in LANGUAGES:
        raise fail(f'"language" must be one of {list(LANGUAGES)}, got {lang!r}')
    if "dataset" in rec and rec["dataset"] != _DATASET_OF[lang]:
        raise fail(f'"dataset" must be {_DATASET_OF[lang]!r} for language {lang!r}')
    field = {"unanswerable": "topic", "false_premise": "title"}.get(kind)
    if field and rec[field] not in KB_TITLES[lang]:
        raise fail(f'"{field}" {rec[field]!r} is not a KB title: {KB_TITLES[lang]}')
    if kind == "false_premise":
        how = rec["contradicted_by"]
        if how not in ("contradicts", "absent"):
            raise fail(f'"contradicted_by" must be "contradicts" or "absent", got {how!r}')
        for name in ("dataset", "paragraph"):
            if (name in rec) != (how == "contradicts"):
                raise fail(f'"{name}" goes with "contradicts" only, and is required there')
        if type(para := rec.get("paragraph", 0)) is not int or para < 0:
            raise fail(f'"paragraph" must be a paragraph index (int >= 0), got {para!r}')
    return rec


@cache
def _items(dataset: str, datasets_dir: Path) -> dict[str, EvalItem]:
    """A dataset's questions by id, read once (the datasets are read-only)."""
    return {it.id: it for it in load_dataset(datasets_dir / DATASETS[dataset]).items}


@cache
def _kb(dataset: str, datasets_dir: Path) -> dict[str, Document]:
    """A dataset's KB paragraphs by `doc_id`, read once."""
    return {doc.doc_id: doc for doc in _dataset_kb(dataset, datasets_dir)}


def _resolve(rec: dict[str, Any], root: Path, fail: partial[LoaderError]) -> dict[str, Any]:
    """The fields of a `SelfRagQuestion` beyond id, language and kind."""
    if rec["kind"] == "answerable":
        ds, sid = rec["dataset"], rec["squad_id"]
        item = _items(ds, root).get(sid)
        if item is None or not item.answerable:
            why = "is not a question of" if item is None else "has no answer in"
            raise fail(f'"squad_id" {sid!r} {why} {DATASETS[ds]}')
        doc = _kb(ds, root).get(item.gold_unit or "")
        if doc is None:
            raise fail(f'"squad_id" {sid!r} is about {item.gold_unit!r}, outside the KB articles')
        return {"question": item.question, "answers": item.answers, "title": doc.title,
                "unit": doc.doc_id}  # fmt: skip
    title = rec["topic"] if rec["kind"] == "unanswerable" else rec["title"]
    fields: dict[str, Any] = {"question": rec["question"].strip(), "answers": (), "title": title}
    if rec["kind"] == "unanswerable":
        return fields
    fields |= {"premise": rec["premise"].strip(), "contradicted_by": rec["contradicted_by"]}
    if rec["contradicted_by"] == "contradicts":
        ds, para = rec["dataset"], rec["paragraph"]
        units = [d.doc_id for d in _kb(ds, root).values()
                 if d.title == title and d.metadata.get("paragraph") == para]  # fmt: skip
        if not units:
            raise fail(f'"paragraph" {para} is not a paragraph of {title!r} in {DATASETS[ds]}')
        fields["unit"] = units[0]
    return fields


def load_questions(
    path: str | Path = DEFAULT_PATH, datasets_dir: str | Path = DEFAULT_DATASETS
) -> list[SelfRagQuestion]:
    """The question set, with answerable questions' text and gold answers read from the datasets
    and every reference (squad id, KB paragraph) checked to lie in the KB."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LoaderError(str(path), f"cannot read: {exc}") from exc
    seen: set[str] = set()
    records = [(n, _record(path, n, line, seen))
               for n, line in enumerate(text.split("\n"), start=1) if line.strip()]  # fmt: skip
    if not records:
        raise LoaderError(str(path), "holds no question")
    root = Path(datasets_dir).resolve()
    return [SelfRagQuestion(rec["id"], rec["language"], rec["kind"],
                            **_resolve(rec, root, partial(_error, path, n)))
            for n, rec in records]  # fmt: skip

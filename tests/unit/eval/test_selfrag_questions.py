"""The Self-RAG benchmark's question set (bench/data/selfrag-questions.jsonl) and its loader.

The file itself is checked without the datasets; resolving its SQuAD ids and KB paragraphs needs
../shared/datasets and is skipped where that is missing. No models are loaded.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from tests.support.files import write
from tests.support.selfrag_questions import (
    DATASETS,
    DEFAULT_DATASETS,
    DEFAULT_PATH,
    EN_ARTICLES,
    KB_TITLES,
    KINDS,
    LANGUAGES,
    TR_ARTICLES,
    kb_documents,
    load_questions,
)

from crag.errors import CragError, LoaderError

HAVE_DATASETS = all((DEFAULT_DATASETS / name).is_file() for name in DATASETS.values())
needs_datasets = pytest.mark.skipif(
    not HAVE_DATASETS, reason=f"datasets missing under {DEFAULT_DATASETS}"
)
TURKISH_LETTERS = set("çğıöşüÇĞİÖŞÜ")
TURKISH_WORDS = {"hangi", "ne", "neden", "nedir", "kim", "kimdir", "nasıl", "kaç", "nerede"}


def records() -> list[dict]:
    lines = DEFAULT_PATH.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def own_questions(language: str) -> list[str]:
    """Questions written for this set (answerable ones are the datasets' own)."""
    return [r["question"] for r in records() if r["language"] == language and "question" in r]


def normalise(text: str) -> str:
    return " ".join(text.casefold().split())


# --- the file, without the datasets ---------------------------------------------------------


def test_at_least_nine_questions_per_language_and_kind() -> None:
    counts = Counter((r["language"], r["kind"]) for r in records())
    assert {(lang, kind) for lang in LANGUAGES for kind in KINDS} == set(counts)
    assert min(counts.values()) >= 9, counts
    assert len({r["id"] for r in records()}) == len(records())


def test_unanswerable_topics_and_false_premise_titles_are_kb_articles() -> None:
    for r in records():
        if r["kind"] != "answerable":
            title = r["topic"] if r["kind"] == "unanswerable" else r["title"]
            assert title in KB_TITLES[r["language"]], r["id"]


def test_false_premises_are_stated_and_both_sub_kinds_are_used() -> None:
    premises = [r for r in records() if r["kind"] == "false_premise"]
    assert all(r["premise"].strip() and r["question"].strip() for r in premises)
    for lang in LANGUAGES:
        how = Counter(r["contradicted_by"] for r in premises if r["language"] == lang)
        assert set(how) == {"contradicts", "absent"} and min(how.values()) >= 3, (lang, how)
    for r in premises:
        has_paragraph = {"dataset", "paragraph"} <= set(r)
        assert has_paragraph == (r["contradicted_by"] == "contradicts"), r["id"]


def test_turkish_questions_are_turkish_some_without_turkish_letters() -> None:
    turkish, english = own_questions("tr"), own_questions("en")
    for q in turkish:
        words = {w.strip("?,'’").casefold() for w in q.split()}
        assert TURKISH_LETTERS & set(q) or words & TURKISH_WORDS, q
    with_letters = [q for q in turkish if TURKISH_LETTERS & set(q)]
    without = [q for q in turkish if not TURKISH_LETTERS & set(q)]
    assert len(with_letters) >= len(turkish) // 2 and len(without) >= 2, without
    assert not any(TURKISH_LETTERS & set(q) for q in english)


def test_no_dataset_text_is_committed_for_answerable_questions() -> None:
    """SQuAD-TR is CC BY-NC-ND: answerable lines carry ids, never question or answer text."""
    for r in records():
        if r["kind"] == "answerable":
            assert set(r) == {"id", "language", "kind", "dataset", "squad_id"}, r["id"]


# --- the loader's errors ----------------------------------------------------------------------

GOOD = {"id": "x-1", "language": "en", "kind": "unanswerable", "question": "Q?", "topic": "Warsaw"}
PREMISE = {"id": "x-2", "language": "en", "kind": "false_premise", "question": "Q?",
           "premise": "P.", "title": "Warsaw", "contradicted_by": "contradicts"}  # fmt: skip
ANSWERABLE = {"id": "x-2", "language": "en", "kind": "answerable", "dataset": "squad-en",
              "squad_id": "abc"}  # fmt: skip


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("{not json", "line 2: malformed JSON"),
        ("[1, 2]", "line 2: not a JSON object"),
        (json.dumps({**GOOD, "id": "x-2", "kind": "trick"}), 'line 2: "kind" must be one of'),
        (json.dumps({**GOOD, "id": "x-2", "question": ""}), 'line 2: "question" missing'),
        (json.dumps(GOOD), "line 2: \"id\" 'x-1' is used by an earlier line"),
        (json.dumps({**GOOD, "id": "x-2", "topic": "Paris"}), "line 2: \"topic\" 'Paris'"),
        (json.dumps({**GOOD, "id": "x-2", "answers": ["a"]}), "line 2: unexpected field"),
        (json.dumps({**GOOD, "id": "x-2", "language": "de"}), 'line 2: "language" must be'),
        (json.dumps(PREMISE), 'line 2: "dataset" goes with "contradicts" only'),
        (json.dumps({**PREMISE, "contradicted_by": "absent", "paragraph": 3}), '"paragraph" goes'),
        (json.dumps({**PREMISE, "dataset": "squad-en", "paragraph": "3"}), "a paragraph index"),
        (json.dumps({**ANSWERABLE, "language": "tr"}), "line 2: \"dataset\" must be 'squad-tr'"),
    ],
)
def test_a_broken_line_is_an_error_naming_file_line_and_field(
    tmp_path: Path, line: str, expected: str
) -> None:
    path = write(tmp_path / "q.jsonl", json.dumps(GOOD) + "\n" + line + "\n")
    with pytest.raises(LoaderError, match="line 2") as err:
        load_questions(path, datasets_dir=tmp_path / "nowhere")
    assert str(path) in str(err.value) and expected in str(err.value)
    assert isinstance(err.value, CragError)


def test_empty_file_and_missing_datasets_are_errors(tmp_path: Path) -> None:
    with pytest.raises(LoaderError, match="holds no question"):
        load_questions(write(tmp_path / "empty.jsonl", "\n"), datasets_dir=tmp_path)
    path = write(tmp_path / "q.jsonl", json.dumps(ANSWERABLE))
    with pytest.raises(LoaderError, match="no such dataset file"):
        load_questions(path, datasets_dir=tmp_path)
    with pytest.raises(ValueError, match="unknown language"):
        kb_documents(("de",), datasets_dir=tmp_path)


# --- against the datasets ---------------------------------------------------------------------


@needs_datasets
def test_kb_is_every_paragraph_of_the_chosen_articles() -> None:
    docs = kb_documents()
    titles = Counter(d.title for d in docs)
    sizes = {"1973 oil crisis": 24, "Packet switch": 23, "Harvard Üniversitesi": 30}
    assert titles == {**{t: len(span) for t, span in EN_ARTICLES.items()}, **sizes}
    assert set(TR_ARTICLES) <= set(titles) and 60 <= len(docs) <= 150
    assert len({(d.metadata["dataset"], d.doc_id) for d in docs}) == len(docs)
    assert all(d.text.strip() for d in docs)
    english = [d for d in docs if d.metadata["dataset"] == "squad-en"]
    # the English articles are runs of the subset file: their ends are where the topic changes
    assert "Super Bowl" in english[40].text and "Warsaw" in english[45].text
    assert "Norman" in english[61].text and "Norman" in english[71].text
    assert [d.title for d in kb_documents(("tr",))] == [d.title for d in docs[len(english) :]]


@needs_datasets
def test_every_question_resolves_and_answers_lie_in_their_kb_paragraph() -> None:
    questions = load_questions()
    assert len(questions) == len(records())
    kb = {(d.metadata["dataset"][-2:], d.doc_id): d for d in kb_documents()}
    for q in questions:
        assert q.question and q.title in KB_TITLES[q.language], q.id
        if q.kind == "answerable":
            doc = kb[(q.language, q.unit)]
            assert doc.title == q.title and q.answers, q.id
            assert any(normalise(a) in normalise(doc.text) for a in q.answers), q.id
        elif q.kind == "false_premise" and q.contradicted_by == "contradicts":
            assert kb[(q.language, q.unit)].title == q.title, q.id
        else:
            assert not q.unit and not q.answers, q.id


@needs_datasets
def test_unknown_or_outside_references_are_errors_naming_the_line(tmp_path: Path) -> None:
    cases = [
        ({**ANSWERABLE, "squad_id": "no-such-id"}, "is not a question of squad-en-dev-subset.json"),
        # a dev question about Nikola Tesla (paragraph 72), outside the KB articles
        ({**ANSWERABLE, "squad_id": _tesla_id()}, "outside the KB articles"),
        # an is_impossible SQuAD-TR question of a KB article (Packet switch)
        ({**ANSWERABLE, "language": "tr", "dataset": "squad-tr",
          "squad_id": "5a5504e1134fea001a0e17f8"}, "has no answer in squad-tr-dev-v1.0.0.json.gz"),
        ({**PREMISE, "language": "tr", "title": "Packet switch", "dataset": "squad-tr",
          "paragraph": 99}, "\"paragraph\" 99 is not a paragraph of 'Packet switch'"),
    ]  # fmt: skip
    for record, expected in cases:
        path = write(tmp_path / "q.jsonl", json.dumps(record) + "\n")
        with pytest.raises(LoaderError, match="line 1") as err:
            load_questions(path)
        assert expected in str(err.value)


def _tesla_id() -> str:
    data = json.loads((DEFAULT_DATASETS / DATASETS["squad-en"]).read_text(encoding="utf-8"))
    paragraph = data["data"][0]["paragraphs"][72]
    assert "Tesla" in paragraph["context"]
    return paragraph["qas"][0]["id"]

"""Dataset readers for `crag eval`: SQuAD v1.1 / v2.0, JSONL, the NQ pair, malformed input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from tests.support.files import write

from crag.datasets import load_dataset, select_items
from crag.datasets.splits import nq_part
from crag.errors import CragError, LoaderError
from crag.eval.kb import default_collection, language_settings, split_kb, tag_parts
from crag.ingest.structured import load_squad_json


def squad(version: str = "v2.0") -> dict:
    second = [
        {"id": "q2", "question": "How many continents?", "answers": [{"text": "two"}] * 3},
    ]
    if version == "v2.0":
        second.append(
            {
                "id": "q3",
                "question": "Who built the moon?",
                "answers": [],
                "plausible_answers": [{"text": "nobody", "answer_start": 0}],
                "is_impossible": True,
            }
        )
    return {
        "version": version,
        "data": [
            {
                "title": "Bosphorus_Strait",
                "paragraphs": [
                    {
                        "context": "The Bosphorus runs through Istanbul.",
                        "qas": [
                            {
                                "id": "q1",
                                "question": "What does the Bosphorus run through?",
                                "answers": [{"text": "Istanbul"}, {"text": "Istanbul "}],
                            }
                        ],
                    },
                    {"context": "It joins two continents, Europe and Asia.", "qas": second},
                ],
            }
        ],
    }


def test_squad_v11(tmp_path: Path) -> None:
    data = load_dataset(write(tmp_path / "s.json", json.dumps(squad("v1.1"))))
    assert data.format == "squad" and data.name == "s" and data.kb == [tmp_path / "s.json"]
    q1, q2 = data.items
    assert (q1.id, q1.question, q1.answers) == ("q1", q1.question, ("Istanbul",))  # deduped
    assert q1.gold_unit == "Bosphorus Strait#0" and q2.gold_unit == "Bosphorus Strait#1"
    assert q1.answerable and q2.answers == ("two",)


def test_squad_v20_unanswerable_and_gzip(tmp_path: Path) -> None:
    path = tmp_path / "tr.json.gz"
    path.write_bytes(gzip.compress(json.dumps(squad("v2.0")).encode()))
    data = load_dataset(path)
    assert data.name == "tr"
    q3 = data.items[-1]
    assert q3.id == "q3" and not q3.answerable
    assert q3.answers == ()  # plausible answers are not gold answers
    assert q3.gold_unit == "Bosphorus Strait#1"


def test_gold_units_are_the_ids_crag_ingest_gives_paragraphs(tmp_path: Path) -> None:
    text = json.dumps(squad())
    path = write(tmp_path / "s.json", text)
    docs, _ = load_squad_json(str(path), text)
    assert {it.gold_unit for it in load_dataset(path).items} <= {d.doc_id for d in docs}


def test_jsonl_questions_with_gold_and_unanswerable(tmp_path: Path) -> None:
    lines = [
        {"question": "Who?", "answers": ["Ada"], "gold": "p1"},
        {"id": "x7", "question": "When?", "answers": [{"text": "1843"}], "gold_passage": 7},
        {"question": "Why?", "answers": []},
    ]
    path = write(tmp_path / "q.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n\n")
    kb = write(tmp_path / "kb.jsonl", '{"id": "p1", "text": "Ada."}\n')
    data = load_dataset(path, [kb])
    a, b, c = data.items
    assert (a.id, a.gold_unit, a.answers, a.answerable) == ("line-1", "p1", ("Ada",), True)
    assert (b.id, b.gold_unit, b.answers) == ("x7", "7", ("1843",))
    assert not c.answerable and c.gold_unit is None
    assert data.kb == [kb]


def test_nq_questions_find_their_passages_file(tmp_path: Path) -> None:
    q = write(tmp_path / "nq-questions-dev.jsonl", '{"question": "q?", "answers": ["a"]}\n')
    passages = write(tmp_path / "nq-passages.jsonl", '{"id": "nq-1", "text": "a"}\n')
    assert load_dataset(q).kb == [passages]
    lone = write(tmp_path / "mine.jsonl", '{"question": "q?", "answers": ["a"]}\n')
    assert load_dataset(lone).kb == []


@pytest.mark.parametrize(
    ("name", "body", "message"),
    [
        ("a.json", "{not json", "malformed JSON at line 1"),
        ("b.json", '{"version": "1.1"}', 'expected an object with a "data" list'),
        ("c.json", '{"data": [{"title": "T"}]}', 'data[0]: no "paragraphs" list'),
        (
            "d.json",
            '{"data": [{"paragraphs": [{"context": "c", "qas": [{"id": "1", "answers": []}]}]}]}',
            'data[0].paragraphs[0].qas[0]: "question" missing',
        ),
        (
            "e.json",
            '{"data": [{"paragraphs": [{"context": "c", "qas": [{"question": "q?"}]}]}]}',
            'qas[0]: no "answers" and not marked "is_impossible"',
        ),
        (
            "f.jsonl",
            '{"question": "ok?", "answers": ["a"]}\n{"question": "q", ',
            "line 2: malformed",
        ),
        ("g.jsonl", '{"answers": ["a"]}\n', 'line 1: "question" missing'),
        ("h.jsonl", '{"question": "q?", "answers": "a"}\n', '"answers" must be a list'),
        ("i.jsonl", '{"question": "q?", "answers": [3]}\n', "answers[0] is not a string"),
        ("j.jsonl", "[1, 2]\n", "line 1: not a JSON object"),
        ("k.jsonl", "\n\n", "holds no question"),
        ("l.csv", "question,answer\n", "unknown dataset format"),
        ("m.json.gz", "not gzip", "not a valid gzip file"),
    ],
)
def test_malformed_input_names_file_and_field(
    tmp_path: Path, name: str, body: str, message: str
) -> None:
    path = write(tmp_path / name, body)
    with pytest.raises(LoaderError) as info:
        load_dataset(path)
    assert str(path) in str(info.value) and message in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(LoaderError, match="no such dataset file"):
        load_dataset(tmp_path / "nope.json")


def test_repeated_ids_are_merged_or_renamed(tmp_path: Path) -> None:
    same = {"id": "d", "question": "Same?", "answers": ["a"]}
    other = {"id": "d", "question": "Other?", "answers": ["b"]}
    path = write(tmp_path / "q.jsonl", "\n".join(json.dumps(x) for x in (same, same, other)))
    data = load_dataset(path)
    assert [it.id for it in data.items] == ["d", "d~3"]
    assert len(data.notes) == 2


def _items(tmp_path: Path, n: int = 40):
    lines = [
        {"id": f"q{i}", "question": f"q{i}?", "answers": [] if i % 4 == 0 else ["a"]}
        for i in range(n)
    ]
    path = write(tmp_path / "q.jsonl", "\n".join(json.dumps(x) for x in lines))
    return load_dataset(path).items


def test_sampling_is_seeded_and_a_larger_limit_extends_a_smaller(tmp_path: Path) -> None:
    items = _items(tmp_path)
    ten = select_items(items, limit=10, seed=3)
    assert ten == select_items(items, limit=10, seed=3)
    assert ten != select_items(items, limit=10, seed=4)
    assert select_items(items, limit=20, seed=3)[:10] == ten
    assert len(select_items(items, seed=3)) == 40


def test_evaluator_split_keys_are_what_training_keys_on(tmp_path: Path) -> None:
    squad_items = load_dataset(write(tmp_path / "s.json", json.dumps(squad()))).items
    assert squad_items[0].split_key == "The Bosphorus runs through Istanbul."  # the context
    line = {"question": "q?", "answers": ["a"], "gold_passage": "nq-00042"}
    (nq,) = load_dataset(write(tmp_path / "q.jsonl", json.dumps(line))).items
    assert nq.split_key == "nq-00042"


def test_unanswerable_share(tmp_path: Path) -> None:
    items = _items(tmp_path)  # 10 of 40 unanswerable
    half = select_items(items, limit=12, seed=1, unanswerable_share=0.5)
    assert len(half) == 12 and sum(not it.answerable for it in half) == 6
    none = select_items(items, limit=12, seed=1, unanswerable_share=0.0)
    assert all(it.answerable for it in none)


def test_split_tags_parts_and_indexes_only_the_kb_part(tmp_path: Path) -> None:
    ids = [f"nq-{i:05d}" for i in range(60)]
    passages = write(
        tmp_path / "nq-passages.jsonl",
        "\n".join(json.dumps({"id": i, "text": f"passage {i}"}) for i in ids) + "\n",
    )
    questions = write(
        tmp_path / "nq-questions-dev.jsonl",
        "\n".join(
            json.dumps({"question": f"{i}?", "answers": ["x"], "gold_passage": i}) for i in ids
        ),
    )
    data = load_dataset(questions)
    tagged = tag_parts(data.items)
    assert [it.part for it in tagged] == [nq_part(i) for i in ids]
    assert {it.part for it in tagged} == {"kb", "web", "held_out"}
    kb_parts = {it.part for it in select_items(tagged, parts={"kb"})}
    assert kb_parts == {"kb"}
    (kb,) = split_kb(data.kb, tmp_path / "work")
    kept = [json.loads(x)["id"] for x in kb.read_text().splitlines()]
    assert kept == [i for i in ids if nq_part(i) == "kb"]
    before = kb.stat().st_mtime_ns
    assert split_kb([passages], tmp_path / "work") == [kb]
    assert kb.stat().st_mtime_ns == before  # unchanged content is not rewritten
    with pytest.raises(CragError, match="JSONL passage files"):
        split_kb([write(tmp_path / "s.json", "{}")], tmp_path / "work")


def test_turkish_gets_the_multilingual_embedding_and_stemmer(settings) -> None:
    tr, notes = language_settings(settings, "tr")
    assert tr.embedding.model == "use-multilingual" and tr.keyword.language == "turkish"
    assert len(notes) == 2
    assert settings.embedding.model == "all-MiniLM-L6-v2"  # the original is not changed
    en, notes = language_settings(settings, "en")
    assert en is settings and not notes
    chosen = settings.model_copy(deep=True)
    chosen.embedding.model = "intfloat/multilingual-e5-small"  # the user's choice is kept
    assert language_settings(chosen, "tr")[0].embedding.model == chosen.embedding.model


def test_default_collection_names() -> None:
    assert default_collection("squad-tr-dev-v1.0.0", False) == "eval-squad-tr-dev-v1.0.0"
    assert default_collection("nq questions/dev", True) == "eval-nq-questions-dev-kb"


def test_plan_settles_collection_language_and_held_out_questions(tmp_path: Path, settings) -> None:
    from crag.datasets.splits import evaluator_part
    from crag.eval.run import EvalConfig, plan_eval

    ids = [f"nq-{i:05d}" for i in range(80)]
    write(tmp_path / "nq-passages.jsonl", "\n".join(json.dumps({"id": i, "text": i}) for i in ids))
    questions = write(
        tmp_path / "nq-questions-dev.jsonl",
        "\n".join(json.dumps({"question": f"who is {i}?", "answers": ["x"], "gold_passage": i})
                  for i in ids),
    )  # fmt: skip
    plan = plan_eval(
        EvalConfig(questions, split=True, evaluator_held_out=True, out=tmp_path / "o"), settings
    )
    assert plan.settings.collection == "eval-nq-questions-dev-kb" and plan.language == "en"
    assert plan.items and all(evaluator_part(it.gold_unit) == "test" for it in plan.items)
    assert plan.modes == ["rag", "crag"] and plan.out_dir == tmp_path / "o"
    tuning = plan_eval(EvalConfig(questions, split=True, tuning_part=True), settings)
    assert tuning.items and all(evaluator_part(it.gold_unit) == "calibrate" for it in tuning.items)
    with pytest.raises(CragError, match="disjoint"):
        plan_eval(EvalConfig(questions, evaluator_held_out=True, tuning_part=True), settings)
    own = plan_eval(EvalConfig(questions, collection="mine", language="tr"), settings)
    assert own.settings.collection == "mine"
    assert own.settings.embedding.model == settings.embedding.model  # an existing index: as is
    assert own.out_dir == Path("crag-eval") / "mine"
    lone = write(tmp_path / "mine.jsonl", '{"question": "q?", "answers": ["a"]}\n')
    with pytest.raises(CragError, match="no knowledge base"):
        plan_eval(EvalConfig(lone), settings)
    with pytest.raises(CragError, match="needs --split"):
        plan_eval(EvalConfig(questions, parts={"kb"}), settings)

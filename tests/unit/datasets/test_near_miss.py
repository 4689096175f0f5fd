"""Near-miss splits (crag.datasets.nearmiss): which questions lose their gold unit, and the
knowledge-base copies without those units. Deterministic, so a resumed run withholds the same."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from crag.datasets import EvalItem, load_dataset
from crag.datasets.nearmiss import NEAR_MISS, choose_near_miss, withhold_kb
from crag.errors import CragError
from crag.ingest.structured import load_jsonl, load_squad_json


def items(n: int, per_unit: int = 1) -> list[EvalItem]:
    out = [
        EvalItem(f"q{i}", f"Question {i}?", (f"a{i}",), f"u{i // per_unit}", True) for i in range(n)
    ]
    out += [EvalItem(f"x{i}", f"Impossible {i}?", (), f"u{i}", False) for i in range(5)]
    return out


def test_share_is_met_and_only_answerable_questions_are_chosen() -> None:
    nm = choose_near_miss(items(40), 0.25, seed=3)
    chosen = [it for it in nm.items if it.part == NEAR_MISS]
    assert len(chosen) == nm.count == 10  # 25 % of the 40 answerable
    assert all(it.answerable and it.answers for it in chosen)
    assert {it.gold_unit for it in chosen} == nm.withheld
    assert [it.id for it in nm.items] == [it.id for it in items(40)]  # order kept


def test_the_choice_is_seeded_and_deterministic() -> None:
    a, b = choose_near_miss(items(40), 0.5, seed=1), choose_near_miss(items(40), 0.5, seed=1)
    c = choose_near_miss(items(40), 0.5, seed=2)
    assert a.withheld == b.withheld and a.digest == b.digest
    assert a.withheld != c.withheld and a.digest != c.digest


def test_every_question_on_a_withheld_unit_becomes_near_miss() -> None:
    # SQuAD asks several questions of one paragraph: withholding it affects them all
    nm = choose_near_miss(items(30, per_unit=3), 0.5, seed=0)
    assert nm.count == 15
    for it in nm.items:
        if it.answerable:
            assert (it.part == NEAR_MISS) == (it.gold_unit in nm.withheld)
    uneven = choose_near_miss(items(10, per_unit=4), 0.5, seed=0)  # groups of 4, 4, 2
    assert uneven.count <= 5  # never more than the share


def test_split_corpus_withholds_only_knowledge_base_passages() -> None:
    pool = [EvalItem(f"q{i}", "Q?", ("a",), f"p{i}", True, part) for i, part in
            enumerate(["kb", "web", "held_out", "kb"] * 5)]  # fmt: skip
    nm = choose_near_miss(pool, 1.0)
    assert {it.id for it in nm.items if it.part == NEAR_MISS} == {
        it.id for it in pool if it.part == "kb"
    }


def test_bad_share_is_refused() -> None:
    for share in (0, -0.1, 1.5):
        with pytest.raises(CragError, match="--near-miss"):
            choose_near_miss(items(4), share)


SQUAD = {
    "data": [
        {"title": "A", "paragraphs": [
            {"context": "Alpha one.", "qas": [{"id": "a0", "question": "One?",
                                             "answers": [{"text": "one"}]}]},
            {"context": "Alpha two.", "qas": [{"id": "a1", "question": "Two?",
                                             "answers": [{"text": "two"}]}]},
        ]},
        {"title": "B", "paragraphs": [
            {"context": "Beta three.", "qas": [{"id": "b0", "question": "Three?",
                                              "answers": [{"text": "three"}]}]},
        ]},
    ]
}  # fmt: skip


def test_squad_copy_drops_the_withheld_paragraphs_and_keeps_the_other_ids(tmp_path: Path) -> None:
    src = tmp_path / "tr.json.gz"
    src.write_bytes(gzip.compress(json.dumps(SQUAD).encode()))
    [copy] = withhold_kb([src], frozenset({"A#0"}), tmp_path / "nm")
    assert copy.name == "tr.json"
    docs, _ = load_squad_json(str(copy), copy.read_text())
    assert {d.doc_id for d in docs} == {"A#1", "B#0"}
    unit_ids = {it.gold_unit for it in load_dataset(src).items}
    assert {d.doc_id for d in docs} <= unit_ids  # positions kept: the ids still match
    mtime = copy.stat().st_mtime_ns
    withhold_kb([src], frozenset({"A#0"}), tmp_path / "nm")
    assert copy.stat().st_mtime_ns == mtime  # unchanged content is not rewritten


def test_jsonl_copy_drops_the_withheld_passages(tmp_path: Path) -> None:
    src = tmp_path / "passages.jsonl"
    src.write_text("".join(json.dumps({"id": f"p{i}", "text": f"t{i}"}) + "\n" for i in range(4)))
    [copy] = withhold_kb([src], frozenset({"p1", "p3"}), tmp_path / "nm")
    docs, _ = load_jsonl(str(copy), copy.read_text())
    assert [d.doc_id for d in docs] == ["p0", "p2"]
    with pytest.raises(CragError, match="neither"):
        withhold_kb([tmp_path / "notes.md"], frozenset({"x"}), tmp_path / "nm")

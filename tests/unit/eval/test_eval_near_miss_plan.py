"""`crag eval --near-miss`: the plan (collection, notes, fingerprint) — no model is loaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crag.config import Settings
from crag.datasets.nearmiss import NEAR_MISS
from crag.errors import CragError
from crag.eval.fingerprint import fingerprint
from crag.eval.run import EvalConfig, plan_eval

SQUAD = {
    "data": [
        {
            "title": f"T{a}",
            "paragraphs": [
                {
                    "context": f"Paragraph {a}-{p} says {a * 10 + p}.",
                    "qas": [
                        {"id": f"q{a}-{p}", "question": f"What does {a}-{p} say?",
                         "answers": [{"text": str(a * 10 + p)}]},
                    ],
                }
                for p in range(5)
            ],
        }
        for a in range(4)
    ]
}  # fmt: skip


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(SQUAD))
    return path


def test_near_miss_gets_its_own_collection_and_fingerprint(tmp_path: Path, dataset: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    plain = plan_eval(EvalConfig(dataset, limit=10), settings)
    plan = plan_eval(EvalConfig(dataset, limit=10, near_miss=0.5), settings)
    assert [it.id for it in plan.items] == [it.id for it in plain.items]  # same sample
    assert plan.near_miss is not None and plan.near_miss.count == 5
    assert sum(it.part == NEAR_MISS for it in plan.items) == 5
    assert plan.settings.collection == f"eval-tiny-nearmiss-{plan.near_miss.digest}"
    assert plan.out_dir.name == f"tiny-nearmiss-{plan.near_miss.digest}"
    assert any("near-miss: 5 question(s)" in n for n in plan.notes)
    found = fingerprint(plan)
    assert found["near_miss"]["withheld"] == plan.near_miss.digest
    assert "near_miss" not in fingerprint(plain)  # runs without it resume as before
    again = plan_eval(EvalConfig(dataset, limit=10, near_miss=0.5), settings)
    assert fingerprint(again) == found


def test_near_miss_needs_its_own_collection(tmp_path: Path, dataset: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    with pytest.raises(CragError, match="--collection"):
        plan_eval(EvalConfig(dataset, near_miss=0.5, collection="mine"), settings)


def test_long_collection_names_stay_valid(tmp_path: Path) -> None:
    path = tmp_path / ("a-very-long-dataset-name-" * 3 + ".json")
    path.write_text(json.dumps(SQUAD))
    plan = plan_eval(EvalConfig(path, near_miss=0.3), Settings(data_dir=tmp_path / "data"))
    name = plan.settings.collection
    assert len(name) <= 61 and name.endswith(f"-nearmiss-{plan.near_miss.digest}")


def test_near_miss_is_judged_with_the_thresholds_calibrated_for_the_full_collection(
    tmp_path: Path, dataset: Path
) -> None:
    from crag.grading.stored import evaluator_name, write_calibration
    from crag.grading.thresholds import thresholds_for

    settings = Settings(data_dir=tmp_path / "data")
    default = plan_eval(EvalConfig(dataset, limit=10, near_miss=0.5), settings)
    s = default.settings
    base = thresholds_for(s.evaluate, "eval-tiny", s.llm.grader.model, s.data_dir)
    assert fingerprint(default)["thresholds"] == {"upper": base.upper, "lower": base.lower}
    # what `crag calibrate -c eval-tiny` stores; the near-miss copy must use it too
    evaluator = evaluator_name(s.evaluate, s.llm.grader.model)
    write_calibration(s.data_dir, "eval-tiny", {"evaluator": evaluator, "upper": 0.4, "lower": 0.3})
    plan = plan_eval(EvalConfig(dataset, limit=10, near_miss=0.5), settings)
    assert fingerprint(plan)["thresholds"] == {"upper": 0.4, "lower": 0.3}


def test_near_miss_is_verified_with_the_cut_calibrated_for_the_full_collection(
    tmp_path: Path, dataset: Path
) -> None:
    from crag.grading.stored import evaluator_name, generator_name, write_calibration
    from crag.pipeline.build import verify_cut

    settings = Settings(data_dir=tmp_path / "data")
    default = plan_eval(EvalConfig(dataset, limit=10, near_miss=0.5), settings)
    assert verify_cut(default.settings) == 0.75
    assert "verify_cut" not in fingerprint(default)  # runs at the default cut resume as before
    s = default.settings
    write_calibration(
        s.data_dir,
        "eval-tiny",
        {
            "evaluator": evaluator_name(s.evaluate, s.llm.grader.model),
            "generator": generator_name(s.llm.generator),
            "upper": 0.4,
            "lower": 0.3,
            "verify_cut": 0.6,
        },
    )
    plan = plan_eval(EvalConfig(dataset, limit=10, near_miss=0.5), settings)
    assert verify_cut(plan.settings) == 0.6 and fingerprint(plan)["verify_cut"] == 0.6
    plain = plan_eval(EvalConfig(dataset, limit=10), settings)
    assert verify_cut(plain.settings) == 0.6 and fingerprint(plain)["verify_cut"] == 0.6


def test_the_escalation_is_part_of_the_fingerprint_where_it_applies(
    tmp_path: Path, dataset: Path
) -> None:
    """A run made without the escalation is not resumed with it, nor the other way round."""
    settings = Settings(data_dir=tmp_path / "data")
    plain = fingerprint(plan_eval(EvalConfig(dataset, limit=10), settings))
    assert "escalation" not in plain  # "web" by default, and no web search: as before
    on = settings.model_copy(deep=True)
    on.evaluate.escalate = True
    found = fingerprint(plan_eval(EvalConfig(dataset, limit=10), on))
    assert found["escalation"] == [0.897, 0.696]  # English, the packaged 1.5B generator
    web = settings.model_copy(deep=True)
    web.web.provider = "searxng"
    web.web.searxng_url = "http://127.0.0.1:9"
    found = fingerprint(plan_eval(EvalConfig(dataset, limit=10), web))
    assert found["escalation"] == [0.897, 0.696]  # the default escalates with web search

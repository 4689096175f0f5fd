"""Thresholds `crag calibrate` stores per collection, and where they sit in the precedence:
explicit settings > stored calibration (this collection, this evaluator) > the defaults."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from crag.config import load_settings
from crag.grading.stored import (
    calibration_path,
    evaluator_name,
    generator_name,
    read_calibration,
    stored_thresholds,
    stored_verify_cut,
    write_calibration,
)
from crag.grading.thresholds import JUDGE_THRESHOLDS, settings_thresholds, thresholds_for

GRADER = "qwen2.5-coder-0.5b"
LLM = {"method": "llm"}  # the judge, named explicitly: the default evaluator may change


def _store(data: Path, collection: str = "notes", **extra: object) -> Path:
    record = {"evaluator": f"llm-judge:{GRADER}", "upper": 0.7, "lower": 0.4, **extra}
    return write_calibration(data, collection, record)


def test_write_then_read_round_trips_beside_the_catalog(tmp_path: Path) -> None:
    path = _store(tmp_path, max_hallucination=0.1)
    assert path == tmp_path / "collections" / "notes" / "calibration.json"
    assert path == calibration_path(tmp_path, "notes")
    record = read_calibration(tmp_path, "notes")
    assert record is not None
    assert record["collection"] == "notes" and record["version"] == 1
    assert (record["upper"], record["lower"], record["max_hallucination"]) == (0.7, 0.4, 0.1)
    assert not list(path.parent.glob(".calibration-*"))  # no temporary file left behind


def test_evaluator_names_follow_the_settings() -> None:
    s = load_settings(evaluate=LLM)
    assert evaluator_name(s.evaluate, "Qwen2.5-Coder-0.5B") == f"llm-judge:{GRADER}"
    ce = load_settings(evaluate={"method": "cross-encoder", "model": "my-eval"})
    assert evaluator_name(ce.evaluate, GRADER) == "cross-encoder:my-eval"


def test_stored_thresholds_apply_only_to_their_collection_and_evaluator(tmp_path: Path) -> None:
    _store(tmp_path)
    s = load_settings(data_dir=tmp_path, evaluate=LLM)
    assert stored_thresholds(tmp_path, "notes", s.evaluate, GRADER) == (0.7, 0.4)
    assert stored_thresholds(tmp_path, "other", s.evaluate, GRADER) is None
    assert stored_thresholds(tmp_path, "notes", s.evaluate, "qwen2.5-coder-1.5b") is None
    ce = load_settings(evaluate={"method": "cross-encoder"})
    assert stored_thresholds(tmp_path, "notes", ce.evaluate, GRADER) is None
    assert stored_thresholds(None, "notes", s.evaluate, GRADER) is None


def test_broken_or_foreign_files_are_ignored_not_fatal(tmp_path: Path) -> None:
    s = load_settings(evaluate=LLM)
    path = calibration_path(tmp_path, "notes")
    path.parent.mkdir(parents=True)
    for body in ("{half", "[1, 2]", json.dumps({"evaluator": f"llm-judge:{GRADER}"})):
        path.write_text(body)
        assert stored_thresholds(tmp_path, "notes", s.evaluate, GRADER) is None
    path.write_text(json.dumps({"evaluator": f"llm-judge:{GRADER}", "upper": 0.2, "lower": 0.5}))
    assert stored_thresholds(tmp_path, "notes", s.evaluate, GRADER) is None  # out of order


def test_precedence_settings_over_stored_over_defaults(tmp_path: Path) -> None:
    judge = load_settings(evaluate=LLM).evaluate
    default = thresholds_for(judge, "notes", GRADER, tmp_path)
    assert (default.upper, default.lower) == JUDGE_THRESHOLDS[GRADER]  # nothing stored yet
    _store(tmp_path)
    stored = thresholds_for(judge, "notes", GRADER, tmp_path)
    assert (stored.upper, stored.lower) == (0.7, 0.4)
    without_dir = thresholds_for(judge, "notes", GRADER)
    assert (without_dir.upper, without_dir.lower) == JUDGE_THRESHOLDS[GRADER]
    explicit = load_settings(evaluate={**LLM, "lower": 0.1}).evaluate
    one = thresholds_for(explicit, "notes", GRADER, tmp_path)
    assert (one.upper, one.lower) == (0.7, 0.1)  # each explicit threshold wins on its own
    per = load_settings(evaluate={**LLM, "per_collection": {"notes": {"upper": 0.9, "lower": 0.8}}})
    chosen = thresholds_for(per.evaluate, "notes", GRADER, tmp_path)
    assert (chosen.upper, chosen.lower) == (0.9, 0.8)


def test_settings_thresholds_follow_the_collections_embedder(tmp_path: Path) -> None:
    """The evidence evaluator's thresholds depend on the embedder; the collection's own one
    decides (`crag calibrate` once reported MiniLM's defaults as "before" on a USE collection)."""
    from crag.grading.evidence import evidence_thresholds

    s = load_settings(data_dir=tmp_path, collection="notes", evaluate={"method": "evidence"})
    assert evidence_thresholds("use-multilingual") != evidence_thresholds(s.embedding.model)
    configured = settings_thresholds(s)
    assert (configured.upper, configured.lower) == evidence_thresholds(s.embedding.model)
    use = settings_thresholds(s, embedding="use-multilingual")
    assert (use.upper, use.lower) == evidence_thresholds("use-multilingual")
    _store(tmp_path, "other", evaluator=f"evidence:{s.evaluate.model}")
    other = settings_thresholds(s, collection="other")
    assert other == thresholds_for(s.evaluate, "other", s.llm.grader.model, tmp_path)


def test_build_pipeline_uses_the_stored_thresholds(tmp_path: Path) -> None:
    from crag.pipeline.build import build_pipeline

    class Judge:
        name = "fake"

        def score(self, question: str, passages: list[str]) -> list[float]:
            return [0.5 for _ in passages]

    settings = load_settings(
        data_dir=tmp_path, collection="notes", evaluate=LLM, rerank={"model": None}
    )
    _store(tmp_path)
    index = SimpleNamespace(embedder=SimpleNamespace(name="all-MiniLM-L6-v2"))  # never searched
    pipeline = build_pipeline(settings, index, evaluator=Judge(), web=None)
    trigger = pipeline.components.trigger
    assert (trigger.upper, trigger.lower) == (0.7, 0.4)


def test_a_stored_verification_cut_applies_to_its_evaluator_and_generator(tmp_path: Path) -> None:
    from crag.pipeline.build import verify_cut

    s = load_settings(data_dir=tmp_path, collection="notes", evaluate=LLM)
    gen = generator_name(s.llm.generator)
    assert gen == f"{s.llm.generator.provider}:{s.llm.generator.model}"
    assert verify_cut(s) == 0.75  # nothing stored
    _store(tmp_path, verify_cut=0.6, generator=gen)
    assert stored_verify_cut(tmp_path, "notes", s.evaluate, GRADER, gen) == 0.6
    assert verify_cut(s) == 0.6
    assert stored_verify_cut(tmp_path, "notes", s.evaluate, GRADER, "ollama:llama3") is None
    ce = load_settings(evaluate={"method": "cross-encoder"}).evaluate
    assert stored_verify_cut(tmp_path, "notes", ce, GRADER, gen) is None
    assert stored_verify_cut(tmp_path, "other", s.evaluate, GRADER, gen) is None
    assert stored_verify_cut(None, "notes", s.evaluate, GRADER, gen) is None
    # generate.verify_cut, when set, wins over the stored one
    explicit = load_settings(data_dir=tmp_path, collection="notes", evaluate=LLM,
                             generate={"verify_cut": 0.88})  # fmt: skip
    assert verify_cut(explicit) == 0.88
    # a calibration run without --answers stores none; a broken value is ignored
    for cut in (None, 1.5, "high"):
        _store(tmp_path, verify_cut=cut, generator=gen)
        assert stored_verify_cut(tmp_path, "notes", s.evaluate, GRADER, gen) is None
        assert verify_cut(s) == 0.75

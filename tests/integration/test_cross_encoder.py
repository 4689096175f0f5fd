"""The shipped, trained evaluator: integrity check, scores that mean something, the cache,
and its place as default reranker + evaluator in the pipeline built from settings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from crag.config import load_settings
from crag.errors import ModelLoadError
from crag.grading.thresholds import thresholds_for
from crag.models.cross_encoder import (
    PACKAGED_EVALUATOR,
    CrossEncoderEvaluator,
    calibrated_thresholds,
    packaged_evaluator_dir,
)

EIFFEL = "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France."
BEES = "Honey bees perform a waggle dance to tell nest mates the direction of flowers."


def test_the_packaged_model_ships_with_manifest_card_and_thresholds() -> None:
    folder = packaged_evaluator_dir()
    manifest = json.loads((folder / "manifest.json").read_text())
    weights = [folder / name for name in manifest["sha256"]]
    assert weights and all(w.exists() for w in weights)
    assert sum(w.stat().st_size for w in weights) <= 50 * 1024 * 1024
    assert (folder / "README.md").read_text().startswith("# crag-evaluator")
    upper, lower = calibrated_thresholds(PACKAGED_EVALUATOR)
    assert 0 <= lower <= upper <= 1
    chosen = thresholds_for(load_settings(evaluate={"method": "cross-encoder"}).evaluate, "d", "x")
    assert chosen.upper == upper


def test_a_tampered_model_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / PACKAGED_EVALUATOR
    shutil.copytree(packaged_evaluator_dir(), copy)
    weights = next(iter(json.loads((copy / "manifest.json").read_text())["sha256"]))
    with (copy / weights).open("r+b") as fh:
        fh.seek(1000)
        fh.write(b"\x00\x01\x02")
    monkeypatch.setattr("crag.models.cross_encoder.packaged_evaluator_dir", lambda: copy)
    with pytest.raises(ModelLoadError, match="does not match the pinned"):
        CrossEncoderEvaluator().score("q", ["p"])


@pytest.mark.slow
def test_answering_passage_outscores_others_and_cache_is_used() -> None:
    ce = CrossEncoderEvaluator()
    q = "In which city is the Eiffel Tower?"
    good, bad = ce.score(q, [EIFFEL, BEES])
    assert 0.0 <= bad < 0.5 < good <= 1.0
    assert ce.precision_used in {"bf16", "int8"}
    calls = []
    original = ce._predict
    ce._predict = lambda question, passages: calls.append(passages) or original(question, passages)
    assert ce.score(q, [BEES, EIFFEL, "new text"]) == pytest.approx(
        [bad, good, ce.score(q, ["new text"])[0]]
    )
    assert calls == [["new text"]]  # only the unseen passage went to the model
    assert ce.score(q, []) == []


@pytest.mark.slow
@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_precisions_agree_on_the_order(precision: str) -> None:
    q = "What do honey bees do to show where flowers are?"
    texts = [EIFFEL, BEES, "Bees live in hives.", "Paris is in France."]
    ref = CrossEncoderEvaluator(precision="bf16").score(q, texts)
    other = CrossEncoderEvaluator(precision=precision).score(q, texts)
    assert (
        sorted(range(4), key=lambda i: ref[i])[-1] == sorted(range(4), key=lambda i: other[i])[-1]
    )
    assert max(abs(a - b) for a, b in zip(ref, other, strict=True)) < 0.1


@pytest.mark.slow
def test_pipeline_shares_one_cross_encoder_for_rerank_and_evaluate(sample_index) -> None:
    from crag.pipeline import build_pipeline

    settings, index = sample_index
    settings = settings.model_copy(deep=True)
    settings.evaluate.method = "cross-encoder"
    settings.rerank.model = "crag-evaluator"
    settings.rerank.weight = 0.6
    pipeline = build_pipeline(settings, index)
    c = pipeline.components
    assert c.reranker is c.evaluator and isinstance(c.evaluator, CrossEncoderEvaluator)
    assert (c.trigger.upper, c.trigger.lower) == calibrated_thresholds(PACKAGED_EVALUATOR)
    assert c.rerank_weight == 0.6
    for event in pipeline.stream("What do honeybees do?", mode="rag"):  # stop before generating
        if event[:2] == ("node", "rerank"):
            top = event[2]["reranked"]
            break
    assert top and all("rerank" in h.scores for h in top)
    assert any(h.score != h.scores["rerank"] for h in top)  # the fused score counts too

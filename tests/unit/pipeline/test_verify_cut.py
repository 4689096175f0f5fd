"""The answer check's verification cut: set, else measured for the generator model."""

from __future__ import annotations

from crag.config import load_settings
from crag.grading.thresholds import JUDGE_THRESHOLDS
from crag.pipeline.build import verify_cut


def test_the_cut_is_the_generators_measured_lower_threshold_unless_set() -> None:
    assert verify_cut(load_settings()) == JUDGE_THRESHOLDS["qwen2.5-coder-1.5b"][1]
    assert verify_cut(load_settings(generate={"verify_cut": 0.6})) == 0.6
    other = load_settings(llm={"generator": {"model": "/models/unmeasured.gguf"}})
    assert verify_cut(other) == 0.5

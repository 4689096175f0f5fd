"""The answer check's verification cut: 0.75 (chosen on tuning questions) unless set."""

from __future__ import annotations

from crag.config import load_settings
from crag.pipeline.build import verify_cut


def test_the_cut_is_three_quarters_unless_set() -> None:
    assert verify_cut(load_settings()) == 0.75
    assert verify_cut(load_settings(generate={"verify_cut": 0.5})) == 0.5
    assert verify_cut(load_settings(generate={"verify_cut": 0.88})) == 0.88

"""The answer check's verification cut: 0.5 (yes more likely than no) unless set."""

from __future__ import annotations

from crag.config import load_settings
from crag.pipeline.build import verify_cut


def test_the_cut_is_one_half_unless_set() -> None:
    assert verify_cut(load_settings()) == 0.5
    assert verify_cut(load_settings(generate={"verify_cut": 0.88})) == 0.88

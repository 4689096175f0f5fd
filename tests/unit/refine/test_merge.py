"""One reading budget for local and web strips (crag.refine.merge)."""

from __future__ import annotations

import math

from crag.refine.merge import merge_budget
from crag.types import Chunk, Strip


def _strips(prefix: str, scores: list[float]) -> list[Strip]:
    chunk = Chunk(f"{prefix}-chunk", "text", "src", "doc", 0, 0, 4)
    return [Strip(f"{prefix}{i}", chunk, i, s) for i, s in enumerate(scores)]


def test_the_best_scored_of_both_kinds_are_read_each_in_its_own_order() -> None:
    local, web = _strips("L", [0.2, 0.9, 0.1]), _strips("W", [0.5, 0.05, 0.6])
    kept_local, kept_web = merge_budget(local, web, 3)
    assert [s.text for s in kept_local] == ["L1"]
    assert [s.text for s in kept_web] == ["W0", "W2"]  # web order kept, not score order


def test_no_budget_or_enough_room_keeps_everything() -> None:
    local, web = _strips("L", [0.2, 0.9]), _strips("W", [0.5])
    assert merge_budget(local, web, 0) == (local, web)
    assert merge_budget(local, web, 3) == (local, web)
    assert merge_budget([], web, 1) == ([], web)
    # one kind alone is not "read together": refinement's and web correction's own top k stand
    assert merge_budget(local, [], 1) == (local, [])
    assert merge_budget([], _strips("W", [0.5, 0.4, 0.3]), 2)[1] == _strips("W", [0.5, 0.4, 0.3])


def test_ties_keep_local_strips_and_unscored_strips_rank_last() -> None:
    local, web = _strips("L", [0.5, math.nan]), _strips("W", [0.5, 0.01])
    kept_local, kept_web = merge_budget(local, web, 2)
    assert [s.text for s in kept_local] == ["L0"]
    assert [s.text for s in kept_web] == ["W0"]
    kept_local, kept_web = merge_budget(local, web, 3)
    assert [s.text for s in kept_local] == ["L0"] and [s.text for s in kept_web] == ["W0", "W1"]

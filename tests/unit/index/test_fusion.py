"""Rank fusion: RRF and min-max weighted fusion against hand-computed numbers."""

from __future__ import annotations

import pytest

from crag.index.fusion import min_max, rrf, weighted

# bm25 ranks a > b > c; dense ranks c > a > d.
BM25 = [("a", 12.0), ("b", 8.0), ("c", 2.0)]
DENSE = [("c", 0.9), ("a", 0.7), ("d", 0.5)]


def test_rrf_hand_computed() -> None:
    fused = rrf([BM25, DENSE], [0.5, 0.5], k=60)
    expected = {
        "a": 0.5 / 61 + 0.5 / 62,
        "c": 0.5 / 63 + 0.5 / 61,
        "b": 0.5 / 62,
        "d": 0.5 / 63,
    }
    assert [cid for cid, _ in fused] == ["a", "c", "b", "d"]
    for cid, score in fused:
        assert score == pytest.approx(expected[cid], rel=1e-12)
    assert fused[0][1] == pytest.approx(0.0162612374405)  # 0.5/61 + 0.5/62


def test_rrf_ignores_scores_and_uses_ranks() -> None:
    rescaled = [(cid, s * 1000 - 5) for cid, s in BM25]
    assert rrf([BM25, DENSE], [0.5, 0.5]) == rrf([rescaled, DENSE], [0.5, 0.5])


def test_rrf_weights_and_k() -> None:
    fused = dict(rrf([BM25, DENSE], [0.2, 0.8], k=10))
    assert fused["a"] == pytest.approx(0.2 / 11 + 0.8 / 12)
    assert fused["c"] == pytest.approx(0.2 / 13 + 0.8 / 11)
    assert fused["b"] == pytest.approx(0.2 / 12)
    assert fused["d"] == pytest.approx(0.8 / 13)
    order = [cid for cid, _ in rrf([BM25, DENSE], [0.2, 0.8], k=10)]
    assert order == ["c", "a", "d", "b"]


def test_rrf_ties_broken_by_id() -> None:
    # x is first in one list, y first in the other: equal fused scores.
    fused = rrf([[("y", 1.0), ("x", 0.5)], [("x", 3.0), ("y", 2.0)]], [0.5, 0.5])
    assert fused[0][1] == fused[1][1]
    assert [cid for cid, _ in fused] == ["x", "y"]
    # Ids that appear in a single list at the same rank.
    fused = rrf([[("zeta", 1.0)], [("alpha", 1.0)]], [1.0, 1.0])
    assert [cid for cid, _ in fused] == ["alpha", "zeta"]


def test_rrf_empty() -> None:
    assert rrf([], []) == []
    assert rrf([[], []], [0.5, 0.5]) == []
    assert rrf([[], DENSE], [0.5, 0.5]) == [
        ("c", pytest.approx(0.5 / 61)),
        ("a", pytest.approx(0.5 / 62)),
        ("d", pytest.approx(0.5 / 63)),
    ]


def test_rrf_weights_must_match_lists() -> None:
    with pytest.raises(ValueError):
        rrf([BM25, DENSE], [1.0])


def test_min_max() -> None:
    assert min_max(BM25) == {"a": 1.0, "b": pytest.approx(0.6), "c": 0.0}
    assert min_max([("x", -3.0), ("y", -1.0), ("z", -2.0)]) == {
        "x": 0.0,
        "y": 1.0,
        "z": pytest.approx(0.5),
    }


def test_min_max_equal_scores_all_one() -> None:
    assert min_max([("a", 0.3), ("b", 0.3), ("c", 0.3)]) == {"a": 1.0, "b": 1.0, "c": 1.0}
    assert min_max([("only", -7.0)]) == {"only": 1.0}


def test_min_max_empty() -> None:
    assert min_max([]) == {}


def test_weighted_hand_computed() -> None:
    # BM25 normalised: a = (12-2)/10 = 1.0, b = (8-2)/10 = 0.6, c = 0.0
    # dense normalised: c = (0.9-0.5)/0.4 = 1.0, a = (0.7-0.5)/0.4 = 0.5, d = 0.0
    fused = weighted([BM25, DENSE], [0.5, 0.5])
    expected = {
        "a": 0.5 * 1.0 + 0.5 * 0.5,  # 0.75
        "c": 0.5 * 0.0 + 0.5 * 1.0,  # 0.5
        "b": 0.5 * 0.6,  # 0.3 (missing from dense: contributes 0)
        "d": 0.5 * 0.0,  # 0.0
    }
    assert [cid for cid, _ in fused] == ["a", "c", "b", "d"]
    for cid, score in fused:
        assert score == pytest.approx(expected[cid], abs=1e-12)


def test_weighted_unequal_weights() -> None:
    fused = weighted([BM25, DENSE], [0.3, 0.7])
    assert dict(fused) == {
        "a": pytest.approx(0.3 * 1.0 + 0.7 * 0.5),  # 0.65
        "c": pytest.approx(0.7 * 1.0),  # 0.7
        "b": pytest.approx(0.3 * 0.6),  # 0.18
        "d": pytest.approx(0.0),
    }
    assert [cid for cid, _ in fused] == ["c", "a", "b", "d"]


def test_weighted_ties_broken_by_id() -> None:
    fused = weighted([[("b", 5.0), ("a", 1.0)], [("a", 9.0), ("b", 3.0)]], [0.5, 0.5])
    assert [cid for cid, _ in fused] == ["a", "b"]
    assert fused[0][1] == fused[1][1] == pytest.approx(0.5)


def test_weighted_equal_scores_list() -> None:
    fused = weighted([[("m", 2.0), ("n", 2.0)], []], [0.4, 0.6])
    assert fused == [("m", pytest.approx(0.4)), ("n", pytest.approx(0.4))]


def test_weighted_empty() -> None:
    assert weighted([], []) == []
    assert weighted([[], []], [0.5, 0.5]) == []


def test_weighted_weights_must_match_lists() -> None:
    with pytest.raises(ValueError):
        weighted([BM25], [0.5, 0.5])

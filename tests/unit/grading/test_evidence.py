"""The default evaluator: the cross-encoder combined with cosine and term overlap."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from crag.grading.evidence import (
    Combination,
    EvidenceEvaluator,
    evidence_thresholds,
    load_combination,
    packaged_combination,
)


class FixedCE:
    name = "ce"

    def __init__(self, scores: dict[str, float]) -> None:
        self.scores = scores

    def score(self, question: str, passages: list[str]) -> list[float]:
        return [self.scores[p] for p in passages]


class WordEmbedder:
    """Bag of words over a tiny vocabulary: a paraphrase sharing 'dance' is close."""

    name = "words"
    vocabulary = ("bee", "dance", "flowers", "far", "moon")

    def embed(self, texts: list[str], kind: str = "document") -> np.ndarray:
        return np.array([[t.lower().count(w) + 0.01 for w in self.vocabulary] for t in texts])


class Words:
    def terms(self, text: str) -> list[str]:
        return [w.strip("?.,").lower() for w in text.split()]


def test_cosine_and_overlap_lift_a_paraphrase_the_cross_encoder_misses() -> None:
    c = Combination(ce=1.0, cosine=4.0, lexical=2.0, bias=-4.0, upper=0.6, lower=0.2)
    passages = ["The bee dance tells how far the flowers are.", "The moon is far."]
    ce = FixedCE({passages[0]: 0.08, passages[1]: 0.08})
    evaluator = EvidenceEvaluator(ce, WordEmbedder(), Words(), c)
    question = "How does a bee tell how far the flowers are?"
    on_topic, off_topic = evaluator.score(question, passages)
    assert on_topic > off_topic
    assert on_topic > 0.08  # the paraphrase is no longer scored as irrelevant
    ce_alone = Combination(ce=1.0, cosine=0.0, lexical=0.0, bias=0.0, upper=0.6, lower=0.2)
    plain = EvidenceEvaluator(ce, WordEmbedder(), Words(), ce_alone)
    assert math.isclose(plain.score(question, passages[:1])[0], 0.08, rel_tol=1e-3)
    assert evaluator.score(question, []) == []


def test_weights_are_chosen_per_embedder_with_a_fallback_without_cosine(tmp_path: Path) -> None:
    path = tmp_path / "combination.json"
    entry = {"ce": 1, "cosine": 2, "lexical": 3, "bias": -1, "upper": 0.7, "lower": 0.2}
    none = {"ce": 1, "lexical": 3, "bias": -2, "upper": 0.6, "lower": 0.1}
    path.write_text(json.dumps({"by_embedding": {"minilm": entry}, "no_embedding": none}))
    assert load_combination(path, "minilm").cosine == 2
    other = load_combination(path, "some/other-model")
    assert (other.cosine, other.embedding, other.upper) == (0.0, None, 0.6)


def test_the_packaged_weights_load_for_the_default_embedder() -> None:
    c = packaged_combination("all-MiniLM-L6-v2")
    assert c.embedding == "sentence-transformers/all-MiniLM-L6-v2"
    assert c.ce > 0 and c.cosine > 0 and c.lexical > 0  # each feature raises the probability
    upper, lower = evidence_thresholds("minilm")
    assert 0 <= lower < upper <= 1


def test_the_packaged_weights_for_the_multilingual_embedder_have_their_own_cosine() -> None:
    c = packaged_combination("use-multilingual")
    assert c.embedding == "use-multilingual"  # fitted on SQuAD-TR, not the fallback
    assert c.cosine > 0 and c.lexical > 0
    upper, lower = evidence_thresholds("use-multilingual")
    assert 0 <= lower < upper <= 1

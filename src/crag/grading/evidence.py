"""The default retrieval evaluator: the trained cross-encoder, combined with retrieval evidence.

Why a combination: the trained cross-encoder (`crag-evaluator`) reads question and passage
together and is fast, but it learned word overlap more than meaning — it scores the demo's
waggle-dance paragraph 0.08 for "how does a honey bee tell others how far away the flowers
are?". The dense embedding's cosine catches that paraphrase, and the share of the question's
stemmed words found in the passage catches names and numbers that the embedding blurs. A
logistic model over the three, fitted on held-apart questions (`python -m bench.combination`,
SQuAD-en "calibrate" questions — SQuAD-TR's for USE-multilingual — never the "test" ones
benchmarks report), turns them into one calibrated probability that the passage holds the
answer:

    p = sigmoid(w_ce · logit(ce) + w_cos · cosine + w_lex · lexical + bias)

On held-out SQuAD-en questions it separates answer-bearing chunks from the rest better than any
of its parts (pair AUC 0.90 against 0.86 for the cross-encoder alone), and questions whose
answer was withheld from those whose answer is there (question AUC 0.85 against 0.80).

The weights belong to the embedding model the cosine came from; they are stored per embedder
in `combination.json` beside the packaged cross-encoder. With an embedder that has no fitted
weights, the cosine term is left out and the other weights are those fitted without it.
"""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

__all__ = [
    "Combination",
    "EvidenceEvaluator",
    "evidence_thresholds",
    "load_combination",
    "logit",
    "packaged_combination",
]


class _Scorer(Protocol):
    name: str

    def score(self, question: str, passages: list[str]) -> list[float]: ...


class _Embedder(Protocol):
    name: str

    def embed(self, texts: list[str], kind: Any = "document") -> np.ndarray: ...


class _Terms(Protocol):
    def terms(self, text: str) -> list[str]: ...


@dataclass(frozen=True, slots=True)
class Combination:
    """Logistic weights over (logit of the cross-encoder, cosine, lexical), and the action
    trigger's thresholds chosen for them."""

    ce: float
    cosine: float
    lexical: float
    bias: float
    upper: float
    lower: float
    embedding: str | None = None  # the embedder the cosine weight was fitted with

    def probability(self, ce: float, cosine: float, lexical: float) -> float:
        z = self.ce * logit(ce) + self.cosine * cosine + self.lexical * lexical + self.bias
        return 1.0 / (1.0 + math.exp(-z))


def logit(p: float, eps: float = 1e-4) -> float:
    p = min(max(p, eps), 1.0 - eps)
    return math.log(p / (1.0 - p))


def load_combination(path: Path, embedding: str) -> Combination:
    """The weights fitted for `embedding`, else the ones fitted without a cosine term."""
    data = json.loads(path.read_text())
    entry = data["by_embedding"].get(embedding) or data["no_embedding"]
    return Combination(
        ce=float(entry["ce"]),
        cosine=float(entry.get("cosine", 0.0)),
        lexical=float(entry["lexical"]),
        bias=float(entry["bias"]),
        upper=float(entry["upper"]),
        lower=float(entry["lower"]),
        embedding=embedding if embedding in data["by_embedding"] else None,
    )


def _packaged_path() -> Path:
    from crag.models.cross_encoder import packaged_evaluator_dir

    return packaged_evaluator_dir() / "combination.json"


def packaged_combination(embedding: str) -> Combination:
    """The shipped weights for the collection's embedder (`Embedder.name` or config name)."""
    from crag.models.embedder import canonical_name

    return load_combination(_packaged_path(), canonical_name(embedding))


def evidence_thresholds(embedding: str) -> tuple[float, float]:
    """(upper, lower) chosen with the shipped weights for this embedder."""
    c = packaged_combination(embedding)
    return c.upper, c.lower


def lexical_overlap(question: list[str], passage: set[str]) -> float:
    """Share of the question's distinct terms that occur in the passage."""
    asked = set(question)
    return len(asked & passage) / len(asked) if asked else 0.0


class EvidenceEvaluator:
    """`RetrievalEvaluator`: cross-encoder + cosine + lexical overlap → one probability.

    `cross_encoder` also serves as the reranker (its scores are cached per pair, so the
    evaluation of the reranked chunks costs only the cosine and the overlap). Question
    embeddings are cached: a question is scored for its chunks, then for their strips.
    """

    def __init__(
        self,
        cross_encoder: _Scorer,
        embedder: _Embedder,
        analyzer: _Terms,
        combination: Combination,
    ) -> None:
        self.cross_encoder = cross_encoder
        self.embedder = embedder
        self.analyzer = analyzer
        self.combination = combination
        self.name = f"evidence:{cross_encoder.name}"
        self._questions: OrderedDict[str, np.ndarray] = OrderedDict()

    def _question_vector(self, question: str) -> np.ndarray:
        vector = self._questions.get(question)
        if vector is None:
            vector = _unit(self.embedder.embed([question], kind="query")[0])
            self._questions[question] = vector
            if len(self._questions) > 64:
                self._questions.popitem(last=False)
        return vector

    def features(self, question: str, passages: list[str]) -> list[tuple[float, float, float]]:
        """(cross-encoder probability, cosine, lexical overlap) per passage."""
        if not passages:
            return []
        ce = self.cross_encoder.score(question, passages)
        if self.combination.cosine:
            q = self._question_vector(question)
            vectors = self.embedder.embed(passages, kind="document")
            cosine = [float(np.dot(q, _unit(v))) for v in vectors]
        else:
            cosine = [0.0] * len(passages)
        asked = self.analyzer.terms(question)
        lexical = [lexical_overlap(asked, set(self.analyzer.terms(p))) for p in passages]
        return list(zip(ce, cosine, lexical, strict=True))

    def score(self, question: str, passages: list[str]) -> list[float]:
        """Calibrated P(the passage holds the answer) per passage, in order."""
        return [
            self.combination.probability(ce, cos, lex)
            for ce, cos, lex in self.features(question, passages)
        ]


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector

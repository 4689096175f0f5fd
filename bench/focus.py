"""Focus: a fourth signal for the evidence evaluator, tried and not adopted.

The idf-weighted share of the question's distinct terms that a chunk's best sentence holds
(idf: BM25's, over the collection's chunks as the keyword index reads them). A SQuAD near
miss shares the question's topic words spread over its sentences, mostly the common ones; the
answering chunk holds the rare ones together. `python -m bench.combination --focus` fits the
evaluator with it. It raised the held-out pair and question AUCs on SQuAD-en, did nothing on
NQ, left answers level, and turned the demo's paraphrased bee question INCORRECT: SQuAD's
questions were written looking at one sentence; real questions paraphrase
(docs/benchmarks.md, "The focus, tried").
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from crag.refine.sentences import sentences
from crag.titles import searchable

__all__ = ["document_frequencies", "focus", "idf", "term_weights"]


def document_frequencies(index: Any) -> tuple[int, Counter[str]]:
    """(chunks, chunks holding each term) over the whole collection, read once."""
    analyzer = index.catalog.analyzer
    df: Counter[str] = Counter()
    chunks = 0
    for info in index.sources():
        for chunk in index.catalog.chunks_of(info.source):
            chunks += 1
            df.update(set(analyzer.terms(searchable(chunk))))
    return chunks, df


def idf(chunks: int, df: int) -> float:
    """Lucene's BM25 idf, as the keyword search ranks by."""
    df = min(max(df, 0), chunks)
    return math.log(1.0 + (chunks - df + 0.5) / (df + 0.5))


def term_weights(asked: list[str], chunks: int, df: Counter[str]) -> dict[str, float]:
    return {t: idf(chunks, df[t]) for t in dict.fromkeys(asked)}


def focus(weights: dict[str, float], passage: str, analyzer: Any) -> float:
    """The idf-weighted share of the question's terms held by the passage's best sentence."""
    total = sum(weights.values())
    if total <= 0.0:
        return 0.0
    best = 0.0
    for sentence in sentences(passage) or [passage]:
        held = set(analyzer.terms(sentence))
        best = max(best, sum(w for t, w in weights.items() if t in held) / total)
    return best

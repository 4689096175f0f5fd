"""The feature rows `bench.combination` fits on: each question run through crag's own retrieval
and reranking, its five chunks' features and gold labels, once as asked and once as a near
miss. Mining is the slow part (minutes of retrieval and embedding) and is kept apart from the
fit and its figures, which `--rows` lets rerun on rows mined once."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import console

__all__ = ["DATASETS", "EMBEDDERS", "FILES", "mine"]

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
EMBEDDERS = {  # the cosines mined per dataset: the embedder a collection of its language gets
    "squad-en": ("all-MiniLM-L6-v2", "use-multilingual"),
    "nq": ("all-MiniLM-L6-v2", "use-multilingual"),
    "squad-tr": ("use-multilingual",),
}
FILES = {
    "squad-en": "squad-en-dev-subset.json",
    "nq": "nq-questions-dev.jsonl",
    "squad-tr": "squad-tr-dev-v1.0.0.json.gz",
}


def _open(name: str, data_dir: Path, reuse_eval: bool) -> tuple[Any, Any, list[Any]]:
    """Settings, index and questions of one dataset (SQuAD-TR: its unanswerable ones too)."""
    from crag.config import load_settings
    from crag.datasets import load_dataset, nq_part
    from crag.eval.kb import default_collection, language_settings, split_kb
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor

    data = load_dataset(DATASETS / FILES[name])
    collection = default_collection(data.name, name == "nq")
    s = load_settings(
        data_dir=data_dir, collection=collection if reuse_eval else f"bench-combination-{name}"
    )
    if name == "nq":
        files = split_kb(data.kb, s.data_dir / "eval")
        items = [it for it in data.items if it.gold_unit and nq_part(it.gold_unit) == "kb"]
    else:  # SQuAD-TR's own unanswerable questions: the paragraph is there, the answer is not
        files = data.kb
        items = [it for it in data.items if it.answerable or name == "squad-tr"]
    if name == "squad-tr":
        s, _ = language_settings(s, "tr")
    index = Index.open(s)
    if index.count() == 0:
        console.print(f"indexing {name} into {s.data_dir}…")
        Ingestor(index, s.ingest).ingest(files)
    return s, index, items


def mine(
    name: str, part: str, n: int, data_dir: Path, reuse_eval: bool = False, with_focus: bool = False
) -> list[dict[str, Any]]:
    """Feature rows for `n` answerable questions of `part`, each also as a near miss, and (for
    SQuAD-TR) `n` of the dataset's unanswerable questions ("impossible": all chunks negative)."""
    from bench.focus import document_frequencies, focus, term_weights
    from crag.datasets import evaluator_part
    from crag.datasets.answers import contains_answer
    from crag.index.analyzer import Analyzer
    from crag.index.retriever import HybridRetriever
    from crag.models.cross_encoder import CrossEncoderEvaluator
    from crag.models.embedder import make_embedder
    from crag.models.reranker import rerank

    s, index, items = _open(name, data_dir, reuse_eval)
    chunks, df = document_frequencies(index) if with_focus else (0, None)
    items = [it for it in items if evaluator_part(it.split_key or "") == part]
    random.Random(0).shuffle(items)
    answerable = [it for it in items if it.answerable][:n]
    items = answerable + [it for it in items if not it.answerable][:n]
    retriever = HybridRetriever(index, s.retrieval)
    ce = CrossEncoderEvaluator("crag-evaluator")
    analyzer = Analyzer(s.keyword.language)
    lang = "tr" if name == "squad-tr" else "en"
    embedders = {make_embedder(e).name: make_embedder(e) for e in EMBEDDERS[name]}
    rows: list[dict[str, Any]] = []
    with console.status(f"{name} {part}: mining {len(items)} questions…"):
        for it in items:
            hits = retriever.search(it.question, k=20)
            for near in (False, True) if it.answerable else (False,):
                pool = [h for h in hits if not (near and h.chunk.doc_id == it.gold_unit)]
                top = rerank(ce, it.question, pool, s.rerank.top_k, s.rerank.weight)
                texts = [h.chunk.text for h in top]
                asked = set(analyzer.terms(it.question))
                row: dict[str, Any] = {
                    "dataset": name,
                    "kind": "near" if near else "answerable" if it.answerable else "impossible",
                    "question": it.question,
                    "texts": texts,  # bench.escalation judges them
                    "ce": ce.score(it.question, texts),
                    "lex": [
                        len(asked & set(analyzer.terms(t))) / max(1, len(asked)) for t in texts
                    ],
                    "gold": [
                        h.chunk.doc_id == it.gold_unit
                        and contains_answer(h.chunk.text, it.answers, lang)
                        for h in top
                    ],
                }
                if df is not None:
                    weights = term_weights(analyzer.terms(it.question), chunks, df)
                    row["focus"] = [focus(weights, t, analyzer) for t in texts]
                for e, embedder in embedders.items():
                    q = embedder.embed([it.question], kind="query")[0]
                    d = embedder.embed(texts, kind="document")
                    row[e] = [
                        float(np.dot(q, v) / (np.linalg.norm(q) * np.linalg.norm(v))) for v in d
                    ]
                rows.append(row)
    index.close()
    return rows

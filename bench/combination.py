"""Fit the default evaluator's combination (crag.grading.evidence) and measure it.

    python -m bench.combination                 # fit on "calibrate" questions, report "test"
    python -m bench.combination --write         # ... and store combination.json in the package

For SQuAD-en and the NQ kb part, each question of a part (crag.datasets.evaluator_part) is run
through crag's own retrieval: hybrid top 20, reranked by the trained cross-encoder blended
with the fused score (the default), top 5. Each of the five chunks gives three features — the
cross-encoder's probability, the cosine of question and chunk embeddings, the share of the
question's stemmed terms in the chunk — and a label: the chunk is part of the gold unit and
holds a gold answer. The same question is then run again with its gold unit withheld (the
"near miss": the topic is there, the answer is not), whose chunks are all negatives.

A logistic regression over the "calibrate" questions' pairs gives the weights, once per
embedder (the packaged MiniLM, and USE-multilingual for other languages) and once without the
cosine. The action trigger's thresholds are chosen on the same questions by two fixed rules,
never on the questions reported: `lower` lets at most 8 % of the answerable questions (gold
chunk among the five) fall below it; `upper` is the lowest cut at which 90 % of the questions
above it hold a gold chunk (half of the questions being near misses). Then the "test"
questions are scored with those weights and thresholds and the figures printed.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import console, print_table, roc_auc, write_results
from crag.grading.evidence import logit

PACKAGED = Path(__file__).resolve().parents[1] / "src/crag/models/data/crag-evaluator"
DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
EMBEDDERS = ("all-MiniLM-L6-v2", "use-multilingual")
MISS_ANSWERABLE = 0.08  # share of answerable questions the lower threshold may reject
UPPER_PRECISION = 0.90  # share of CORRECT verdicts that must hold a gold chunk


def _open(name: str, data_dir: Path) -> tuple[Any, Any, list[Any]]:
    from crag.config import load_settings
    from crag.datasets import load_dataset, nq_part
    from crag.eval.kb import split_kb
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor

    s = load_settings(data_dir=data_dir, collection=f"bench-combination-{name}")
    if name == "squad-en":
        data = load_dataset(DATASETS / "squad-en-dev-subset.json")
        files = data.kb
        items = [it for it in data.items if it.answerable]
    else:
        data = load_dataset(DATASETS / "nq-questions-dev.jsonl")
        files = split_kb(data.kb, s.data_dir / "eval")
        items = [it for it in data.items if it.gold_unit and nq_part(it.gold_unit) == "kb"]
    index = Index.open(s)
    if index.count() == 0:
        console.print(f"indexing {name} into {s.data_dir}…")
        Ingestor(index, s.ingest).ingest(files)
    return s, index, items


def mine(name: str, part: str, n: int, data_dir: Path) -> list[dict[str, Any]]:
    """Feature rows for `n` questions of `part`: answerable and near miss."""
    from crag.datasets import evaluator_part
    from crag.datasets.answers import contains_answer
    from crag.index.analyzer import Analyzer
    from crag.index.retriever import HybridRetriever
    from crag.models.cross_encoder import CrossEncoderEvaluator
    from crag.models.embedder import make_embedder
    from crag.models.reranker import rerank

    s, index, items = _open(name, data_dir)
    items = [it for it in items if evaluator_part(it.split_key or "") == part]
    random.Random(0).shuffle(items)
    retriever = HybridRetriever(index, s.retrieval)
    ce = CrossEncoderEvaluator("crag-evaluator")
    analyzer = Analyzer("english")
    embedders = {make_embedder(e).name: make_embedder(e) for e in EMBEDDERS}
    rows: list[dict[str, Any]] = []
    with console.status(f"{name} {part}: mining {min(n, len(items))} questions…"):
        for it in items[:n]:
            hits = retriever.search(it.question, k=20)
            for near in (False, True):
                pool = [h for h in hits if not (near and h.chunk.doc_id == it.gold_unit)]
                top = rerank(ce, it.question, pool, s.rerank.top_k, s.rerank.weight)
                texts = [h.chunk.text for h in top]
                asked = set(analyzer.terms(it.question))
                row: dict[str, Any] = {
                    "dataset": name,
                    "near": near,
                    "ce": ce.score(it.question, texts),
                    "lex": [
                        len(asked & set(analyzer.terms(t))) / max(1, len(asked)) for t in texts
                    ],
                    "gold": [
                        h.chunk.doc_id == it.gold_unit and contains_answer(h.chunk.text, it.answers)
                        for h in top
                    ],
                }
                for e, embedder in embedders.items():
                    q = embedder.embed([it.question], kind="query")[0]
                    d = embedder.embed(texts, kind="document")
                    row[e] = [
                        float(np.dot(q, v) / (np.linalg.norm(q) * np.linalg.norm(v))) for v in d
                    ]
                rows.append(row)
    index.close()
    return rows


def _pairs(rows: list[dict[str, Any]], embedding: str | None) -> tuple[np.ndarray, np.ndarray]:
    x, y = [], []
    for r in rows:
        for i in range(len(r["ce"])):
            feats = [logit(r["ce"][i]), r["lex"][i]]
            if embedding:
                feats.insert(1, r[embedding][i])
            x.append(feats)
            y.append(int(r["gold"][i]))
    return np.array(x), np.array(y)


def fit(rows: list[dict[str, Any]], embedding: str | None) -> dict[str, float]:
    from sklearn.linear_model import LogisticRegression

    x, y = _pairs(rows, embedding)
    model = LogisticRegression(C=1.0, max_iter=1000).fit(x, y)
    w = model.coef_[0].tolist()
    out = {"ce": w[0], "lexical": w[-1], "bias": float(model.intercept_[0])}
    if embedding:
        out["cosine"] = w[1]
    return out


def question_scores(rows: list[dict[str, Any]], w: dict[str, float], embedding: str | None):
    """(best probability among the five, gold chunk among them) per question row."""
    from crag.grading.evidence import Combination

    c = Combination(w["ce"], w.get("cosine", 0.0), w["lexical"], w["bias"], 1.0, 0.0)
    out = []
    for r in rows:
        cos = r[embedding] if embedding else [0.0] * len(r["ce"])
        p = [c.probability(a, b, d) for a, b, d in zip(r["ce"], cos, r["lex"], strict=True)]
        out.append((max(p) if p else 0.0, any(r["gold"]), p))
    return out


def choose_thresholds(q: list[tuple[float, bool, list[float]]]) -> tuple[float, float]:
    answerable = sorted(p for p, g, _ in q if g)
    lower = answerable[int(MISS_ANSWERABLE * (len(answerable) - 1))]
    upper = 1.0
    for cut in sorted({round(p, 3) for p, _, _ in q}, reverse=True):
        above = [g for p, g, _ in q if p >= cut]
        if len(above) >= 5 and sum(above) / len(above) >= UPPER_PRECISION:
            upper = cut
        elif len(above) >= 5:
            break
    return round(max(upper, lower), 3), round(lower, 3)


def verdict_figures(q: list[tuple[float, bool, list[float]]], upper: float, lower: float):
    decisive = right = correct = incorrect = 0
    for p, g, _ in q:
        if p >= upper or p < lower:
            decisive += 1
            correct += p >= upper
            incorrect += p < lower
            right += (p >= upper) == g
    return {
        "decisive": decisive / len(q),
        "verdict_accuracy": right / decisive if decisive else math.nan,
        "correct": correct,
        "incorrect": incorrect,
        "ambiguous": len(q) - decisive,
        "questions": len(q),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=150, help="per dataset and part")
    ap.add_argument("--data-dir", type=Path, default=Path(".crag/bench"))
    ap.add_argument("--write", action="store_true", help="store combination.json in the package")
    args = ap.parse_args()
    rows = {
        part: [r for d in ("squad-en", "nq") for r in mine(d, part, args.questions, args.data_dir)]
        for part in ("calibrate", "test")
    }
    stored: dict[str, Any] = {"by_embedding": {}, "fitted_on": {}, "test": {}}
    table = []
    names = [k for k in rows["calibrate"][0] if k not in ("dataset", "near", "ce", "lex", "gold")]
    for embedding in (*names, None):
        w = fit(rows["calibrate"], embedding)
        upper, lower = choose_thresholds(question_scores(rows["calibrate"], w, embedding))
        entry = {**w, "upper": upper, "lower": lower}
        figures: dict[str, Any] = {}
        for d in ("squad-en", "nq"):
            test = [r for r in rows["test"] if r["dataset"] == d]
            q = question_scores(test, w, embedding)
            pairs = [(p, int(g)) for r, (_, _, ps) in zip(test, q, strict=True) if not r["near"]
                     for p, g in zip(ps, r["gold"], strict=True)]  # fmt: skip
            near = [p for r, (p, _, _) in zip(test, q, strict=True) if r["near"]]
            ans = [p for r, (p, _, _) in zip(test, q, strict=True) if not r["near"]]
            figures[d] = {
                "pair_auc": roc_auc([p for p, _ in pairs], [g for _, g in pairs]),
                "question_auc": roc_auc(ans + near, [1] * len(ans) + [0] * len(near)),
                "mixed": verdict_figures(q, upper, lower),
                "answerable_only": verdict_figures(
                    [x for r, x in zip(test, q, strict=True) if not r["near"]], upper, lower
                ),
            }
            table.append([embedding or "(no cosine)", d, f"{figures[d]['pair_auc']:.3f}",
                          f"{figures[d]['question_auc']:.3f}", f"{upper:.3f} / {lower:.3f}",
                          f"{figures[d]['mixed']['decisive']:.0%}",
                          f"{figures[d]['mixed']['verdict_accuracy']:.0%}",
                          f"{figures[d]['answerable_only']['decisive']:.0%}",
                          f"{figures[d]['answerable_only']['verdict_accuracy']:.0%}"])  # fmt: skip
        if embedding:
            stored["by_embedding"][embedding] = entry
        else:
            stored["no_embedding"] = entry
        stored["test"][embedding or "none"] = figures
    stored["fitted_on"] = {
        "questions": f"{args.questions} 'calibrate' questions each of SQuAD-en and the NQ kb part",
        "rule": f"lower: at most {MISS_ANSWERABLE:.0%} of answerable questions below; upper: "
        f"{UPPER_PRECISION:.0%} of questions above hold a gold chunk",
    }
    print_table(
        "evidence evaluator on held-out 'test' questions (mixed: half near misses)",
        ["embedder", "dataset", "pair AUC", "question AUC", "upper / lower", "decisive (mixed)",
         "right (mixed)", "decisive (answerable)", "right (answerable)"],
        table,
    )  # fmt: skip
    write_results("combination", stored)
    if args.write:
        (PACKAGED / "combination.json").write_text(json.dumps(stored, indent=2) + "\n")
        console.print(f"wrote {PACKAGED / 'combination.json'}")


if __name__ == "__main__":
    main()

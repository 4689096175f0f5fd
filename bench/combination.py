"""Fit the default evaluator's combination (crag.grading.evidence) and measure it.

    python -m bench.combination                 # fit on SQuAD-en "calibrate" questions,
                                                # report "test" (--datasets squad-en,nq: NQ too)
    python -m bench.combination --write         # ... and store combination.json in the package
    python -m bench.combination --datasets squad-tr --questions 100 --reuse-eval \
        --data-dir DIR --merge                  # USE-multilingual on SQuAD-TR, the rest kept

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

SQuAD-TR (`--datasets squad-tr`) adds the file's own unanswerable questions ("impossible": the
paragraph is indexed, the answer is not in it), as many as the answerable ones, and is mined
with the embedder and stemmer a Turkish collection gets (USE-multilingual, Turkish). `--merge`
writes only the embedders fitted now into the packaged file; `--rows` keeps the mined rows, so
a refit does not mine again; `--reuse-eval` reads the collection `crag eval` built.
`--focus` adds a fourth feature, tried and not adopted (bench/focus.py): the fit and the
figures then include it, and nothing is written to the package.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from bench.combination_rows import FILES, mine
from bench.common import console, print_table, roc_auc, write_results
from crag.grading.evidence import logit

PACKAGED = Path(__file__).resolve().parents[1] / "src/crag/models/data/crag-evaluator"
MISS_ANSWERABLE = 0.08  # share of answerable questions the lower threshold may reject
UPPER_PRECISION = 0.90  # share of CORRECT verdicts that must hold a gold chunk


def _pairs(rows: list[dict[str, Any]], embedding: str | None) -> tuple[np.ndarray, np.ndarray]:
    x, y = [], []
    for r in rows:
        for i in range(len(r["ce"])):
            feats = [logit(r["ce"][i]), r["lex"][i], *([r["focus"][i]] if "focus" in r else [])]
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
    if "focus" in rows[0]:
        out = {"ce": w[0], "lexical": w[-2], "focus": w[-1], "bias": float(model.intercept_[0])}
    else:
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
        # the tried focus (not in Combination: not shipped) shifts each chunk's bias
        focus = r.get("focus", [0.0] * len(r["ce"]))
        feats = zip(r["ce"], cos, r["lex"], focus, strict=True)
        p = [replace(c, bias=c.bias + w.get("focus", 0.0) * f).probability(a, b, d)
             for a, b, d, f in feats]  # fmt: skip
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


def _figures(test: list[dict[str, Any]], w: dict[str, float], embedding: str | None,
             upper: float, lower: float) -> dict[str, Any]:  # fmt: skip
    q = question_scores(test, w, embedding)
    pairs = [(p, int(g)) for r, (_, _, ps) in zip(test, q, strict=True) if r["kind"] != "near"
             for p, g in zip(ps, r["gold"], strict=True)]  # fmt: skip
    asked = [r["kind"] == "answerable" for r in test]
    ans = [p for a, (p, _, _) in zip(asked, q, strict=True) if a]
    neg = [p for a, (p, _, _) in zip(asked, q, strict=True) if not a]
    return {
        "pair_auc": roc_auc([p for p, _ in pairs], [g for _, g in pairs]),
        "question_auc": roc_auc(ans + neg, [1] * len(ans) + [0] * len(neg)),
        "mixed": verdict_figures(q, upper, lower),
        "answerable_only": verdict_figures(
            [x for a, x in zip(asked, q, strict=True) if a], upper, lower
        ),
    }


def _mined(args: argparse.Namespace) -> dict[str, list[dict[str, Any]]]:
    """Feature rows per part, mined once and kept in `--rows` (refits read them back)."""
    if args.rows and args.rows.is_file():
        return json.loads(args.rows.read_text())  # type: ignore[no-any-return]
    rows = {
        part: [r for d in args.datasets
               for r in mine(d, part, args.questions, args.data_dir, args.reuse_eval, args.focus)]
        for part in ("calibrate", "test")
    }  # fmt: skip
    if args.rows:
        args.rows.write_text(json.dumps(rows))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=150, help="per dataset and part")
    # the shipped MiniLM weights were fitted on SQuAD-en alone (NQ: `--datasets squad-en,nq`)
    ap.add_argument("--datasets", default="squad-en", help=f"of {', '.join(FILES)}")
    ap.add_argument("--data-dir", type=Path, default=Path(".crag/bench"))
    ap.add_argument("--reuse-eval", action="store_true", help="the collections crag eval built")
    ap.add_argument("--rows", type=Path, help="keep the mined rows here; read them if present")
    ap.add_argument("--write", action="store_true", help="store combination.json in the package")
    ap.add_argument(
        "--merge", action="store_true", help="write only the embedders mined into combination.json"
    )
    ap.add_argument("--focus", action="store_true", help="add the focus feature (not adopted)")
    args = ap.parse_args()
    if args.focus and (args.write or args.merge):
        ap.error("--focus is not part of the shipped evaluator: nothing to write")
    args.datasets = args.datasets.split(",")
    rows = _mined(args)
    if not args.focus:  # rows mined with --focus, refit without it
        for r in (r for part in rows.values() for r in part):
            r.pop("focus", None)
    stored: dict[str, Any] = {"by_embedding": {}, "fitted_on": {}, "test": {}}
    table = []
    skip = ("dataset", "kind", "question", "texts", "ce", "lex", "focus", "gold")
    names = [k for k in rows["calibrate"][0] if k not in skip]
    for embedding in (*names, *(() if args.merge else (None,))):
        w = fit(rows["calibrate"], embedding)
        upper, lower = choose_thresholds(question_scores(rows["calibrate"], w, embedding))
        entry = {**w, "upper": upper, "lower": lower}
        figures: dict[str, Any] = {}
        for d in args.datasets:
            test = [r for r in rows["test"] if r["dataset"] == d]
            figures[d] = f = _figures(test, w, embedding, upper, lower)
            table.append([embedding or "(no cosine)", d, f"{f['pair_auc']:.3f}",
                          f"{f['question_auc']:.3f}", f"{upper:.3f} / {lower:.3f}",
                          f"{f['mixed']['decisive']:.0%}", f"{f['mixed']['verdict_accuracy']:.0%}",
                          f"{f['answerable_only']['decisive']:.0%}",
                          f"{f['answerable_only']['verdict_accuracy']:.0%}"])  # fmt: skip
        if embedding:
            stored["by_embedding"][embedding] = entry
        else:
            stored["no_embedding"] = entry
        stored["test"][embedding or "none"] = figures
    fitted = f"{args.questions} 'calibrate' questions each of {', '.join(args.datasets)}"
    stored["fitted_on"] = {
        "questions": fitted,
        "rule": f"lower: at most {MISS_ANSWERABLE:.0%} of answerable questions below; upper: "
        f"{UPPER_PRECISION:.0%} of questions above hold a gold chunk",
    }
    print_table(
        "evidence evaluator on held-out 'test' questions (mixed: with near misses / unanswerable)",
        ["embedder", "dataset", "pair AUC", "question AUC", "upper / lower", "decisive (mixed)",
         "right (mixed)", "decisive (answerable)", "right (answerable)"],
        table,
    )  # fmt: skip
    write_results("combination", stored)
    if args.write or args.merge:
        _store(stored, args.merge, fitted)


def _store(stored: dict[str, Any], merge: bool, fitted: str) -> None:
    """Write combination.json; `merge`: replace only the entries fitted now."""
    path = PACKAGED / "combination.json"
    if merge:
        old = json.loads(path.read_text())
        for name, entry in stored["by_embedding"].items():
            old["by_embedding"][name] = {**entry, "fitted_on": fitted}
            old["test"][name] = stored["test"][name]
        stored = old
    path.write_text(json.dumps(stored, indent=2) + "\n")
    console.print(f"wrote {path}")


if __name__ == "__main__":
    main()

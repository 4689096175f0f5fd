"""Retrieval-evaluator benchmark: trained cross-encoder vs LLM judges vs bi-encoder cosine.

    python -m bench.evaluator [--questions 100] [--judges ce,bi,llm-0.5b,llm-1.5b]
                              [--llm-pairs 120] [--model .crag/evaluator/model]
    python -m bench.evaluator --llm-spec ollama:gemma3:27b --base-url http://127.0.0.1:11434
    python -m bench.evaluator --judges spec --llm-spec openai:gpt-4o-mini --llm-format structured

Held-out pairs, labelled exactly as the training pairs are (`crag.grading.training.pairs`):
crag's own hybrid retrieval over each dataset's knowledge base; a chunk or strip is positive
when it is from the gold unit and holds a gold answer, negative when it is from another unit
and holds none (hard negatives), or from the gold unit without the answer. Questions come from
the "test" part of `crag.datasets.splits.evaluator_part` only — the shipped evaluator never saw
them. SQuAD-TR (Turkish) questions whose English original was in the train/calibrate part are
excluded too (SQuAD-TR keeps SQuAD's question ids).

Reported per judge and dataset: ROC-AUC, accuracy at the judge's natural cut (0.5), accuracy
at the best single cut (an upper bound), and pairs/s. The LLM judges run on a seeded subsample
(`--llm-pairs` per dataset): at about one pair per second they cannot do all of them.

`--llm-spec PROVIDER:MODEL` (+ `--base-url`) adds an LLM judge on any registered provider
(Ollama, OpenAI-compatible servers, `local:`), to compare a served model on the same pairs;
`--llm-format structured`: JSON yes/no replies instead of log-probabilities. Pairs a judge
could not score (NaN) count as 0.5 and are reported as `unscored`.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import tempfile
from pathlib import Path
from typing import Any

from bench.common import (
    accuracy,
    best_cut,
    console,
    machine_info,
    print_table,
    roc_auc,
    write_results,
)
from bench.evaluator_judges import judge_names, judge_pairs, make_judge

DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def test_pairs(args: argparse.Namespace, work: Path) -> dict[str, list[Any]]:
    """Held-out pairs per dataset: {name: [Pair, ...]}."""
    from crag.grading.training.corpus import DatasetIndex
    from crag.grading.training.data import load_nq, load_squad, sample, squad_ids
    from crag.grading.training.pairs import mine_pairs

    d = Path(args.datasets)
    out: dict[str, list[Any]] = {}
    squad_en = d / "squad-en-dev-subset.json"
    plans = {
        "squad-en": lambda: (
            DatasetIndex(squad_en, work, "squad"),
            load_squad(squad_en, "test", name="squad-en"),
        ),
        "nq": lambda: (
            DatasetIndex(d / "nq-passages.jsonl", work, "nq"),
            load_nq(d / "nq-questions-dev.jsonl", d / "nq-passages.jsonl", "test"),
        ),
        "squad-tr": lambda: (
            DatasetIndex(
                d / "squad-tr-dev-v1.0.0.json.gz",
                work,
                "squad-tr",
                embedding={"model": "use-multilingual"},
                keyword={"language": "turkish"},
            ),
            load_squad(
                d / "squad-tr-dev-v1.0.0.json.gz",
                "test",
                name="squad-tr",
                exclude_ids=squad_ids(squad_en, "train") | squad_ids(squad_en, "calibrate"),
            ),
        ),
    }
    for name in args.sets.split(","):
        console.print(f"{name}: indexing and mining held-out pairs …")
        index, questions = plans[name]()
        try:
            qs = sample(questions, args.questions, args.seed)
            out[name] = list(mine_pairs(qs, index.search, index.gold_chunks, seed=args.seed))
        finally:
            index.close()
    return out


# English and Turkish question words of non-factoid questions (Turkish: nasıl "how", neden /
# niçin / niye "why"): whether an evaluator fails on question type or on wording.
_HOW_WHY = re.compile(r"\b(how|why|nas[ıi]l|neden|ni[çc]in|niye)\b", re.IGNORECASE)


def question_type(question: str) -> str:
    """The question's type: `how/why` when it holds one of those words (English or Turkish),
    else `other`."""
    return "how/why" if _HOW_WHY.search(question) else "other"


def by_question_type(
    scores: list[float], labels: list[int], subset: list[Any]
) -> dict[str, dict[str, Any]]:
    """AUC and accuracy@0.5 per question type, with the questions and pairs behind them."""
    out: dict[str, dict[str, Any]] = {}
    for kind in ("how/why", "other"):
        idx = [i for i, p in enumerate(subset) if question_type(p.question) == kind]
        s, y = [scores[i] for i in idx], [labels[i] for i in idx]
        out[kind] = {
            "questions": len({subset[i].question for i in idx}),
            "pairs": len(idx),
            "roc_auc": roc_auc(s, y) if idx else float("nan"),
            "accuracy@0.5": accuracy(s, y, 0.5) if idx else float("nan"),
        }
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    names = judge_names(args)
    out: dict[str, Any] = {"machine": machine_info(), "args": vars(args), "results": []}
    with tempfile.TemporaryDirectory(prefix="crag-bench-eval-", ignore_cleanup_errors=True) as tmp:
        sets = test_pairs(args, Path(args.work) if args.work else Path(tmp))
    rng = random.Random(args.seed)
    for name in names:
        judge = make_judge(name, args)
        label = f"{args.llm_spec} ({args.llm_format})" if name == "spec" else name
        for dataset, pairs in sets.items():
            subset = pairs
            if (name.startswith("llm-") or name == "spec") and len(pairs) > args.llm_pairs:
                subset = rng.sample(pairs, args.llm_pairs)
            raw, seconds = judge_pairs(judge, subset, "tr" if "tr" in dataset else "en")
            scores = [0.5 if math.isnan(s) else s for s in raw]  # unscored: reported below
            labels = [int(p.label >= 0.5) for p in subset]
            cut, acc_best = best_cut(scores, labels)
            row = {
                "judge": label,
                "unscored": sum(math.isnan(s) for s in raw),
                "uses_logprobs": getattr(judge, "uses_logprobs", None),
                "dataset": dataset,
                "pairs": len(subset),
                "positives": sum(labels),
                "roc_auc": roc_auc(scores, labels),
                "accuracy@0.5": accuracy(scores, labels, 0.5),
                "best_cut": cut,
                "accuracy@best": acc_best,
                "pairs_per_s": len(subset) / seconds if seconds else None,
                "by_kind": {
                    kind: accuracy(
                        [s for s, p in zip(scores, subset, strict=True) if p.kind == kind],
                        [y for y, p in zip(labels, subset, strict=True) if p.kind == kind],
                        0.5,
                    )
                    for kind in sorted({p.kind for p in subset})
                },
                "by_question_type": by_question_type(scores, labels, subset),
            }
            out["results"].append(row)
            types = "; ".join(
                f"{k}: {v['questions']} questions, AUC {v['roc_auc']:.3f}"
                for k, v in row["by_question_type"].items()
            )
            console.print(
                f"{label} on {dataset}: AUC {row['roc_auc']:.3f} acc@0.5 "
                f"{row['accuracy@0.5']:.3f} {row['pairs_per_s']:.1f} pairs/s ({types})"
            )
    return out


def show(out: dict[str, Any]) -> None:
    print_table(
        "Retrieval evaluator on held-out pairs (never trained on)",
        [
            "judge",
            "dataset",
            "pairs",
            "pos",
            "ROC-AUC",
            "acc@0.5",
            "acc@best (cut)",
            "pairs/s",
            "unscored",
        ],
        [
            (
                r["judge"],
                r["dataset"],
                r["pairs"],
                r["positives"],
                f"{r['roc_auc']:.3f}",
                f"{r['accuracy@0.5']:.3f}",
                f"{r['accuracy@best']:.3f} ({r['best_cut']:.2f})",
                f"{r['pairs_per_s']:.1f}",
                r.get("unscored", 0),
            )
            for r in out["results"]
        ],
        right_from=2,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default="squad-en,nq,squad-tr")
    parser.add_argument("--judges", default="ce,bi,llm-0.5b,llm-1.5b", help="spec: --llm-spec")
    parser.add_argument("--questions", type=int, default=100, help="per dataset")
    parser.add_argument("--llm-pairs", type=int, default=120, help="pairs per dataset for LLMs")
    parser.add_argument("--model", default="crag-evaluator", help="cross-encoder to test")
    parser.add_argument(
        "--llm-spec", default=None,
        help="add an LLM judge on any provider: PROVIDER:MODEL, e.g. ollama:gemma3:27b",
    )  # fmt: skip
    parser.add_argument("--base-url", default=None, help="server URL for --llm-spec")
    parser.add_argument(
        "--llm-format", choices=["auto", "structured"], default="auto",
        help="--llm-spec judge: auto: log-probabilities when returned; structured: JSON yes/no",
    )  # fmt: skip
    parser.add_argument("--precision", default="auto", choices=["auto", "fp32", "bf16", "int8"])
    parser.add_argument("--datasets", default=str(DATASETS))
    parser.add_argument("--models-dir", default=".crag/models", help="packaged GGUF files")
    parser.add_argument("--work", default=None, help="keep indexes here (reused by reruns)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="evaluator")
    args = parser.parse_args(argv)
    out = run(args)
    show(out)
    console.print(f"wrote {write_results(args.out, out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

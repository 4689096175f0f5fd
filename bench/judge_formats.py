"""How the judge's reply format changes its quality: log-probabilities, one word, or JSON.

    python -m bench.judge_formats [--questions 15] [--model qwen2.5-coder-0.5b]

Why: a provider without log-probabilities (older Ollama, Groq, Gemini) forces the judge to
read a reply instead of a probability. This measures, on the same SQuAD pairs and model, the
three ways crag could ask: the Yes/No log-probability judge; the same prompt answered in a
word (parsed tolerantly); and the structured reply crag uses instead — JSON constrained by a
schema to {"answer": "yes"|"no"}. Pairs: a question with its gold paragraph (positive) and
another paragraph of the same article (negative). Reported: ROC-AUC, accuracy at 0.5, the
share of "yes", unreadable replies, pairs/s.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import accuracy, console, machine_info, print_table, roc_auc, write_results


def pairs(path: Path, n: int, seed: int) -> list[tuple[str, str, int]]:
    rng = random.Random(seed)
    articles = [a for a in json.loads(path.read_text())["data"] if len(a["paragraphs"]) > 1]
    out: list[tuple[str, str, int]] = []
    while len(out) < 2 * n:
        article = rng.choice(articles)
        i = rng.randrange(len(article["paragraphs"]))
        gold = article["paragraphs"][i]
        if not gold["qas"]:
            continue
        question = rng.choice(gold["qas"])["question"]
        j = rng.choice([k for k in range(len(article["paragraphs"])) if k != i])
        out += [(question, gold["context"], 1), (question, article["paragraphs"][j]["context"], 0)]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=15)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--datasets", default="../shared/datasets")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="judge-formats")
    args = parser.parse_args(argv)

    from crag.config import default_data_dir, load_settings
    from crag.grading.llm_judge import SYSTEM, USER, LLMJudge, yes_probability
    from crag.models.llm import ChatRequest, LlamaCppLLM
    from crag.models.llm.structured import parse_judgement

    models_dir = load_settings().llm.models_dir or default_data_dir() / "models"
    llm = LlamaCppLLM(args.model, models_dir=models_dir, parallel=1)
    llm.load()
    data = pairs(Path(args.datasets) / "squad-en-dev-subset.json", args.questions, args.seed)

    def prompt(q: str, p: str) -> str:
        return USER.format(question=q, passage=p[:2000])

    def logprobs(q: str, p: str) -> float | None:
        r = llm.chat(ChatRequest.of(SYSTEM, prompt(q, p), max_tokens=1, top_logprobs=10))
        return yes_probability(r.first_token_logprobs)

    def word(q: str, p: str) -> float | None:
        return parse_judgement(llm.chat(ChatRequest.of(SYSTEM, prompt(q, p), max_tokens=4)).text)

    structured = LLMJudge(llm, logprobs=False)

    def json_reply(q: str, p: str) -> float | None:
        score = structured.score(q, [p])[0]
        return None if score != score else score  # NaN: unreadable after retries

    variants: dict[str, Callable[[str, str], float | None]] = {
        "logprobs": logprobs, "one word": word, "JSON (schema)": json_reply,
    }  # fmt: skip
    labels = [y for *_, y in data]
    results: dict[str, Any] = {}
    for name, fn in variants.items():
        started = time.perf_counter()
        raw = [fn(q, p) for q, p, _ in data]
        seconds = time.perf_counter() - started
        scores = [0.5 if s is None else s for s in raw]
        results[name] = {
            "roc_auc": roc_auc(scores, labels),
            "accuracy@0.5": accuracy(scores, labels, 0.5),
            "yes_rate": sum(s >= 0.5 for s in scores) / len(scores),
            "unreadable": sum(s is None for s in raw),
            "pairs_per_second": len(data) / seconds,
        }
        console.print(f"{name}: done")
    print_table(
        f"judge reply formats ({args.model}, {len(data)} SQuAD pairs)",
        ["format", "ROC-AUC", "acc@0.5", "yes rate", "unreadable", "pairs/s"],
        [(n, f"{r['roc_auc']:.3f}", f"{r['accuracy@0.5']:.3f}", f"{r['yes_rate']:.2f}",
          r["unreadable"], f"{r['pairs_per_second']:.2f}") for n, r in results.items()],
    )  # fmt: skip
    path = write_results(args.out, {"machine": machine_info(), "model": args.model,
                                    "pairs": len(data), "formats": results})  # fmt: skip
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

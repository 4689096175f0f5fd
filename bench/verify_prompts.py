"""The answer check's verification under other wordings, on the answers a finished run verified.

    python -m bench.verify_prompts RUN_DIR [RUN_DIR ...] [--variants mark,answer_last]

Unless the evaluator said CORRECT, the generator's model is asked whether the passage holding
the short answer states it as the answer (`crag.generate.verify.AnswerJudge`), and P(yes)
must reach `generate.verify_cut`. This re-asks every verification a run noted, with the
passage rebuilt from its trace (`bench.contrast.load`), under each wording, and reports how
well each separates right answers from wrong ones (ROC-AUC) and what passes at the cut:

- `shipped`: the wording crag uses (the run's own P(yes) is checked against it).
- `mark`: the same, with each occurrence of the answer in the passage marked «like this», so
  the model judges the place the answer was taken from.
- `grader`: the shipped wording asked of the grader role's model (the packaged 0.5B), as a
  second, independent opinion; the table adds the mean of its P(yes) and the run's own.
- `sentence`: the shipped wording over the sentence of the passage that states the answer
  (`crag.generate.quote`, the one the answer quotes), not the whole passage: less to be
  distracted by.
- `answer_last`: the question first, then the passage, then the answer, asked "Is … the
  answer to the question according to the passage?" (the answer next to the reply token).
- `tr_words`: on Turkish questions, the shipped check asked in Turkish (the reply still Yes
  or No, whose first token the judge reads).

Choose on `--tuning-part` runs. Writes bench/results/verify_prompts.json.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from bench.common import console, print_table, roc_auc, write_results
from bench.contrast import load
from crag.generate.quote import quote
from crag.generate.verify import AnswerJudge

VARIANTS = ("shipped", "mark", "sentence", "answer_last", "grader", "tr_words")


class AnswerLast(AnswerJudge):
    """The answer after the passage, next to the reply token."""

    user = (
        "{question}\n\nIs that the answer to the question according to the passage? "
        "Answer Yes or No."
    )


class TurkishWords(AnswerJudge):
    """The shipped check, asked in Turkish."""

    system = "Dikkatli bir doğruluk denetçisisin. Tek kelimeyle yanıt ver: Yes ya da No."
    user = (
        "Metin:\n{passage}\n\nSoru: {question}\n\n"
        "Metin, bunun sorunun yanıtı olduğunu söylüyor mu? Yes ya da No ile yanıt ver."
    )


def _marked(passage: str, short: str) -> str:
    """`passage` with each occurrence of `short` (case folded) marked «short»."""
    pattern = re.compile(re.escape(short), re.IGNORECASE)
    return pattern.sub(lambda m: f"«{m.group()}»", passage)


def score(judge: Any, variant: str, row: dict[str, Any]) -> float | None:
    question, short, passage = row["question"].strip(), row["short"], row["passage"]
    if variant == "tr_words":
        if row["language"] != "tr":
            return None
        return float(judge.score(f"{question}\nYanıt: {short}", [passage])[0])
    if variant == "answer_last":
        text = f"Question: {question}\n\nPassage:\n{passage}\n\nAnswer: {short}"
        return float(judge.score(text, ["-"])[0])  # AnswerLast's message is all in `question`
    if variant == "mark":
        passage = _marked(passage, short)
    if variant == "sentence":
        passage = quote(short, question, passage) or passage
    return float(judge.score(f"{question}\nAnswer: {short}", [passage])[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    if unknown := set(variants) - set(VARIANTS):
        parser.error(f"unknown variants: {', '.join(sorted(unknown))}")
    from crag.config import Settings
    from crag.pipeline.build import make_roles

    roles = make_roles(
        Settings(), ("generator", "grader") if "grader" in variants else ("generator",)
    )
    llm = roles["generator"]
    judge = AnswerJudge(llm)  # `mark`, `sentence` change the passage, not the wording
    judges = {
        "shipped": judge, "mark": judge, "sentence": judge, "answer_last": AnswerLast(llm),
        "tr_words": TurkishWords(llm),
    }  # fmt: skip
    if "grader" in variants:
        judges["grader"] = AnswerJudge(roles["grader"])
    rows = [row for run in args.runs for row in load(run)]
    console.print(f"{len(rows)} verifications from {len(args.runs)} run(s)")
    for i, row in enumerate(rows):
        row["variants"] = {v: score(judges[v], v, row) for v in variants}
        console.print(f"{i + 1}/{len(rows)} {'R' if row['right'] else 'W'} run {row['p']:.2f} "
                      f"{row['variants']} {row['short']!r}")  # fmt: skip
    labels = [int(r["right"]) for r in rows]
    table = [["run's own", f"{roc_auc([r['p'] for r in rows], labels):.3f}", "", ""]]
    for v in variants:
        asked = [r for r in rows if r["variants"][v] is not None]
        scores = [r["variants"][v] for r in asked]
        right = [int(r["right"]) for r in asked]
        own = roc_auc([r["p"] for r in asked], right)
        passed = [r for r, s in zip(asked, scores, strict=True) if s >= 0.75]
        table.append([
            f"{v} ({len(asked)}; run's own there: {own:.3f})", f"{roc_auc(scores, right):.3f}",
            str(sum(r["right"] for r in passed)), str(sum(not r["right"] for r in passed)),
        ])  # fmt: skip
    if "grader" in variants:
        mean = [(r["p"] + r["variants"]["grader"]) / 2 for r in rows]
        table.append(["mean of the run's and the grader's", f"{roc_auc(mean, labels):.3f}", "", ""])
    print_table(
        f"{len(rows)} verifications, {sum(labels)} right",
        ["wording", "AUC", "right ≥ 0.75", "wrong ≥ 0.75"],
        table,
    )
    write_results("verify_prompts", {"runs": [str(r) for r in args.runs], "rows": rows})


if __name__ == "__main__":
    main()

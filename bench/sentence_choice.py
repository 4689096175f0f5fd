"""The generator picks the answering sentence, then reads only it (tried, not adopted).

    python -m bench.sentence_choice RUN_DIR [--limit 100]

The 1.5B reader's wrong answers and declines come from choosing a span among the kept strips'
sentences. A choice among numbered sentences is one generated token, whose log-probabilities
give the model's belief over every sentence at once; if that choice were better than the
reader's own, reading the chosen sentence (or its strip) alone would distract it less. On the
strips a finished `crag eval` run kept (its trace), each question's first nine sentences are
numbered; the model answers with a number ("0": none). The chosen sentence's strip and the
sentence alone are then read with the shipped reader prompt, and each short answer is scored
against the gold answers beside the run's own reading of all sources.

Use tuning-part runs (`crag eval … --tuning-part`). Writes bench/results/sentence_choice.json.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from bench.common import console, generator, print_table, roc_auc, run_args, write_results
from bench.reader_prompts import Question, load, outcome
from crag.eval.metrics import contains_answer
from crag.generate.citations import number_sources
from crag.generate.declined import declined
from crag.generate.language import language_name
from crag.generate.matching import short_answer
from crag.generate.prompt import reading_request
from crag.generate.quote import STOP
from crag.models.llm.base import LLM, ChatRequest, Message
from crag.refine.sentences import sentences
from crag.types import Strip

MAX_SENTENCES = 9  # one digit each: the choice is one token
SYSTEM = (
    "You find the sentence that answers a question. The sentences are numbered. Reply with "
    "the number of the one sentence that states the answer to the question, and nothing "
    "else. If no sentence answers it, reply 0."
)


def numbered(q: Question) -> list[tuple[int, str]]:
    """(strip index, sentence) of the kept strips' first `MAX_SENTENCES` sentences."""
    out = [(i, t.strip()) for i, s in enumerate(q.strips) for t in sentences(s.text) if t.strip()]
    return out[:MAX_SENTENCES]


def choose(llm: LLM, q: Question, sents: list[tuple[int, str]]) -> dict[int, float]:
    """The model's probability of each sentence number (0: none) as its one-token reply."""
    listing = "\n".join(f"[{k + 1}] {t}" for k, (_, t) in enumerate(sents))
    user = f"Sentences:\n{listing}\n\nQuestion: {q.question.strip()}\n\n"
    user += "Which sentence answers the question?"
    request = ChatRequest(
        messages=(Message("system", SYSTEM), Message("user", user)),
        max_tokens=1,
        temperature=0.0,
        purpose="choose",
        top_logprobs=20,
    )
    probs: dict[int, float] = {}
    for token, logprob in llm.chat(request).first_token_logprobs.items():
        t = token.strip()
        if t.isdigit() and int(t) <= len(sents):
            probs[int(t)] = probs.get(int(t), 0.0) + math.exp(logprob)
    return probs


def read(llm: LLM, q: Question, text: str, like: Strip) -> str:
    """The short answer of the shipped reader prompt over `text` alone ("" when declined)."""
    sources = number_sources([Strip(text, like.chunk, 0, like.score)])
    reply = llm.chat(reading_request(q.question, sources, language_name("en"), stop=STOP))
    text = reply.text.strip()
    return "" if declined(text, sources) else short_answer(text)


def ask(llm: LLM, q: Question) -> dict[str, Any]:
    sents = numbered(q)
    probs = choose(llm, q, sents)
    choice = max(probs, key=lambda k: probs[k]) if probs else -1
    row: dict[str, Any] = {
        "question": q.question,
        "baseline": outcome(q.baseline, q.answers, q.answerable),
        "gold": [k + 1 for k, (_, t) in enumerate(sents) if contains_answer(t, q.answers)],
        "choice": choice,
        "p": probs.get(choice, 0.0),
    }
    if choice >= 1:
        strip_index, sentence = sents[choice - 1]
        strip = q.strips[strip_index]
        for name, text in (("strip", strip.text), ("sentence", sentence)):
            row[name] = outcome(read(llm, q, text, strip), q.answers, q.answerable)
    return row


def main() -> None:
    args = run_args(__doc__)
    llm = generator()
    rows = []
    for q in load(args.run)[: args.limit]:
        rows.append(ask(llm, q))
        console.print(f"{len(rows)}: {rows[-1]}")
    held = [r for r in rows if r["gold"]]
    hits = [int(r["choice"] in r["gold"]) for r in held]
    console.print(
        f"the chosen sentence holds a gold answer: {sum(hits)} of {len(held)}; the first "
        f"sentence does: {sum(1 in r['gold'] for r in held)}; AUC of the choice's "
        f"probability for that: {roc_auc([r['p'] for r in held], hits):.3f}"
    )
    table = []
    for name in ("baseline", "strip", "sentence"):
        c = Counter(r.get(name, "declined") for r in rows)
        table.append([name, len(rows), c["right"], c["wrong"], c["declined"]])
    print_table(
        "The run's reading of all sources against the chosen sentence's strip and the sentence",
        ["reading", "questions", "right", "wrong", "declined"],
        table,
    )
    write_results("sentence_choice", {"run": str(args.run), "rows": rows})


if __name__ == "__main__":
    main()

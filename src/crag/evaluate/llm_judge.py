"""The LLM judge: relevance from the probability that the model answers "Yes".

We ask "can the question be answered from the passage alone?" and read the log-probabilities
of the first generated token instead of parsing free text: score = P(yes) / (P(yes) + P(no)),
summed over spellings ("Yes", " yes", "YES"). That gives a graded score a threshold can cut,
and it cannot be derailed by a chatty reply. The wording matters: asked "is it relevant?",
small models say yes to nearly everything on the topic; asked whether the question can be
answered *from the passage alone*, with the question last (closest to the answer token), the
0.5B model separates answer-bearing passages best among the wordings we tried (see
`bench/evaluator.py` and the README's figures).

The passages of a question are scored concurrently (`concurrency` calls in flight, batched
by llama.cpp's parallel slots).
"""

from __future__ import annotations

import logging
import math

from crag.models.llm.base import LLM, ChatRequest
from crag.models.llm.roles import parallel_map

__all__ = ["LLMJudge", "yes_probability"]

log = logging.getLogger(__name__)

SYSTEM = "You are a careful reader. Reply with one word: Yes or No."
USER = (
    "Passage:\n{passage}\n\nQuestion: {question}\n\n"
    "Can the question be answered from the passage alone? Answer Yes or No."
)
_YES = {"yes", "evet"}
_NO = {"no", "hayır", "hayir"}


def yes_probability(logprobs: dict[str, float]) -> float | None:
    """P(yes) / (P(yes) + P(no)) from first-token alternatives; None if neither is among them."""
    yes = sum(math.exp(lp) for tok, lp in logprobs.items() if tok.strip().lower() in _YES)
    no = sum(math.exp(lp) for tok, lp in logprobs.items() if tok.strip().lower() in _NO)
    if yes + no <= 0.0:
        return None
    return yes / (yes + no)


class LLMJudge:
    """`RetrievalEvaluator` backed by a chat model that can return log-probabilities."""

    def __init__(
        self,
        llm: LLM,
        *,
        concurrency: int = 1,
        max_passage_chars: int = 2000,
        top_logprobs: int = 10,
    ) -> None:
        self.llm = llm
        self.name = f"llm-judge:{llm.name}"
        self.concurrency = concurrency
        self.max_passage_chars = max_passage_chars
        self.top_logprobs = top_logprobs
        self.unjudged = 0  # calls whose first token was neither yes nor no (scored 0.5)

    def _one(self, question: str, passage: str) -> float:
        request = ChatRequest.of(
            SYSTEM,
            USER.format(question=question.strip(), passage=passage[: self.max_passage_chars]),
            max_tokens=1,
            temperature=0.0,
            top_logprobs=self.top_logprobs,
            purpose="evaluate",
        )
        result = self.llm.chat(request)
        p = yes_probability(result.first_token_logprobs)
        if p is None:
            # No yes/no among the alternatives (or a provider without logprobs): fall back to
            # the text, and to "don't know" (0.5) when that says nothing either.
            word = result.text.strip().lower().strip(".!")
            p = 1.0 if word in _YES else 0.0 if word in _NO else 0.5
            if word not in _YES | _NO:
                self.unjudged += 1
                log.warning("%s: judge reply %r is not yes/no; scored 0.5", self.name, result.text)
        return p

    def score(self, question: str, passages: list[str]) -> list[float]:
        return parallel_map(lambda p: self._one(question, p), passages, self.concurrency)

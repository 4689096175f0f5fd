"""The LLM judge: relevance from the probability that the model answers "Yes".

We ask "can the question be answered from the passage alone?" and read the log-probabilities
of the first generated token instead of parsing free text: score = P(yes) / (P(yes) + P(no)),
summed over spellings ("Yes", " yes", "YES"). That gives a graded score a threshold can cut,
and it cannot be derailed by a chatty reply. The wording matters: asked "is it relevant?",
small models say yes to nearly everything on the topic; asked whether the question can be
answered *from the passage alone*, with the question last (closest to the answer token), the
0.5B model separates answer-bearing passages best among the wordings we tried (see
`bench/evaluator.py` and the README's figures).

Not every provider returns log-probabilities (older Ollama, Groq, Gemini). Then the judge asks
for a structured answer — JSON constrained by a schema to `{"answer": "yes"|"no"}` where the
server supports it — and reads it with a tolerant parser (fences, prose, "Yes.", "0.8", evet /
hayır). A reply it still cannot read is asked again (with the reply and a reminder) up to
`attempts` times; after that the passage is scored *unknown* (NaN): the action trigger counts
it as neither relevant nor irrelevant, and the trace says so. A parse failure never turns
silently into "irrelevant", which would switch off the corrective branch.

The passages of a question are scored concurrently (`concurrency` calls in flight, batched
by llama.cpp's parallel slots or a remote server).
"""

from __future__ import annotations

import logging
import math

from crag.models.llm.base import LLM, ChatRequest, Message
from crag.models.llm.roles import add_note, parallel_map
from crag.models.llm.structured import JUDGEMENT_SCHEMA, parse_judgement

__all__ = ["UNKNOWN", "LLMJudge", "yes_probability"]

log = logging.getLogger(__name__)

UNKNOWN = math.nan  # a passage the judge could not score
SYSTEM = "You are a careful reader. Reply with one word: Yes or No."
USER = (
    "Passage:\n{passage}\n\nQuestion: {question}\n\n"
    "Can the question be answered from the passage alone? Answer Yes or No."
)
STRUCTURED_SYSTEM = (
    'You are a careful reader. Reply with JSON only: {"answer": "yes"} or {"answer": "no"}.'
)
REMINDER = (
    'That reply could not be read. Reply with exactly {"answer": "yes"} or {"answer": "no"}: '
    "can the question be answered from the passage alone?"
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
    """`RetrievalEvaluator` backed by any chat model: log-probabilities, else structured replies.

    `logprobs=False` skips asking for them (a provider known not to return them); with the
    default the judge asks, and stops asking once the provider has answered without them.
    `unjudged` counts passages scored unknown since the judge was built.

    The wording lives in class attributes (`system`, `user`, `structured_system`, `reminder`)
    so another yes/no check — Self-RAG's "is this claim supported?" — is a subclass with its
    own prompt and the same scoring, fallbacks and unknown handling.
    """

    system = SYSTEM
    user = USER
    structured_system = STRUCTURED_SYSTEM
    reminder = REMINDER
    purpose = "evaluate"

    def __init__(
        self,
        llm: LLM,
        *,
        concurrency: int = 1,
        max_passage_chars: int = 2000,
        top_logprobs: int = 10,
        logprobs: bool = True,
        attempts: int = 3,
    ) -> None:
        self.llm = llm
        self.name = f"llm-judge:{llm.name}"
        self.concurrency = concurrency
        self.max_passage_chars = max_passage_chars
        self.top_logprobs = top_logprobs
        self.attempts = max(1, attempts)
        self.unjudged = 0
        self._logprobs: bool | None = None if logprobs else False  # None: not known yet

    @property
    def uses_logprobs(self) -> bool | None:
        """True/False once known for this provider; None before the first call."""
        return self._logprobs

    def _user(self, question: str, passage: str) -> str:
        return self.user.format(
            question=question.strip(), passage=passage[: self.max_passage_chars]
        )

    def _from_logprobs(self, question: str, passage: str) -> float | None:
        request = ChatRequest.of(
            self.system,
            self._user(question, passage),
            max_tokens=1,
            temperature=0.0,
            top_logprobs=self.top_logprobs,
            purpose=self.purpose,
            keep_prefix=True,  # the instructions: the same for every passage
        )
        result = self.llm.chat(request)
        if result.first_token_logprobs:
            self._logprobs = True
            p = yes_probability(result.first_token_logprobs)
            if p is not None:
                return p
        elif self._logprobs is None:
            self._logprobs = False
            log.info("%s returns no log-probabilities; judging with structured replies", self.name)
        return parse_judgement(result.text)

    def _structured(self, question: str, passage: str) -> tuple[float, str | None]:
        messages = [
            Message("system", self.structured_system),
            Message("user", self._user(question, passage) + ' Reply {"answer": "yes"|"no"}.'),
        ]
        reply = ""
        for attempt in range(self.attempts):
            request = ChatRequest(
                messages=tuple(messages),
                max_tokens=48,
                temperature=0.0,
                seed=attempt,
                json_schema=JUDGEMENT_SCHEMA,
                purpose=self.purpose,
            )
            reply = self.llm.chat(request).text
            judged = parse_judgement(reply)
            if judged is not None:
                return judged, None
            messages += [Message("assistant", reply[:500]), Message("user", self.reminder)]
        return UNKNOWN, reply

    def _one(self, question: str, passage: str) -> tuple[float, str | None]:
        if self._logprobs is not False:
            judged = self._from_logprobs(question, passage)
            if judged is not None:
                return judged, None
        return self._structured(question, passage)

    def score(self, question: str, passages: list[str]) -> list[float]:
        """One score in [0, 1] per passage, or NaN (`UNKNOWN`) where no reply could be read."""
        judged = parallel_map(lambda p: self._one(question, p), passages, self.concurrency)
        failed = [reply for _, reply in judged if reply is not None]
        if failed:
            self.unjudged += len(failed)
            example = " ".join(failed[-1].split())[:80]
            message = (
                f"judge {self.llm.name}: {len(failed)} of {len(passages)} passages unscored after "
                f"{self.attempts} tries each (last reply {example!r}); an unknown score counts "
                "as neither relevant nor irrelevant"
            )
            log.warning(message)
            add_note(message)
        return [score for score, _ in judged]

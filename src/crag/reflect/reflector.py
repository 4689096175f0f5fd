"""The reflector: after generation, is the answer grounded, useful, or an honest refusal?

Self-RAG (Asai et al. 2024) has its critic grade each generated segment: supported by the
passage it cites (ISSUP), useful to the question (ISUSE). crag does the same with the
`reflector` role and two yes/no judges scored like the retrieval evaluator (`judges.py`):

1. **grounded** — per claim: every sentence is judged against the text of the sources it
   cites (all sources for a sentence without a marker). One supported sentence does not vouch
   for another; the unsupported ones are named, so a retry can be told what to fix.
2. **useful** — does the answer give what the question asks for? A grounded answer can still
   miss the point: asked *why the Panthers won* Super Bowl 50, "the Broncos won [1]" is true
   to the source and no answer to the question as asked.
3. **refusal** — "the sources do not say" is honest and counts as grounded (nothing to
   support), but it is not useful: it answers nothing, so the policy may still search. An
   answer that leads with such a sentence, or says it about the question's own words ("The
   caravanserai is on the Silk Road [1]. The sources do not say who built the caravanserai.")
   is a non-answer: never rated useful, and the usefulness judge is not asked (a 0.5B judge
   rated one 0.82: it reads topical text as an answer).

Judges return NaN where they could not read the model's reply; an unknown claim is reported
as unverified, not as unsupported (as with the evaluator, a failing judge must not switch
the pipeline's behaviour on its own).
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from crag.generate.citations import MARK, answer_sentences, cited_numbers
from crag.generate.generator import Generated
from crag.grading.base import RetrievalEvaluator

__all__ = ["ClaimCheck", "Reflection", "Reflector", "is_refusal"]

# Sentences that say the sources lack the answer or contradict the question: honest, and
# nothing in them needs a source. English and Turkish, as the generator writes them.
_REFUSAL = re.compile(
    r"\b(?:i don't know|i do not know|(?:do|does|did) not (?:say|state|mention|contain|provide|"
    r"include|specify|describe|support|answer)|"
    r"(?:don't|doesn't) (?:say|state|mention|contain|provide)|"
    r"not (?:mentioned|stated|specified|provided|given)|no (?:information|mention|evidence)|"
    r"cannot be answered|can't be answered|not_found|"
    r"(?:sources?|passages?|context|documents?|texts?) (?:do|does|did) not \w+|"
    r"(?:cannot|can't|could not|couldn't|unable to) (?:find|determine|tell|answer)|"
    r"none of the (?:sources|passages|documents))\b"
    r"|bilmiyorum|belirtilme|bahsedilme|söz edilme|yer almıyor|içermiyor|yanıtlamıyor"
    r"|bilgi (?:yok|bulunm)",
    re.IGNORECASE,
)


def _plain(text: str) -> str:
    """Text without `[n]` markers, as a judge should read it."""
    return re.sub(r"\s+([.,;:!?])", r"\1", " ".join(MARK.sub(" ", text).split()))


def is_refusal(sentence: str) -> bool:
    """Does this sentence say the sources lack (or contradict) what was asked?"""
    return bool(_REFUSAL.search(sentence))


def _non_answer(question: str, checks: list[ClaimCheck]) -> bool:
    """Does the answer say the sources lack what was asked: its first sentence says the
    sources lack something, or a later one says so about the question's own words? (A caveat
    about something else after a real answer is fine: answers come first.)"""
    from crag.refine.rewrite_check import content_forms

    says_not = [_plain(c.sentence) for c in checks if is_refusal(_plain(c.sentence))]
    if not says_not:
        return False
    if is_refusal(_plain(checks[0].sentence)):
        return True
    asked = content_forms(question)
    return any(content_forms(s) & asked for s in says_not)


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    sentence: str
    cited: tuple[int, ...]
    score: float | None  # P(supported); None: not judged (a refusal sentence) or unknown
    supported: bool | None  # None: the judge could not tell


@dataclass(frozen=True, slots=True)
class Reflection:
    refusal: bool
    grounded: bool
    useful: bool
    usefulness: float | None = None
    claims: tuple[ClaimCheck, ...] = field(default_factory=tuple)

    @property
    def unsupported(self) -> list[str]:
        return [c.sentence for c in self.claims if c.supported is False]

    @property
    def supported_share(self) -> float:
        judged = [c for c in self.claims if c.supported is not None]
        return sum(bool(c.supported) for c in judged) / len(judged) if judged else 1.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Reflector:
    """Runs the checks with injected judges (any `RetrievalEvaluator`-shaped scorer).

    `claims` scores (claim, [source text]); `usefulness` scores (question, [answer]).
    """

    def __init__(
        self,
        claims: RetrievalEvaluator,
        usefulness: RetrievalEvaluator,
        *,
        grounded_threshold: float = 0.5,
        useful_threshold: float = 0.5,
        max_claims: int = 8,
    ) -> None:
        self.claims = claims
        self.usefulness = usefulness
        self.grounded_threshold = grounded_threshold
        self.useful_threshold = useful_threshold
        self.max_claims = max_claims

    def reflect(self, question: str, generated: Generated) -> Reflection:
        if generated.refused or not generated.text.strip():
            return Reflection(refusal=True, grounded=True, useful=False)
        by_n = {s.n: " ".join(s.text.split()) for s in generated.sources}
        everything = " … ".join(by_n.values())
        checks: list[ClaimCheck] = []
        # Sentences split as the attribution check splits them, without its lexical scoring.
        for sentence in answer_sentences(generated.text)[: self.max_claims]:
            cited = cited_numbers(sentence)
            claim = _plain(sentence)
            if not claim or is_refusal(claim):
                checks.append(ClaimCheck(sentence, cited, None, True))
                continue
            source = " … ".join(by_n[n] for n in cited if n in by_n) or everything
            score = self.claims.score(claim, [source])[0]
            known = not math.isnan(score)
            supported = score >= self.grounded_threshold if known else None
            checks.append(ClaimCheck(sentence, cited, score if known else None, supported))
        refusal = all(c.score is None and c.supported for c in checks)
        grounded = all(c.supported is not False for c in checks)
        if refusal:
            return Reflection(True, grounded, False, None, tuple(checks))
        if _non_answer(question, checks):
            return Reflection(False, grounded, False, None, tuple(checks))
        answer = _plain(generated.text)
        useful_score = self.usefulness.score(question, [answer])[0]
        known = not math.isnan(useful_score)
        useful = useful_score >= self.useful_threshold if known else True
        return Reflection(False, grounded, useful, useful_score if known else None, tuple(checks))

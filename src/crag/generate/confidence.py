"""How sure the reader was of its short answer: the probabilities of the tokens that spell it.

The reader writes the short answer first, so the model's probability for each of its tokens
comes with the reading at no extra call (the request asks for log-probabilities). They show
where the model hesitated — two people in one paragraph, a date among dates — and the trace
keeps them for each candidate (`CandidateRecord.probs`). They are not a rule: on the tuning
questions the model was about as sure of its wrong spans as of its right ones (area under
the ROC curve 0.70, the verification's P(yes) 0.70; docs/benchmarks.md, "The reader's token
probabilities").
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["answer_probs"]

_KEEP = 16  # tokens kept: a short answer longer than this is judged on its start


def answer_probs(tokens: Sequence[tuple[str, float]], short: str) -> tuple[float, ...]:
    """The probability of each generated token that spells `short` (its first occurrence in
    the generated text), at most 16; empty when the tokens are unknown or do not spell it."""
    if not tokens or not short:
        return ()
    text = "".join(t for t, _ in tokens)
    start = text.find(short)
    if start < 0:
        return ()
    end, at, out = start + len(short), 0, []
    for token, logprob in tokens:
        lo, at = at, at + len(token)
        if at <= start or not token.strip():
            continue
        if lo >= end:
            break
        out.append(round(math.exp(logprob), 4))
    return tuple(out[:_KEEP])

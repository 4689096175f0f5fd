"""Does the passage tie this answer to this question? The words around the answer decide.

A small reader often copies the wrong name or date out of the right passage ("New York City"
for where a French company had its headquarters), or a plausible one out of a same-topic
passage when the right one is missing. Its own yes/no opinion of the answer does not catch
this: on development questions the packaged 1.5B model's P(yes) was above 0.5 for every
candidate answer, right or wrong. What does separate them is old and simple — the sliding-
window idea of the MCTest and SQuAD baselines (Richardson et al. 2013; Rajpurkar et al. 2016):
where a passage states the answer to a question, the question's own content words stand close
to the answer.

`alignment(question, answer, passage)` is the share of the question's content words (function
words and the answer's own words left out; forms normalised by case, accents and the English
and Turkish stemmers, as in `crag.refine.rewrite_check`) found near an occurrence of the answer
in the passage, each weighted by how near: 1 next to it, 1/2 five words away, nothing beyond
`window` words. The best occurrence counts. 0.0 when the passage does not hold the answer or the
question has no content word. An answer that holds all of the question's content words (a
definition: "What does max_attempts represent?") has nothing left to tie: 1.0 where the passage
holds it word for word, else 0.0. It is a score, not a verdict: the generator uses it to pick
among candidate answers and, below a floor, to decline one (`crag.generate.reader`).
"""

from __future__ import annotations

from crag.refine.rewrite_check import content_words, forms, tokens
from crag.symbols import symbolic

__all__ = ["alignment", "answer_spans"]

WINDOW = 15  # words either side of the answer that can still tie it to the question
HALF_AT = 5  # a question word this many words away counts half


def _runs(answer: str, words: list[frozenset[str]], symbols: bool = False) -> list[tuple[int, int]]:
    """Where the answer's words stand in the passage as one run, in order."""
    target = [forms(w) for w in tokens(answer, symbols)]
    n = len(target)
    if not n:
        return []
    return [
        (i, i + n - 1)
        for i in range(len(words) - n + 1)
        if all(words[i + k] & target[k] for k in range(n))
    ]


def answer_spans(
    answer: str, words: list[frozenset[str]], symbols: bool = False
) -> list[tuple[int, int]]:
    """Where the answer's words stand in the passage: (first, last) word positions.

    An exact run of the answer's words is preferred; failing that ("Hasar, Hachiun, Temüge"
    against "Hasar, Hachiun, and Temüge") each position of one of its content words is a span.
    `symbols`: `words` were read with their symbols, for an answer written in symbols only.
    """
    runs = _runs(answer, words, symbols)
    if runs:
        return runs
    content = [forms(w) for w in content_words(answer)]
    return [(i, i) for i, w in enumerate(words) if any(w & f for f in content)]


def alignment(question: str, answer: str, passage: str, window: int = WINDOW) -> float:
    """Share of the question's content words standing near the answer in `passage` (0–1)."""
    sym = symbolic(answer)  # "~": found among the passage's symbols (crag.symbols)
    answer_forms = {f for w in tokens(answer, sym) for f in forms(w)}
    asked = [forms(w) for w in content_words(question)]
    wanted = [f for f in asked if not f & answer_forms]
    words = [forms(w) for w in tokens(passage, sym)]
    if asked and not wanted:
        # the answer holds every content word of the question ("What does max_attempts
        # represent?" — "max_attempts: An integer representing the maximum number of
        # attempts"): nothing is left to stand near it; a passage that holds the answer
        # word for word states it, one that does not ties it nowhere
        return 1.0 if _runs(answer, words, sym) else 0.0
    spans = answer_spans(answer, words, sym)
    if not wanted or not spans:
        return 0.0
    where = [[i for i, w in enumerate(words) if w & f] for f in wanted]
    best = 0.0
    for first, last in spans:
        got = 0.0
        for positions in where:
            gaps = [first - i if i < first else max(0, i - last) for i in positions]
            gap = min(gaps, default=window + 1)
            if gap <= window:
                got += 1.0 / (1.0 + gap / HALF_AT)
        best = max(best, got / len(wanted))
    return best

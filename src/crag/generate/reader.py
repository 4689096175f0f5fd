"""Several readings, one answer: the candidate the passages tie most closely to the question.

The packaged 1.5B reader, shown five sources at once, often takes a name or a date from the
wrong one; shown the right passage alone, it sometimes reads it better. On 25 development
questions (SQuAD-en, the evaluator's "calibrate" part — never the reported ones) reading all
sources gave 8 right answers; adding the reading of the best source alone and keeping the
better-tied candidate gave 9, the two best 9, the three best 10. One reading alone is the
default: the same gain as two for half the time (each reading costs a model call).

So the generator reads the sources together (the answer that streams) and then the best
`read_alone` of them one at a time. Each reply that is not a refusal is a `Candidate`: its
short answer, and the source where the question's words stand closest to that answer
(`crag.generate.alignment`). A reading alone replaces the reading of all sources only when it
ties its answer closer to the question, and never below `align_floor` (0.15): read alone, a
same-topic passage makes the model name *something*, and on ten development questions whose
passage was withheld, readings alone without a floor turned 3 wrong answers into 7. With the
floor and one reading alone: 9 right, 14 wrong, 2 refused of 25 (one reading: 8, 13, 4); near
misses answered wrongly: 3 of 10, as before. The floor does not apply to the reading of all
sources: the demo's bee question is a paraphrase ("how far away" for "distance") tied only
0.10, and answered right.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from crag.generate.alignment import alignment
from crag.generate.answer_check import cite
from crag.generate.citations import Source, answer_sentences
from crag.generate.confidence import answer_probs
from crag.generate.matching import find_in_sources, short_answer
from crag.generate.repeats import names_nothing
from crag.generate.wording import source_spelling, source_wording
from crag.types import Strip

__all__ = [
    "Candidate",
    "Reading",
    "best_sources",
    "candidate",
    "candidates",
    "rank",
]


@dataclass(frozen=True, slots=True)
class Candidate:
    """One reading's reply, with where its short answer is best tied to the question."""

    reply: str  # the model's reply, its first sentence citing `source`
    short: str
    source: int  # the source number whose text ties the answer closest to the question
    alignment: float
    reading: str  # "all" (every source at once) or "alone [n]"
    read: int = 0  # the source read alone (0: all of them)
    # the probability of each token of `short` as the model wrote it (crag.generate.confidence)
    probs: tuple[float, ...] = ()


def _recite_first(sentences: list[str], n: int, short: str, source: str) -> tuple[str, str]:
    """The reply with its first sentence (the short answer) citing source `n` alone, and the
    short answer in the source's own wording where it spells a number the other way, writes
    its words between other brackets or misspells one (`crag.generate.wording`)."""
    first = sentences[0]
    wording = source_wording(short, source)
    if wording is not None and short in first:
        first, short = first.replace(short, wording, 1), wording
    return " ".join([cite(first, n), *sentences[1:]]), short


def _respelled(first: str, short: str, sources: list[Source]) -> tuple[str, str]:
    """The first sentence and short answer in the spelling of the first source that holds
    the answer with a word misspelled (`source_spelling`): tied to nothing as misspelled, the
    answer would keep the model's citation and pass only as a paraphrase. Unchanged when no
    source holds such a near form."""
    if short in first:
        for s in sources:
            if (spelled := source_spelling(short, s.findable)) is not None:
                return first.replace(short, spelled, 1), spelled
    return first, short


def candidate(
    reply: str,
    question: str,
    sources: list[Source],
    reading: str,
    read: int = 0,
    tokens: Sequence[tuple[str, float]] = (),
) -> Candidate | None:
    """The candidate a reply makes, or None when its first sentence carries no short answer.
    `tokens`: the reading's generated tokens with their log-probabilities, if known."""
    sentences = answer_sentences(reply)
    if not sentences:
        return None
    short = short_answer(sentences[0])
    if not short:
        return None
    probs = answer_probs(tokens, short)
    if not find_in_sources(short, {s.n: s.findable for s in sources}):
        sentences[0], short = _respelled(sentences[0], short, sources)
    scored = [(alignment(question, short, s.findable), s.n) for s in sources]
    best, n = max(scored, key=lambda x: (x[0], -x[1]))
    if best <= 0.0:  # tied nowhere (a paraphrase, or found in no source): the model's citation
        return Candidate(" ".join(sentences), short, 0, 0.0, reading, read, probs)
    text = next(s.findable for s in sources if s.n == n)
    reply, short = _recite_first(sentences, n, short, text)
    return Candidate(reply, short, n, best, reading, read, probs)


def rank(candidates: list[Candidate], floor: float, margin: float = 0.0) -> list[Candidate]:
    """The order in which candidates go through the answer check.

    The reading of all sources comes first unless a reading of one source alone ties its
    answer closer to the question; a reading alone counts only from `floor` up. The reading
    of all sources has no floor: its answer may be a paraphrase no passage holds word for
    word, which the answer check's support test judges instead.

    `margin`: when the reading of the best-scored source alone ties its answer in that source,
    and the reading of all sources took its answer from another one, the reading alone also
    wins when it ties its answer within `margin` of it — the evaluator's best passage breaks
    a near tie.
    """
    main = next((c for c in candidates if c.reading == "all"), None)
    alone = sorted(
        (c for c in candidates if c.reading != "all" and c.alignment >= floor),
        key=lambda c: -c.alignment,
    )
    if main is None:
        return alone
    better = [
        c
        for c in alone
        if c.alignment > main.alignment
        or (
            c.read  # read alone, tied in the passage it read, which gave "all" no answer
            and c.source == c.read != main.source
            and c.alignment >= main.alignment - margin
        )
    ]
    return [*better, main, *(c for c in alone if c not in better)]


def best_sources(strips: list[Strip], sources: list[Source], n: int) -> list[Source]:
    """The `n` sources holding the best-scored strips (in source order when none is scored)."""
    if n <= 0:
        return []
    best: dict[str, float] = {}
    for s in strips:
        score = -math.inf if math.isnan(s.score) else s.score
        best[s.chunk.id] = max(best.get(s.chunk.id, -math.inf), score)
    ordered = sorted(sources, key=lambda s: (-best.get(s.chunk.id, -math.inf), s.n))
    return ordered[:n]


@dataclass(frozen=True, slots=True)
class Reading:
    """One reading's reply: how it was read (`all`, `alone [n]`), the source read alone (0:
    all), and its generated tokens with their log-probabilities (empty when not returned)."""

    reply: str
    how: str
    read: int = 0
    tokens: tuple[tuple[str, float], ...] = ()


def candidates(
    readings: list[Reading], question: str, sources: list[Source], notes: list[str]
) -> list[Candidate]:
    """The candidates of `readings`; a reply that only repeats the question is none (noted)."""
    found: list[Candidate] = []
    for r in readings:
        if (c := candidate(r.reply, question, sources, r.how, r.read, r.tokens)) is None:
            continue
        if (why := names_nothing(c.short, question, sources)) is not None:
            notes.append(f"{c.short!r} ({r.how}) {why}; not an answer")
            continue
        found.append(c)
    return found

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
import re
from collections.abc import Sequence
from dataclasses import dataclass

from crag.generate.alignment import alignment
from crag.generate.answer_check import cite
from crag.generate.citations import Source, answer_sentences
from crag.generate.confidence import answer_probs
from crag.generate.matching import find_in_sources, option_in, short_answer
from crag.generate.wording import source_spelling, source_wording
from crag.refine.rewrite_check import content_forms
from crag.symbols import symbols
from crag.titles import SEPARATOR
from crag.types import Strip

__all__ = [
    "Candidate",
    "Reading",
    "best_sources",
    "candidate",
    "candidates",
    "copies_label",
    "rank",
    "repeats_question",
]

# A question that offers its own choices ("Paris or Lyon?", "… mi yoksa …", "between EU law
# and national law, which …", "AB hukuku ile ulusal hukuk arasında … hangi …") is answered
# with its own words.
_CHOICE = re.compile(r"\b(?:or|yoksa|veya|ya da)\b", re.IGNORECASE)
# two named things: "between X and Y", "X ile Y arasında"
_BETWEEN = re.compile(r"\bbetween\b.+\band\b|\bile\b.+\barasında\b", re.IGNORECASE)
_WHICH = re.compile(r"\b(?:which|hangi\w*)\b", re.IGNORECASE)
# A command-line option ("--ignore-case" for "How do I make grep ignore case?") names the
# thing to type, which the question's words do not: it is an answer even in their words —
# unless the question names that option itself ("What does -R do?" answered "-R").
_OPTION = re.compile(r"--?[^\W\d_]")
# a name as code writes it: words joined by "." or "_", a letter among them ("url.username",
# "SCHED_RR"; not "3.5")
# (or called, as a signature writes it: "contextlib.suppress(*exceptions)")
_CODE_NAME = re.compile(r"(?=.*[^\W\d_])(?P<name>\w+(?:[._]\w+)+)(?:\([^()]*\))?")
# Likewise a quoted literal: "'connection'" for "Which event does a net.Server emit when a new
# connection is made?", "'.html'" for "What does path.extname('index.html') return?" — the
# value to type, in quotes as the documentation writes it; it repeats the question only where
# the question quotes that same value.
_QUOTES = "'\"`‘’“”"
# ... unless the question names that literal by what it is ("What does the move keyword do?",
# "the `?` operator", "the from function"): then it asks about the literal, and the literal is
# no answer (the Rust book's "move" for the move keyword).
_KINDS = (
    r"(?:keyword|operator|function|method|macro|trait|type|attribute|option|flag|command|"
    r"module|class|property|field|variable|constant|parameter|argument)s?"
)


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


def repeats_question(short: str, question: str) -> bool:
    """The short answer says nothing the question did not: all its content words are the
    question's ("curriculum" for "What kind of curriculum …", "Budapest" for "In Budapest,
    where did Tesla work?"). Such a reply names no answer, so it is no candidate — unless the
    question offers choices, or the answer is a command-line option or a quoted literal the
    question neither quotes nor names by what it is ("the `?` operator"), or holds a symbol
    the question does not write ('The "." command' for "Which command repeats the last
    change?": `crag.symbols`), or is a name joined by dots or underscores that the question
    does not write ("url.username" for "Which URL property gets and sets the username portion
    of the URL?", where the section's heading is the property's only name: its words are the
    question's, the name is not), alone or as its signature writes it
    ("contextlib.suppress(*exceptions)" for "Which contextlib context manager suppresses the
    specified exceptions …?"). A short answer of function words only ("Yes") is not judged."""
    if _OPTION.match(short):
        return option_in(short, question)
    if (literal := _quoted(short)) is not None:
        q = re.escape(_QUOTES)
        quoted = re.search(rf"[{q}]{re.escape(literal)}[{q}]", question) is not None
        return quoted or _named_in(literal, question)
    if set(symbols(short)) - set(symbols(question)):
        return False
    code = _CODE_NAME.fullmatch(short.strip())
    if code and code["name"].casefold() not in question.casefold():
        return False  # "url.username" for "Which URL property … the username …?": a name to type
    said = content_forms(short)
    return bool(said) and said <= content_forms(question) and not _offers_choices(question)


def copies_label(short: str, sources: list[Source]) -> bool:
    """The short answer is a source's label, or a run of it across a " › ": the document
    title and section path crag showed before the source (`crag.titles`), which names where
    the text stands, not what it says. The 1.5B reader answered "In which file are the
    objects of the workspace saved …?" with "R-intro › 1 Introduction and preliminaries ›
    Data permanency and removing objects" (and the verification gave it P(yes) 0.71). A short
    answer that some source's text also writes is left alone."""
    said = _squeezed(short).strip(" .()")
    if SEPARATOR.strip() not in said:
        return False
    labelled = any(said in _squeezed(s.label) for s in sources if s.label)
    return labelled and not any(said in _squeezed(s.text) for s in sources)


def _squeezed(text: str) -> str:
    return " ".join(text.split()).casefold()


def _quoted(short: str) -> str | None:
    """The value of a short answer written as a quoted literal ("'close'", "`.html`"), else
    None."""
    text = short.strip()
    if len(text) > 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        inner = text.strip(_QUOTES).strip()
        return inner or None
    return None


def _literal_in(short: str, sources: list[Source]) -> bool:
    """A source writes the short answer as a code literal, in single quotes or backticks
    ("Event: 'connection'"): the model wrote the value without its quotes, and it is a value
    to type, not the question's word "connection". Double quotes are prose quoting and do not
    count."""
    if not short.strip():
        return False
    pattern = re.compile(rf"[`'‘]{re.escape(short.strip())}[`'’]")
    return any(pattern.search(s.findable) for s in sources)


def _named_in(short: str, question: str) -> bool:
    """The question names `short` by what it is: "the move keyword", "the `?` operator"."""
    value = re.escape(short.strip(_QUOTES + " "))
    q = re.escape(_QUOTES)
    pattern = rf"(?<![\w-])[{q}]?{value}[{q}]?\s+{_KINDS}\b"
    return bool(value) and re.search(pattern, question, re.IGNORECASE) is not None


def _offers_choices(question: str) -> bool:
    """ "… or …", or "which" with "between" (a choice between two things the question names)."""
    return bool(_CHOICE.search(question)) or bool(
        _BETWEEN.search(question) and _WHICH.search(question)
    )


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
        literal = _literal_in(c.short, sources) and not _named_in(c.short, question)
        if repeats_question(c.short, question) and not literal:
            notes.append(f"{c.short!r} ({r.how}) only repeats the question; not an answer")
            continue
        if copies_label(c.short, sources):
            notes.append(f"{c.short!r} ({r.how}) is a source's label; not an answer")
            continue
        found.append(c)
    return found

"""The source's own wording of a short answer that the model wrote another way.

The short answer a reader shows should be the words of the source it cites: a reader who
checks the citation then finds them there, and the answer check (`crag.generate.answer_check`)
looks the answer up as a span. A small model copies its source imperfectly: it spells a number
the other way ("4" for "four"), writes a type between other brackets ("Box[T]" for
"Box<T>"), or drops a letter of a name ("Sostatus of Cnidus" read from "Sostratus of Cnidus",
which the answer check then let through only as a paraphrase, misspelled), or drops a hidden
name's leading dot ("First()" for R's ".First()"). `source_wording` gives the source's own
words for each case, or None when the source holds the answer as written, or holds no near
form of it.
"""

from __future__ import annotations

import re

from crag.generate.matching import WORD, fold, span_of, word_spans
from crag.index.numerals import as_digits

__all__ = [
    "bracket_spelling",
    "dotted_name",
    "number_wording",
    "source_spelling",
    "source_wording",
]

_BRACKETS = "()[]{}<>"
_SYMBOLS = "()[]{}<>%$#@&*+=|~^/\\:;.,!?'\"` -"


def source_wording(short: str, source: str) -> str | None:
    """The source's wording of `short` where it differs in one of the ways above; else None."""
    return (
        number_wording(short, source)
        or bracket_spelling(short, source)
        or source_spelling(short, source)
        or dotted_name(short, source)
    )


# where a name's leading dot starts a token: after a space, the text's start or an opening
# bracket or quote (not "obj.First()", a member of obj)
_TOKEN_START = " \t\n([{'\"‘“`"


def dotted_name(short: str, source: str) -> str | None:
    """The source's name for a short answer it writes only after a leading dot: "First()"
    read from "Any function named .First() in either of the two profile files …" is shown
    ".First()", as "RData" would be ".RData" — a hidden file's or a hidden object's name,
    whose dot the model took for punctuation. One word (no space) with a letter in it; every
    place the source writes it must follow such a dot, at least one. None otherwise."""
    name = short.strip()
    if not name or " " in name or name.startswith(".") or not any(c.isalpha() for c in name):
        return None
    found = [m.start() for m in re.finditer(rf"(?<![\w.]){re.escape(name)}(?!\w)", source)]
    dotted = [m.start() for m in re.finditer(rf"\.{re.escape(name)}(?!\w)", source)]
    starts = [i for i in dotted if i == 0 or source[i - 1] in _TOKEN_START]
    return f".{name}" if starts and not found and len(starts) == len(dotted) else None


def number_wording(short: str, source: str) -> str | None:
    """The source's own wording of a short answer that spells a number the other way.

    "4" read from a passage that says "four academic divisions" is shown as "four": the
    answer then quotes its source, and a reader checking it finds the words it cites. None
    when the source holds the answer as written, or not at all.
    """
    want = fold(short)
    raw = [w.casefold() for w in WORD.findall(short)]
    if not want:
        return None
    have = word_spans(source)
    found: str | None = None
    n = len(want)
    for i in range(len(have) - n + 1):
        window = have[i : i + n]
        if [w for w, _, _ in window] != want:
            continue
        wording = source[window[0][1] : window[-1][2]]
        spelled = [w.casefold() for w in WORD.findall(wording)]
        if spelled == raw:
            return None  # the source also says it as the answer does
        if found is None and any(
            a != b and as_digits(a) == as_digits(b) for a, b in zip(spelled, raw, strict=False)
        ):
            found = wording
    return found


def bracket_spelling(short: str, source: str) -> str | None:
    """The source's own spelling of a short answer whose words it holds as written but
    between other brackets: "Box[T]" read from "`Box<T>`" is shown "Box<T>" (the model
    rewrote the angle brackets; in Rust "Box[T]" names nothing). None when the source spells
    it the same, or differs in any word."""
    if not any(c in short for c in _BRACKETS):
        return None
    span = span_of(short, source)
    if span is None:
        return None
    start, end = span
    closing = len(short) - len(short.rstrip(_BRACKETS))
    while closing and end < len(source) and source[end] in _BRACKETS:
        end, closing = end + 1, closing - 1
    # symbols the answer writes before its first word or after its last ("[%f/%t]", the
    # model's "`[%f/%t] `"), where the source has them too: the words alone ("f/%t") say less
    lead, trail = _edge(short), _edge(short[::-1])
    while start > 0 and lead and source[start - 1] in lead:
        start -= 1
        lead = lead.replace(source[start], "", 1)
    while end < len(source) and trail and source[end] in trail:
        trail = trail.replace(source[end], "", 1)
        end += 1
    wording = source[start:end].strip()
    if wording == short or WORD.findall(wording) != WORD.findall(short):
        return None
    return wording


def _edge(text: str) -> str:
    """The symbols and spaces `text` opens with (before its first letter or digit), its
    quoting backticks left out."""
    edge = text[: len(text) - len(text.lstrip(_SYMBOLS))]
    return edge.replace("`", "")


# A misspelled word is this close to its source's: letters only, the same first letter, at
# most one edit from five letters on and two from nine. Shorter words, numbers and a changed
# first letter are different words ("Mary" and "Mark", "1985" and "1986", "Prussia" and
# "Russia"), never a misspelling: the answer check refuses them as found in no source.
_ONE_EDIT, _TWO_EDITS = 5, 9


def _edits(a: str, b: str, cap: int) -> int:
    """Levenshtein distance of `a` and `b`, or `cap + 1` when it is surely larger."""
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        if min(cur) > cap:
            return cap + 1
        prev = cur
    return prev[-1]


def _misspelled(word: str, source_word: str) -> bool:
    """`word` (folded) is `source_word` (folded) as written or with a letter or two wrong."""
    if word == source_word:
        return True
    if not (word.isalpha() and source_word.isalpha()) or word[0] != source_word[0]:
        return False
    size = min(len(word), len(source_word))
    cap = 2 if size >= _TWO_EDITS else 1 if size >= _ONE_EDIT else 0
    return cap > 0 and _edits(word, source_word, cap) <= cap


def source_spelling(short: str, source: str) -> str | None:
    """The source's own spelling of a short answer it holds only with a word misspelled:
    "Sostatus of Cnidus" from "… is usually named as Sostratus of Cnidus." is shown
    "Sostratus of Cnidus". The same number of words, each as written or misspelled (above).
    None when the source holds the answer as written, or nothing that close."""
    want = fold(short)
    if not want or span_of(short, source) is not None:
        return None
    have = word_spans(source)
    n = len(want)
    for i in range(len(have) - n + 1):
        window = have[i : i + n]
        if all(_misspelled(w, h) for w, (h, _, _) in zip(want, window, strict=True)):
            return source[window[0][1] : window[-1][2]]
    return None

"""Rival answers: other spans of a passage shaped like the short answer.

The answer check's verification asks the generator's model whether a passage states a short
answer as the answer to the question. A small model's yes is not comparable from one passage
to the next: asked about a cast list, it says yes to whichever actor it is shown. What it can
do is compare: the passage's own other names (for a name) or numbers and dates (for a number),
asked the same question, show whether its yes singles the answer out or would have gone to any
span of that kind (the idea of contextual calibration, Zhao et al. 2021, applied to one
passage).

A rival has the answer's shape, token for token: a number where the answer has one (digits,
"1937'de" too), a capitalised word where it has one, the same function word where it has one
("of" in "Duke of York"). Only answers that hold a number or a capitalised word get rivals:
for a lower-case phrase, spans of the same shape are mostly not phrases at all. A rival shares
no content word with the answer and is not made of the question's words; of those, the ones
the question's words stand closest to (`crag.generate.alignment`) are the strongest rivals.
"""

from __future__ import annotations

import re
import unicodedata

from crag.generate.alignment import alignment
from crag.refine.rewrite_check import STOPWORDS, content_forms, forms

__all__ = ["rivals", "shape"]

# the lower-case words that stand inside names ("Duke of York", "Leonardo da Vinci")
_NAME_LINKS = frozenset(
    [
        "of",
        "de",
        "du",
        "da",
        "del",
        "della",
        "der",
        "den",
        "van",
        "von",
        "la",
        "le",
        "al",
        "bin",
        "ibn",
        "y",
    ]
)
# a word, a number with its separators ("8,849", "3.5", "1937'de"), or a name with an apostrophe
_TOKEN = re.compile(r"[^\W_]+(?:[’'.,][^\W_]+)*", re.UNICODE)
# between two tokens of a date or number: spaces, or a comma or dash
_GAP = re.compile(r"[ \u00a0]*[,–-]?[ \u00a0]*")


def shape(word: str) -> str:
    """'9' for a token holding a digit, 'A' for a capitalised one, the folded word itself for a
    function word, 'a' for any other."""
    if any(ch.isdigit() for ch in word):
        return "9"
    folded = unicodedata.normalize("NFKC", word).casefold()
    if folded in STOPWORDS:
        return folded
    return "A" if word[:1].isupper() else "a"


def _runs(found: list[re.Match[str]], shapes: list[str], passage: str) -> list[tuple[int, int]]:
    """Maximal runs of capitalised tokens ("Duke of York": a linking word may stand inside), as
    (first, last) token indices; a run never crosses punctuation."""
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(found):
        if shapes[i] != "A":  # a capitalised function word ("The") has its own shape
            i += 1
            continue
        j = i
        while j + 1 < len(found) and _spaced(passage, found[j], found[j + 1]):
            if shapes[j + 1] == "A":
                j += 1
            elif (
                j + 2 < len(found)
                and found[j + 1].group() in _NAME_LINKS
                and shapes[j + 2] == "A"
                and _spaced(passage, found[j + 1], found[j + 2])
            ):
                j += 2
            else:
                break
        runs.append((i, j))
        i = j + 1
    return runs


def _spaced(passage: str, a: re.Match[str], b: re.Match[str]) -> bool:
    """Only spaces stand between two tokens of a name."""
    return not passage[a.end() : b.start()].strip()


def _joined(passage: str, a: re.Match[str], b: re.Match[str]) -> bool:
    """Only spaces (or a comma or dash, inside a date or number) stand between two tokens."""
    return _GAP.fullmatch(passage[a.end() : b.start()]) is not None


def rivals(short: str, question: str, passage: str, k: int = 2) -> list[str]:
    """Up to `k` spans of `passage` shaped like `short`, the strongest rival first.

    None when the short answer holds neither a number nor a capitalised word, or the passage
    has no span of its shape. A name's rivals are the passage's other names, whatever their
    length; an answer with a number's are the spans of its exact shape."""
    words = _TOKEN.findall(short)
    target = [shape(w) for w in words]
    if not target or not ({"9", "A"} & set(target)):
        return []
    answer = content_forms(short)
    asked = content_forms(question)
    found = list(_TOKEN.finditer(passage))
    shapes = [shape(m.group()) for m in found]
    if "9" in target or target[0] != "A" or target[-1] != "A":
        n = len(target)
        places = [
            (i, i + n - 1)
            for i in range(len(found) - n + 1)
            if shapes[i : i + n] == target
            and all(_joined(passage, found[j], found[j + 1]) for j in range(i, i + n - 1))
        ]
    else:
        places = _runs(found, shapes, passage)
    seen: set[str] = set()
    spans: list[str] = []
    for first, last in places:
        text = passage[found[first].start() : found[last].end()]
        mine = {f for m in found[first : last + 1] for f in forms(m.group())}
        own = content_forms(text)
        if mine & answer or not own or own <= asked or text.casefold() in seen:
            continue
        seen.add(text.casefold())
        spans.append(text)
    ranked = sorted(spans, key=lambda s: -alignment(question, s, passage))
    return ranked[:k]

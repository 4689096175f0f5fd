"""Small numbers are written both ways: "4" in an answer, "four" in the passage.

A reader's short answer and the passage it came from must be recognised as the same words
whichever way the number is spelled, both when the answer is looked up in its sources
(`crag.generate.matching`) and when the question's words are tied to it
(`crag.generate.alignment`). English zero to twenty, and the Turkish number words that mean
nothing else: on SQuAD-TR the reader answered "2" from a passage that says "iki kuvvete" and
the answer was refused as found in no source. "üç" is a number only with its accents
(`accented_digits`): without them it is the abbreviation "UC". Turkish "bir" (also "a"), "on"
(an English word), "altı" (also "under"), "yedi" (also "ate"), "kırk", "elli", "yüz" and "bin"
(names and other words) stay as they are. Larger numbers are
written in digits in the passages we index; other languages' number words stay as they are.
Words arrive lower-cased, with or without their accents (`crag.generate.matching.fold`
drops them), so each Turkish word is listed both ways.
"""

from __future__ import annotations

import re

__all__ = ["NUMBER_WORDS", "accented_digits", "as_digits"]

_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_TURKISH = {
    "sıfır": 0, "sifir": 0, "iki": 2, "dört": 4, "dort": 4, "beş": 5, "bes": 5, "sekiz": 8,
    "dokuz": 9, "yirmi": 20, "otuz": 30, "altmış": 60, "altmis": 60, "yetmiş": 70,
    "yetmis": 70, "seksen": 80, "doksan": 90,
}  # fmt: skip
# numbers only as written with their accents: "uc" is the abbreviation "UC" (UC Berkeley)
_ACCENTED = {"üç": 3}
_ACCENTED_WORD = re.compile(rf"(?<!\w)(?:{'|'.join(_ACCENTED)})(?!\w)")
NUMBER_WORDS: dict[str, str] = (
    {w: str(i) for i, w in enumerate(_WORDS)}
    | {w: str(n) for w, n in _TURKISH.items()}
    | {w: str(n) for w, n in _ACCENTED.items()}
)


def as_digits(word: str) -> str:
    """`word` (already lower-cased) in digits when it is a small number word."""
    return NUMBER_WORDS.get(word, word)


def accented_digits(text: str) -> str:
    """`text` (already lower-cased) with the number words that are numbers only with their
    accents in digits: called before the accents are dropped ("üç köprü" → "3 köprü")."""
    return _ACCENTED_WORD.sub(lambda m: str(_ACCENTED[m.group()]), text)

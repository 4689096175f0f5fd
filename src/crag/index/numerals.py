"""Small numbers are written both ways: "4" in an answer, "four" in the passage.

A reader's short answer and the passage it came from must be recognised as the same words
whichever way the number is spelled, both when the answer is looked up in its sources
(`crag.generate.matching`) and when the question's words are tied to it
(`crag.generate.alignment`). English only, zero to twenty: larger numbers are written in
digits in the passages we index, and other languages' number words stay as they are.
"""

from __future__ import annotations

__all__ = ["NUMBER_WORDS", "as_digits"]

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
NUMBER_WORDS: dict[str, str] = {w: str(i) for i, w in enumerate(_WORDS)}


def as_digits(word: str) -> str:
    """`word` (already lower-cased) in digits when it is a small English number word."""
    return NUMBER_WORDS.get(word, word)

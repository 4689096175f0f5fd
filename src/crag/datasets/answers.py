"""Scoring one answer against a dataset's gold answers: normalisation, containment, token F1.

Here, beside the readers, because `crag eval`, the evaluator's trainer ("does this passage
hold a gold answer?") and the benchmarks must all match answers by the same rule.

Normalisation (`normalize`) follows the SQuAD evaluation script — lowercase, drop the English
articles a/an/the, remove punctuation, collapse whitespace — with three differences, all
applied to prediction and gold alike:

1. citation markers `[1]`, `[2, 3]` are removed first (crag's answers carry them);
2. punctuation and symbols (Unicode categories P* and S*) become a space instead of vanishing,
   so a Turkish suffix after an apostrophe splits off: "Fransa'da" → "fransa da";
3. Turkish dotted and dotless i are folded to "i" (İ, I, ı, i → i) before lowercasing, because
   Python's `lower()` turns "İ" into "i̇" (i + combining dot) and "I" into "i", which would make
   "İstanbul" and "ISTANBUL" different words.

Answer accuracy (`contains_answer`) is the CRAG paper's convention for short answers: correct
when a gold answer occurs in the prediction, here as a run of whole normalised tokens (so "1"
does not match inside "1937"). For Turkish, an agglutinative language, the last gold token may
carry a suffix in the prediction ("yüzyıllar" matches "yüzyıllarda").
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

__all__ = [
    "contains_answer",
    "normalize",
    "token_f1",
    "tokens",
]

_CITATION = re.compile(r"\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]")
_ALL_I = str.maketrans({"İ": "i", "I": "i", "ı": "i"})
_ARTICLES = frozenset({"a", "an", "the"})
_SUFFIXING = frozenset({"tr"})  # languages whose words take suffixes: prefix match on last token


def _is_punct(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "PS"


def normalize(text: str) -> str:
    """SQuAD-style normalisation, Turkish-aware (see the module docstring)."""
    text = _CITATION.sub(" ", text)
    text = unicodedata.normalize("NFKC", text).translate(_ALL_I).lower()
    text = text.replace("i\u0307", "i")  # an "İ" lowercased elsewhere: i + combining dot
    text = "".join(" " if _is_punct(ch) else ch for ch in text)
    return " ".join(t for t in text.split() if t not in _ARTICLES)


def tokens(text: str) -> list[str]:
    return normalize(text).split()


def _occurs(needle: list[str], hay: list[str], suffixes: bool) -> bool:
    n = len(needle)
    for i in range(len(hay) - n + 1):
        if hay[i : i + n - 1] != needle[:-1]:
            continue
        last, gold = hay[i + n - 1], needle[-1]
        if last == gold or (suffixes and last.startswith(gold) and not _more_digits(last, gold)):
            return True
    return False


def _more_digits(word: str, gold: str) -> bool:
    """`word` continues the number `gold` ("1890" after "189"): another number, no suffix."""
    return gold[-1:].isdigit() and word[len(gold) : len(gold) + 1].isdigit()


def contains_answer(prediction: str, golds: Iterable[str], language: str = "en") -> bool:
    """True when any gold answer's normalised tokens occur, in order and adjacent, in the
    prediction (the last one may carry a suffix in Turkish)."""
    hay = tokens(prediction)
    suffixes = language in _SUFFIXING
    return any((needle := tokens(g)) and _occurs(needle, hay, suffixes) for g in golds)


def token_f1(prediction: str, golds: Iterable[str]) -> float:
    """The SQuAD token F1 of the prediction against its best-matching gold answer."""
    pred = tokens(prediction)
    best = 0.0
    for gold in golds:
        ref = tokens(gold)
        if not pred or not ref:
            best = max(best, float(pred == ref))
            continue
        common = sum((Counter(pred) & Counter(ref)).values())
        if common:
            precision, recall = common / len(pred), common / len(ref)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best

"""Citations by matching: find which source an answer comes from, instead of trusting `[n]`.

A small generator often cites the wrong number or none ("Paris" alone, or "Paris [3]" when
[1] says it), and a claim that no source holds must never leave crag as an answer. So the
answer's short form — the words before its first marker or full stop — is looked up in the
sources: the source(s) whose text holds its words in order are where it comes from. The
model's own `[n]` is a hint that breaks ties; it is never the evidence.

Matching folds case (Turkish dotted and dotless i alike), drops punctuation and accents, and
lets the last word of the answer carry a suffix ("Ankara" matches "Ankara'da", "1930" matches
"1930s"), so inflected languages match the way a reader would.

Contact details are held to a stricter bar: a URL, e-mail address or phone number in an answer
must occur in the source it cites — that is how an instruction hidden in a document ("visit
http://evil.example/prize") is kept out of an answer even when the model follows it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from crag.index.numerals import accented_digits, as_digits
from crag.refine.sentences import CAPITALS
from crag.symbols import SYMBOL, symbolic, symbols

__all__ = [
    "WORD",
    "added_names",
    "contact_details",
    "find_in_sources",
    "fold",
    "locate",
    "option_in",
    "short_answer",
    "span_of",
    "unsourced_contacts",
    "word_spans",
]

_MARK = re.compile(r"\[\d+(?:\s*,\s*\d+)*\]")
WORD = re.compile(r"[^\W_]+", re.UNICODE)  # a word, as matching splits text into words
_WORD_OR_SYMBOL = re.compile(f"{WORD.pattern}|{SYMBOL.pattern}")
_DASHED = re.compile(r"-+\w")  # "-k", "--keep", "-40": the hyphen belongs to the answer
_OPTION = re.compile(r"--?[^\W\d_][\w-]*(?:=\S*)?$")  # one option: "-k", "--sort=WORD"
# The short answer ends at its first citation marker, or at a sentence end / line break.
_MARK_NEXT = re.compile(r"\s*\[\d")
_LOWER_NEXT = re.compile(rf"\s+[^\W\d_{CAPITALS}]")  # " operator": a word in lower case
_SHORT_END = re.compile(r"\[\d|[.!?…]\s|[.!?…]$|\n")
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"'\])]+", re.IGNORECASE)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_PHONE = re.compile(r"(?<!\w)\+?\d[\d ()./-]{6,}\d(?!\w)")
# "U.S." / "Dr." / "J." end no sentence.
_ABBREVIATION = re.compile(r"(?:\b(?:Dr|Mr|Mrs|Ms|Prof|St|Sr|Jr|No|vs|etc|Inc|Ltd|Co)|\b[A-Z])\.$")
# The last answer word may carry this many more letters in the source (suffixes, plurals).
_SUFFIX = 4


def fold(text: str) -> list[str]:
    """Words of `text` for matching: casefolded (İ/I/ı/i all as i), accents dropped, small
    number words as digits (`crag.index.numerals`)."""
    text = text.replace("İ", "i").replace("I", "i").replace("ı", "i")
    text = unicodedata.normalize("NFKD", accented_digits(text.casefold()))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return [as_digits(w) for w in WORD.findall(text)]


def short_answer(answer: str) -> str:
    """The answer's short form: the text before its first `[n]` marker or sentence end.

    "May 27, 1937 [1]. The bridge opened …" → "May 27, 1937"; "panic! [3]." → "panic!" (a
    "!" or "?" right before the marker is the answer's own, and one standing alone between
    words — "The ? operator returns …" — ends nothing). Decimal points and
    abbreviations inside numbers ("3.5", "U.S.") are kept: a sentence end needs a space or
    the end of the text after the stop. A leading hyphen is kept where it is part of the
    answer — a command-line option ("-k", "--keep") or a negative number ("-40"); a hyphen
    standing alone ("- Paris") is not.
    """
    text = answer.strip()
    end = len(text)
    for match in _SHORT_END.finditer(text):
        if _ABBREVIATION.search(text[: match.start() + 1]):
            continue
        at = match.start()
        if (
            text[at] in "!?"
            and (
                _MARK_NEXT.match(text, at + 1)  # "panic! [3]": the "!" is the answer's
                or (text[at - 1 : at].isspace() and _LOWER_NEXT.match(text, at + 1))
            )
        ):  # "The ? operator returns …": a "?" standing alone in the sentence
            continue
        end = at
        break
    short = text[:end]
    short = _MARK.sub(" ", short).strip(" ,;:–—").rstrip("-").rstrip(" ,;:–—")
    while short.startswith("-") and not _DASHED.match(short):
        short = short.lstrip("-").lstrip(" ,;:–—")
    return short


def _contains(haystack: list[str], needle: list[str]) -> bool:
    if not needle:
        return False
    n = len(needle)
    for i in range(len(haystack) - n + 1):
        if haystack[i : i + n - 1] != needle[:-1]:
            continue
        if _suffixed(haystack[i + n - 1], needle[-1]):
            return True
    return False


def _suffixed(word: str, last: str) -> bool:
    """`word` is `last`, or `last` with a suffix ("yüzyıllarda", "1930s") — never with more
    digits: "31" is another number than "3", and "1937" than "19"."""
    extra = word[len(last) :]
    if not word.startswith(last) or len(extra) > _SUFFIX:
        return False
    return not (extra and last[-1:].isdigit() and extra[0].isdigit())


def word_spans(text: str) -> list[tuple[str, int, int]]:
    """Each word of `text` folded as `fold` folds it, with where it stands in `text`."""
    out: list[tuple[str, int, int]] = []
    for m in WORD.finditer(text):
        folded = fold(m.group())
        if len(folded) == 1:
            out.append((folded[0], m.start(), m.end()))
    return out


def _symbol_span(short: str, text: str) -> tuple[int, int] | None:
    """Where `text` first holds the symbols of a symbols-only `short` in a row, nothing but
    spaces and quotes between them."""
    want = symbols(short)
    have = [(m.group(), m.start(), m.end()) for m in _WORD_OR_SYMBOL.finditer(text)]
    for i in range(len(have) - len(want) + 1):
        if [t for t, _, _ in have[i : i + len(want)]] == want:
            return have[i][1], have[i + len(want) - 1][2]
    return None


def span_of(short: str, text: str) -> tuple[int, int] | None:
    """Where `text` first holds the words of `short` in order, adjacent (folded and with the
    last word's suffix allowed, as `find_in_sources` matches them); None when it does not."""
    if symbolic(short):
        return _symbol_span(short, text)
    want = fold(short)
    have = word_spans(text)
    n = len(want)
    if not n:
        return None
    for i in range(len(have) - n + 1):
        window = have[i : i + n]
        if _contains([w for w, _, _ in window], want):
            return window[0][1], window[-1][2]
    return None


def option_in(option: str, text: str) -> bool:
    """`text` holds the command-line option `option` as itself: not inside a longer option
    ("--ignore-case" in "--no-ignore-case"), and in its own case ("-R" is not "-r")."""
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def find_in_sources(text: str, sources: dict[int, str]) -> list[int]:
    """Numbers of the sources whose text holds the words of `text` in order, adjacent. A
    command-line option is found only as itself: "--ignore-case" is not in "--no-ignore-case",
    nor "-s" in "-S" (options are case-sensitive). An answer written in symbols only ("~",
    '"%"') is found where its symbols stand alone (`crag.symbols`), not inside a word."""
    if _OPTION.match(text):
        return [n for n, body in sources.items() if option_in(text, body)]
    if symbolic(text):
        return [n for n, body in sources.items() if _symbol_span(text, body) is not None]
    words = fold(text)
    return [n for n, body in sources.items() if _contains(fold(body), words)]


def locate(answer: str, sources: dict[int, str], hint: Sequence[int] = ()) -> list[int]:
    """Where the answer's short form occurs, the model's hinted source(s) first.

    An empty list means the short answer occurs in no source: it is not evidence-backed as a
    span (the caller may still accept a paraphrase by its content words).
    """
    found = find_in_sources(short_answer(answer), sources)
    hinted = [n for n in hint if n in found]
    return hinted + [n for n in found if n not in hinted]


def contact_details(text: str) -> list[str]:
    """URLs, e-mail addresses and phone numbers written in `text`."""
    found = _URL.findall(text) + _EMAIL.findall(text)
    found += [p for p in _PHONE.findall(text) if sum(ch.isdigit() for ch in p) >= 7]
    return found


def _squash(text: str) -> str:
    return re.sub(r"[\s()./-]", "", text.casefold()).rstrip(".,;:")


def unsourced_contacts(answer: str, cited: Sequence[str]) -> list[str]:
    """Contact details in `answer` that none of the `cited` source texts contains."""
    haystack = _squash(" ".join(cited))
    return [c for c in contact_details(answer) if _squash(c) not in haystack]


def added_names(answer: str, question: str, source: str) -> list[str]:
    """Names and numbers `answer` says that neither `question` nor `source` holds: its words
    with a capital (after the first word, which any sentence capitalises) and every word with
    a digit. A short answer in the model's own words is accepted on most of its content words
    (`crag.generate.support`); a name or number among the rest is a claim the source does not
    make: "Valgrind comes from the French word 'val'" had three of its words in a passage on
    how to say the name. A word may carry a suffix in the source ("1930" in "1930s"), but not
    more digits ("3" is not in "31": `_suffixed`, as matching has it)."""
    said = set(fold(question)) | set(fold(source))
    added = []
    for i, match in enumerate(WORD.finditer(_MARK.sub(" ", answer))):
        word = match.group()
        digit = any(ch.isdigit() for ch in word)
        if not digit and (i == 0 or len(word) < 2 or not word[0].isupper()):
            continue
        if not all(w in said or any(_suffixed(s, w) for s in said) for w in fold(word)):
            added.append(word)
    return added

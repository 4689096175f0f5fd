"""Is a model's web query a rewrite of the question, or a new question?

A small model asked for keywords sometimes adds what it believes ("Macy's Thanksgiving Day
Parade created by John Adams" for a question without John Adams) or drops the subject ("second
person" for "who was the second person to walk on the moon"). Either sends the web search
after the wrong thing, and the corrective step then "confirms" the invention. So a rewrite
may only reuse the question's words, in normalised forms — case, diacritics, punctuation, and
suffixes through the English and Turkish Snowball stemmers (crag.index.analyzer), so "opened"
matches "open" and "Kore'nin" matches "Kore". `check_rewrite` returns why a rewrite is
rejected, or "" when it passes:

1. **adds**: a content word (not a function word) that is in no form in the question;
2. **drops a key term**: a number of the question, or a capitalised word that is not a
   function word (a proper-noun run: "Neil Armstrong", "Kırkgöz"); a question typed in lower
   case has no capitals to go by, so its last content word (the object it ends on: "moon",
   "generation", "traffic") stands in for its entity;
3. **drops most of the question**: fewer than half of its content words kept.

Irregular English verb forms count as one word ("wrote" / "written"): a stemmer cannot join
them, and a rewrite may change tense. On 40 NQ questions with the packaged 0.5B grader: 27
rewrites kept, 4 unusable replies, 9 rejected before the irregular forms and the half rule
("written" for "wrote", "sang" for "sings" and "Yellowstone, governor" were false alarms);
with them, 5 of the same replies are rejected, each a real fault: "Rebecca in the Bible
married to Mary", "La La Land soundtrack, written by Michael Jackson", and three queries
left without a title word ("Hulk" for "… Avengers Age of Ultron").

A rejected rewrite is replaced whole by the deterministic extraction
(crag.refine.rewrite.keyword_query), never patched, so what is searched is always traceable to
the question.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from crag.index.analyzer import Analyzer
from crag.index.numerals import as_digits
from crag.symbols import SYMBOL

__all__ = [
    "STOPWORDS",
    "check_rewrite",
    "content_forms",
    "content_words",
    "forms",
    "key_terms",
    "tokens",
]

_STOP_TEXT = """
a an the of in on at to for with and or by from as is are was were be been being do does did
has have had it its this that these those what which who whom whose when where why how i me my
we our you your he him his she her they them their there here not no yes can could will would
shall should may might must about into over under after before during than then so if but also
just only very much many more most some any all each other such own same too tell name give
list please s t d ll ve re m o
"""
STOPWORDS = frozenset(_STOP_TEXT.split())
# a word with what follows an apostrophe: "Kore'nin", "Macy's" (the suffix is not a word)
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_TOKEN_OR_SYMBOL = re.compile(f"{_TOKEN.pattern}|{SYMBOL.pattern}")
_ALL_I = str.maketrans({"İ": "i", "I": "i", "ı": "i"})
MIN_COVERAGE = 1 / 2
# Irregular English verb forms a stemmer cannot join ("wrote" / "written" → "write"): a
# rewrite may change tense ("who wrote …" → "… written by"). Each line: base, then its forms.
_IRREGULAR_TEXT = """
write wrote written|sing sang sung|win won|begin began begun|give gave given|take took taken
make made|find found|know knew known|become became|lead led|speak spoke spoken|run ran
come came|go went gone|see saw seen|build built|buy bought|teach taught|think thought
leave left|meet met|pay paid|sell sold|tell told|hold held|bring brought|fight fought
choose chose chosen|draw drew drawn|drive drove driven|eat ate eaten|fall fell fallen
fly flew flown|freeze froze frozen|get got gotten|grow grew grown|keep kept|lose lost
ride rode ridden|rise rose risen|shoot shot|sink sank sunk|steal stole stolen|swim swam swum
throw threw thrown|wear wore worn|bear bore born borne|break broke broken|forbid forbade
hang hung|lay laid|say said|send sent|sit sat|stand stood|strike struck
swear swore sworn|wake woke woken|am is are was were been|have has had|do does did done
"""
_IRREGULAR = {
    form: words.split()[0]
    for words in _IRREGULAR_TEXT.replace("\n", "|").split("|")
    if words.strip()
    for form in words.split()
}


@lru_cache(maxsize=2)
def _analyzer(language: str) -> Analyzer:
    return Analyzer(language)


def _fold(word: str) -> str:
    word = unicodedata.normalize("NFKD", word.translate(_ALL_I).casefold())
    return "".join(ch for ch in word if not unicodedata.combining(ch))


@lru_cache(maxsize=8192)
def forms(word: str) -> frozenset[str]:
    """The word lower-cased and folded, and its English and Turkish stems (of the part before
    an apostrophe: "Kore'nin" → "kore"); a small number word also in digits ("four" → "4",
    "üç" → "3": with its accents, `crag.index.numerals`)."""
    stem = re.split(r"['’]", word, maxsplit=1)[0]
    folded = _fold(stem)
    out = {_fold(word), folded, as_digits(folded), as_digits(stem.casefold())}
    if folded in _IRREGULAR:
        out.add(_IRREGULAR[folded])
    for language in ("english", "turkish"):
        out.update(_analyzer(language).terms(stem))
    return frozenset(out)


def tokens(text: str, symbols: bool = False) -> list[str]:
    """The words of `text`; with `symbols`, its symbols too, in place (`crag.symbols`: the
    answer alignment finds an answer written in symbols only, "~", among a passage's)."""
    pattern = _TOKEN_OR_SYMBOL if symbols else _TOKEN
    return pattern.findall(unicodedata.normalize("NFKC", text))


def _is_stop(word: str) -> bool:
    return _fold(word) in STOPWORDS


def content_words(text: str) -> list[str]:
    """Words of `text` that are not function words, in order, each once (by its forms)."""
    out: list[str] = []
    seen: set[frozenset[str]] = set()
    for word in tokens(text):
        if not _is_stop(word) and forms(word) not in seen:
            seen.add(forms(word))
            out.append(word)
    return out


def content_forms(text: str) -> set[str]:
    """Every normalised form of the content words of `text` (to compare two texts' words)."""
    return {f for w in content_words(text) for f in forms(w)}


def key_terms(question: str) -> list[str]:
    """Numbers and capitalised content words; for an all-lower-case question, its numbers and
    last content word."""
    words = content_words(question)
    numbers = [w for w in words if any(ch.isdigit() for ch in w)]
    capitals = [w for w in words if w[:1].isupper()]
    if capitals:
        return list(dict.fromkeys(capitals + numbers))
    return list(dict.fromkeys(numbers + words[-1:]))


def _covered(word: str, pool: set[str]) -> bool:
    return bool(forms(word) & pool)


def check_rewrite(keywords: tuple[str, ...] | list[str], question: str) -> str:
    """Why `keywords` are not a rewrite of `question` ("" when they are)."""
    asked = content_words(question)
    asked_forms = {f for w in tokens(question) for f in forms(w)}
    written = content_words(" ".join(keywords))
    written_forms = {f for w in written for f in forms(w)}
    added = [w for w in written if not _covered(w, asked_forms)]
    if added:
        return f"adds {', '.join(repr(w) for w in added)}, not in the question"
    dropped = [w for w in key_terms(question) if not _covered(w, written_forms)]
    if dropped:
        return f"drops {', '.join(repr(w) for w in dropped)}, a key term of the question"
    kept = sum(_covered(w, written_forms) for w in asked)
    if asked and kept < MIN_COVERAGE * len(asked):
        return f"keeps {kept} of the question's {len(asked)} content words"
    return ""

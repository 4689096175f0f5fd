"""The language of the question, so the answer (and a refusal) can be written in it.

`langid` ships its model inside the package (no download) and covers 97 languages; it is
restricted to the languages crag names. Short questions are hard for it: "Normanlar kimdir?"
scores 0.46 Turkish, "Super Bowl 50 hangi tarihte oynandi?" comes out English (names and
digits dominate), "Where do penguins live?" comes out Portuguese. Turkish typed without its
own letters (ğ, ı, ş) is the usual victim, and the cost is an answer or a refusal in the wrong
language. So, in order:

1. a Turkish-only letter (ğ ı ş, capital İ Ğ Ş) decides Turkish — unless the grammar of the
   question is English: an English question word or clitic, or two English function words
   ("the", "of", "is" …), and no Turkish cue word at all. A Turkish name ("Who founded
   Kırkgöz?") does not make an English question Turkish; the function words decide;
2. words only one of crag's two main languages uses vote: Turkish question and function words
   ("nedir", "hangi", "kaç", "zaman") and case suffixes after an apostrophe ("Kore'nin",
   "50'yi"), against English question words, "does"/"did" and clitics ("Verdi's", "don't").
   More votes win;
3. on a tie (mostly: no cue at all) Turkish words that other languages also use ("ne", "kim",
   "ve", "mi"; lower case, or first word) decide Turkish when there are two of them, or one
   and langid is unsure of a language other than English;
4. else langid's call when it is confident (≥ 0.9), else English.

No cue word of steps 2–3 is an ordinary word of English, and the ones of step 2 of no other
language crag names either, so German, French, Spanish … questions still go to langid.
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = ["detect_language", "language_cues", "language_name"]

_NAMES = {
    "en": "English", "tr": "Turkish", "de": "German", "fr": "French", "es": "Spanish",
    "it": "Italian", "nl": "Dutch", "pt": "Portuguese", "ru": "Russian", "ar": "Arabic",
    "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "pl": "Polish", "sv": "Swedish",
}  # fmt: skip
_TURKISH_LETTERS = set("ğışĞİŞ")


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Question and function words, with and without Turkish letters ("kaç" / "kac").
_TURKISH_WORDS = _wordset(
    "nedir neydi neyi neye neyin neyle neler nelerdir nerede nerededir neredeydi neresi "
    "neresidir neresinde neresiydi nereden nereye nereli nerelidir nereliydi kimdir kimdi kimin "
    "kiminle kimden kime kimler hangi hangisi hangisidir hangisinde hangileri nasil nasıl kac "
    "kaç kacinci kaçıncı midir mıdır mudur müdür nicin niçin neden denir zaman tarihte "
    "tarihinde yilinda yılında icin için olan olarak degil değil kadar gibi arasinda arasında "
    "önce sonra ediyor edilir edildi oldu"
)
# Turkish words that are also words of another language ("ne" French, "mi" Spanish, "ve"
# Spanish): they only break a tie, see detect_language. Counted in lower case, or as the first
# word: "Kim para kaybetti?" is Turkish, "Qui est Kim Jong-un ?" has a name in it.
_TURKISH_WEAK = _wordset("ne kim ve bir ile mi mı mu mü etti verdi demek")
_ENGLISH_WORDS = _wordset("who whom whose what when where which why how does did")
# English clitics: 's 't 're 've 'll 'd 'm after a word (Turkish suffixes after an apostrophe
# always hold a vowel), so "Verdi's" and "Kim's" are English.
_ENGLISH_CLITIC = re.compile(r"(?<=\w)['’](?:s|t|re|ve|ll|d|m)\b", re.IGNORECASE)
# A case suffix after an apostrophe: Fransa'nın, 50'yi, Ankara'da, Kupa'sı (never 's, 't …).
# A bare vowel suffix ('i, 'a, 'in) follows a consonant only: after a vowel Turkish puts a
# buffer letter in ('yi, 'ya, 'nin), so Hawai'i is not Turkish.
_TURKISH_SUFFIX = re.compile(
    r"(?<=\w)['’](?:n[iıuü]n|[ys][iıuü]|[yn][ae]|n?[dt][ae]n?|y?l[ae]|[dt][iıuü]r|l[ae]r\w*"
    r"|[dt][ae]ki)\b|(?<=[^\W_aeiouıöüâîû])['’](?:[iıuü]n?|[ae])\b",
    re.IGNORECASE,
)
# English function words no Turkish sentence uses (only to outvote a Turkish letter in a name)
_ENGLISH_FUNCTION = _wordset("the of is was are were in on to and for with from by a an its")
_WORDS = re.compile(r"(?<!['’])\b[^\W\d_]+")  # not the "ve" of "i 've"


@functools.lru_cache(maxsize=1)
def _identifier() -> Any:
    from langid.langid import LanguageIdentifier, model

    identifier = LanguageIdentifier.from_modelstring(model, norm_probs=True)
    identifier.set_languages(list(_NAMES))
    return identifier


def language_cues(text: str) -> dict[str, int]:
    """Votes from words and suffixes: "tr" and "en" (one language only), "tr_weak" (shared)."""
    words = _WORDS.findall(text)
    folded = [w.casefold() for w in words]
    weak = [
        i for i, w in enumerate(words) if (i == 0 or w.islower()) and folded[i] in _TURKISH_WEAK
    ]
    return {
        "tr": sum(w in _TURKISH_WORDS for w in folded) + len(_TURKISH_SUFFIX.findall(text)),
        "en": sum(w in _ENGLISH_WORDS for w in folded) + len(_ENGLISH_CLITIC.findall(text)),
        "tr_weak": len(weak),
    }


@functools.lru_cache(maxsize=1024)
def detect_language(text: str) -> str:
    """ISO 639-1 code of `text` among the languages crag names; "en" when unsure."""
    cues = language_cues(text)
    if _TURKISH_LETTERS & set(text):
        return "en" if _english_grammar(text, cues) else "tr"
    if cues["tr"] != cues["en"]:
        return "tr" if cues["tr"] > cues["en"] else "en"
    code, prob = _identifier().classify(text)
    if cues["tr_weak"] >= 2 or (cues["tr_weak"] == 1 and prob < 0.9 and code != "en"):
        return "tr"
    return code if prob >= 0.9 else "en"


def _english_grammar(text: str, cues: dict[str, int]) -> bool:
    """English function words and no Turkish one: the sentence is English, whatever its
    names are spelled with."""
    if cues["tr"] or cues["tr_weak"]:
        return False
    function = sum(w.casefold() in _ENGLISH_FUNCTION for w in _WORDS.findall(text))
    return cues["en"] >= 1 or function >= 2


def language_name(code: str) -> str:
    return _NAMES.get(code, "English")

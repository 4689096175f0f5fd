"""Text analysis for the keyword index: one function used for documents and queries alike.

FTS5's own tokenizers lowercase with ASCII-or-Unicode rules that get Turkish wrong ("İ" and
"I"/"ı"), and cannot stem. So crag analyses text here and hands FTS5 space-separated terms:

1. casefold (Turkish rules when `language` is turkish); after stemming both Turkish i's
   become "i" (İ→i, ı→i), so "İstanbul", "ISTANBUL" and "istanbul" meet;
2. split into word tokens (Unicode `\\w`, apostrophes split "İstanbul'da" → "istanbul", "da");
3. stem with a Snowball stemmer (`keyword.language`: english, turkish, ... or none);
4. fold the remaining diacritics (ş→s, ü→u, é→e) so a query typed on an ASCII keyboard
   still matches.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["Analyzer"]

_WORD = re.compile(r"\w+", re.UNICODE)
_ALL_I = str.maketrans({"İ": "i", "I": "i", "ı": "i"})
_TURKISH_CASE = str.maketrans({"İ": "i", "I": "ı"})


@lru_cache(maxsize=65536)
def _fold(token: str) -> str:
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


class Analyzer:
    """Normalises, tokenises and stems text into index terms."""

    def __init__(self, language: str = "english") -> None:
        self.language = language.lower()
        self._cache: dict[str, str] = {}
        if self.language == "none":
            self._stem = None
        else:
            import snowballstemmer

            self._stem = snowballstemmer.stemmer(self.language)

    def terms(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text)
        if self.language == "turkish":
            # Turkish casing, and ı kept until after stemming: the Snowball Turkish stemmer
            # checks vowel harmony and needs it ("kızlar" → "kız")
            lowered = text.translate(_TURKISH_CASE).casefold()
        else:
            lowered = text.translate(_ALL_I).casefold()
        tokens = _WORD.findall(lowered)
        return [self._term(t) for t in tokens if t]

    def _term(self, token: str) -> str:
        """Stem and fold one token, cached: corpora repeat the same words endlessly."""
        term = self._cache.get(token)
        if term is None:
            stemmed = self._stem.stemWord(token) if self._stem is not None else token
            term = _fold(stemmed.translate(_ALL_I))
            if len(self._cache) < 200_000:
                self._cache[token] = term
        return term

    def index_text(self, text: str) -> str:
        """The string stored in the FTS5 column."""
        return " ".join(self.terms(text))

    def match_query(self, text: str) -> str | None:
        """An FTS5 MATCH expression: any of the query's terms (BM25 ranks by how many and how
        rare). Terms are quoted, so user input cannot inject FTS5 syntax. None if no terms."""
        unique = list(dict.fromkeys(self.terms(text)))
        if not unique:
            return None
        return " OR ".join('"' + t.replace('"', '""') + '"' for t in unique)

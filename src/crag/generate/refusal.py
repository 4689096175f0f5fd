"""crag's refusals: our own text, in the question's language, saying why.

The model's NOT_FOUND marker (or an answer the check refuses) never reaches the user as it is:
the refusal is written here, in English or Turkish, and names the reason — "no answer to the
question was found in the retrieved sources" is not "web search is not configured". It says
what crag found, not that the sources lack the answer: the reader can miss one that is there.
"""

from __future__ import annotations

__all__ = ["refusal_text"]

_REFUSALS = {
    "en": "I don't know: {reason}",
    "tr": "Bilmiyorum: {reason_tr}",
}
_REASONS_TR = {
    "no_sources": "dizinlenmiş belgelerde bu soruyu yanıtlayan bir bölüm bulunamadı",
    "model": "bulunan kaynaklarda bu sorunun yanıtı bulunamadı",
}


def refusal_text(language: str, reason: str, key: str) -> str:
    """ "I don't know: `reason`" in `language` (English unless Turkish); `key` picks the
    Turkish wording of the reason ("no_sources", "model"), else `reason` is used as it is."""
    template = _REFUSALS.get(language, _REFUSALS["en"])
    return template.format(reason=reason, reason_tr=_REASONS_TR.get(key, reason))

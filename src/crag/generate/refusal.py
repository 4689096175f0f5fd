"""crag's refusals: our own text, in the question's language, saying why.

The model's NOT_FOUND marker (or an answer the check refuses) never reaches the user as it is:
the refusal is written here, in English or Turkish, and names the reason — "the retrieved
sources do not contain the answer" is not "web search is not configured".
"""

from __future__ import annotations

__all__ = ["refusal_text"]

_REFUSALS = {
    "en": "I don't know: {reason}",
    "tr": "Bilmiyorum: {reason_tr}",
}
_REASONS_TR = {
    "no_sources": "dizinlenmiş belgelerde bu soruyu yanıtlayan bir bölüm bulunamadı",
    "model": "bulunan kaynaklar bu sorunun yanıtını içermiyor",
}


def refusal_text(language: str, reason: str, key: str) -> str:
    """ "I don't know: `reason`" in `language` (English unless Turkish); `key` picks the
    Turkish wording of the reason ("no_sources", "model"), else `reason` is used as it is."""
    template = _REFUSALS.get(language, _REFUSALS["en"])
    return template.format(reason=reason, reason_tr=_REASONS_TR.get(key, reason))

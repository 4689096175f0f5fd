"""The language of the question, so the answer (and a refusal) can be written in it.

`langid` ships its model inside the package (no download) and covers 97 languages. Short
questions are hard to classify, so we only trust it when a language-specific letter or a clear
margin backs it, and otherwise fall back to English.
"""

from __future__ import annotations

import functools

__all__ = ["detect_language", "language_name"]

_NAMES = {
    "en": "English", "tr": "Turkish", "de": "German", "fr": "French", "es": "Spanish",
    "it": "Italian", "nl": "Dutch", "pt": "Portuguese", "ru": "Russian", "ar": "Arabic",
    "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "pl": "Polish", "sv": "Swedish",
}  # fmt: skip
_TURKISH_LETTERS = set("ğışĞİŞ")


@functools.lru_cache(maxsize=1)
def _identifier():  # type: ignore[no-untyped-def]
    from langid.langid import LanguageIdentifier, model

    identifier = LanguageIdentifier.from_modelstring(model, norm_probs=True)
    identifier.set_languages(list(_NAMES))
    return identifier


@functools.lru_cache(maxsize=1024)
def detect_language(text: str) -> str:
    """ISO 639-1 code of `text` among the languages crag names; "en" when unsure."""
    if _TURKISH_LETTERS & set(text):
        return "tr"
    code, prob = _identifier().classify(text)
    return code if prob >= 0.9 else "en"


def language_name(code: str) -> str:
    return _NAMES.get(code, "English")

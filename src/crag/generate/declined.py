"""Reading a reply as the reader's NOT_FOUND: the model said the sources do not answer.

A small model does not always write the bare marker: "NOT_FOUND." or "NOT FOUND" with a stop,
or a sentence with the marker and no valid citation. Each of those is a decline; a reply that
carries words and a valid `[n]` beside a stray marker is an answer whose marker is removed
(`without_marker`) before the answer check reads it.
"""

from __future__ import annotations

import re

from crag.generate.citations import Source, check_citations, has_words

__all__ = ["declined", "without_marker"]

_MARKER = re.compile(r"\bNOT[ _]FOUND\b\.?")
_ONLY_MARKER = re.compile(r"\W*not[ _]found\W*", re.IGNORECASE)


def declined(raw: str, sources: list[Source]) -> bool:
    """The reply is the NOT_FOUND marker (alone, or with words but no valid citation)."""
    if not has_words(raw) or _ONLY_MARKER.fullmatch(raw):
        return True
    rest = without_marker(raw)
    return rest != raw and (not check_citations(raw, sources)[1] or not has_words(rest))


def without_marker(reply: str) -> str:
    """The reply with any NOT_FOUND marker removed."""
    return _MARKER.sub("", reply).strip()

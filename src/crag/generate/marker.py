"""The generator's NOT_FOUND marker, held back from a live draft.

The generator's model says NOT_FOUND when its sources lack the answer; that marker is an
instruction to crag, not text for the user, and it arrives as tokens ("NOT", "_FO", "UND"),
so a token cannot be judged alone. `MarkerFilter` holds back the end of the draft while it
could still be the start of the marker, drops the marker when it completes, and sends nothing
after it (the draft is then a refusal, which the final answer carries). `clean_drafts` applies
it to a pipeline's event stream, and `Pipeline.stream` yields only what it lets through, so
every live view of a draft (the SSE `token` events, `crag ask --stream`, a library caller)
gets clean text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from crag.generate.generator import NOT_FOUND

__all__ = ["MarkerFilter", "clean_drafts"]

# The marker as models write it: NOT_FOUND in any case, "NOT FOUND" in capitals, in brackets
# or not. Lower-case "not found" is English ("the file was not found") and is left alone.
_SPACED = NOT_FOUND.replace("_", " ")
_MARKER = re.compile(
    r"\[?[ \t]*(?:(?i:"
    + re.escape(NOT_FOUND)
    + r")|"
    + _SPACED.replace(" ", r"\s+")
    + r")[ \t]*\]?"
)


def _could_begin_marker(tail: str) -> bool:
    """Is `tail` a beginning of the marker (in a spelling `_MARKER` would remove)?"""
    probe = tail.lstrip().lstrip("[").lstrip()
    if not probe:
        return tail.strip() == "["
    return NOT_FOUND.startswith(probe.upper()) or _SPACED.startswith(re.sub(r"\s+", " ", probe))


class MarkerFilter:
    """Feed draft tokens; get back the text that is safe to show now."""

    def __init__(self) -> None:
        self.held = ""
        self.saw_marker = False

    def feed(self, token: str) -> str:
        if self.saw_marker:
            return ""  # after the marker, the draft is a refusal: the final event says so
        text = self.held + token
        found = _MARKER.search(text)
        if found:
            self.saw_marker, self.held = True, ""
            return text[: found.start()].rstrip()
        cut = self._hold_from(text)
        self.held = text[cut:]
        return text[:cut]

    def flush(self) -> str:
        """The end of the draft: what was held back, unless it was (the start of) the marker."""
        held, self.held = self.held, ""
        # a cut-off marker ("NOT_FO" at max_tokens) is dropped; a lone "N" ending a draft is text
        started = len(held.strip().lstrip("[").strip()) >= 3
        if self.saw_marker or (started and _could_begin_marker(held)):
            return ""
        return held

    @staticmethod
    def _hold_from(text: str) -> int:
        """Where the longest tail that could still become the marker starts (len: none).
        Only a tail that starts a word is held: "AND" never becomes "NOT"."""
        longest = len(NOT_FOUND) + 4  # "[NOT _ FOUND" with spaces, at most this long to hold
        for start in range(max(0, len(text) - longest), len(text)):
            if start and text[start - 1].isalnum():
                continue
            if _could_begin_marker(text[start:]):
                return start
        return len(text)


def clean_drafts(events: Iterable[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """The events with every draft's `("token", text)` run through a `MarkerFilter`.

    A draft ends when the next node finishes (its held-back end is sent just before that
    node's event) or at the answer; each node starts a fresh filter, as a Self-RAG retry
    writes a new draft. Tokens that only held the marker are not sent at all.
    """
    draft = MarkerFilter()
    for item in events:
        if item[0] == "token":
            if text := draft.feed(item[1]):
                yield ("token", text)
            continue
        if item[0] in ("node", "answer"):
            if rest := draft.flush():
                yield ("token", rest)
            draft = MarkerFilter()
        yield item

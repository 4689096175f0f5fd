"""The headings of a PDF without an outline, told by their type size.

Why: many PDFs carry no outline (bookmarks) — exported without them, or typeset by hand — yet
their section titles are set larger than the text, as in the Shared MIME-info spec: text at
10 pt, "2.5. The magic files" at 14.3 pt, "2. Unified system" at 17.2 pt. pypdf reports each
run of text with its font size and the text matrix that scales it; a run set at least
HEADING_RATIO times the body size (the size most characters are set in) is a heading (runs
next to each other at one size are one heading), and the larger its size the higher its
level — the rule PDF parsers such as PyMuPDF4LLM's `to_markdown` apply. Left out: runs
without two letters (a page number, dot leaders), runs longer than a heading, text repeated
on three pages or more (a running head set large), and everything when large text is no
longer rare (a slide deck, a poster: over a quarter of the characters). A table of contents'
entries run into one another with their dot leaders and page numbers and are longer than a
heading.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from crag.headings import MAX_HEADING

__all__ = ["HEADING_RATIO", "Runs", "body_size", "headings_by_size"]

HEADING_RATIO = 1.2  # a heading is set at least this much larger than the body text
MAX_LARGE_SHARE = 0.25  # more large text than this: sizes are layout, not headings
_LETTERS = re.compile(r"[^\W\d_].*[^\W\d_]", re.DOTALL)


class Runs:
    """Collects (page index, size, text) of the runs pypdf reads, as its `visitor_text`."""

    def __init__(self) -> None:
        self.runs: list[tuple[int, float, str]] = []

    def visitor(self, page: int) -> Callable[..., None]:
        def visit(text: str, cm: Any, tm: Any, font: Any, size: Any) -> None:
            text = " ".join(str(text).split())
            if not text:
                return
            try:
                scale = math.hypot(float(tm[0]), float(tm[1])) * math.hypot(
                    float(cm[0]), float(cm[1])
                )
                self.runs.append((page, round(float(size) * scale, 1), text))
            except (TypeError, ValueError, IndexError):
                return  # a run without a usable size is text like any other

        return visit


def body_size(runs: list[tuple[int, float, str]]) -> float:
    """The size most characters are set in (0 without runs)."""
    sizes: Counter[float] = Counter()
    for _, size, text in runs:
        sizes[size] += len(text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def headings_by_size(runs: list[tuple[int, float, str]]) -> list[tuple[int, int, str]]:
    """(page index, level, text) of the runs set as headings, in reading order; level 1 is
    the largest size found."""
    if not runs:
        return []
    body = body_size(runs)
    large: list[tuple[int, float, str]] = []
    previous: tuple[int, float] | None = None  # the run before, if it was large
    for page, size, text in runs:
        if size < HEADING_RATIO * body:
            previous = None
            continue
        if previous == (page, size):  # one heading in runs of several fonts: "asn1" "delete"
            large[-1] = (page, size, f"{large[-1][2]} {text}")
        else:
            large.append((page, size, text))
        previous = (page, size)
    if sum(len(t) for _, _, t in large) > MAX_LARGE_SHARE * sum(len(t) for _, _, t in runs):
        return []
    pages_of: dict[str, set[int]] = {}
    for page, _, text in large:
        pages_of.setdefault(text.casefold(), set()).add(page)
    kept = [
        (page, size, text)
        for page, size, text in large
        if len(text) <= MAX_HEADING and _LETTERS.search(text) and len(pages_of[text.casefold()]) < 3
    ]
    levels = {size: n for n, size in enumerate(sorted({s for _, s, _ in kept}, reverse=True), 1)}
    return [(page, levels[size], text) for page, size, text in kept]

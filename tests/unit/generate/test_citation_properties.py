"""Property-based tests (Hypothesis) for citation parsing: whatever markers an answer holds,
only markers of existing sources survive, every citation names one of them, and the text
around the markers is kept."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from crag.generate.citations import MARK, Source, check_citations
from crag.types import Chunk

FAST = settings(max_examples=80, deadline=None, database=None)


def _sources(n: int) -> list[Source]:
    chunks = [
        Chunk(id=f"c{i}", text=f"text {i}", source=f"s{i}.txt", doc_id="text", position=0,
              start=0, end=6)
        for i in range(1, n + 1)
    ]  # fmt: skip
    return [Source(n=i, chunk=c, text=c.text) for i, c in enumerate(chunks, start=1)]


MARKER = st.lists(st.integers(0, 12), min_size=1, max_size=3).map(
    lambda ns: "[" + ", ".join(map(str, ns)) + "]"
)
ANSWER = st.lists(st.one_of(st.text(max_size=20), MARKER), max_size=12).map("".join)


@FAST
@given(answer=ANSWER, n=st.integers(0, 6))
def test_only_markers_of_existing_sources_survive(answer: str, n: int) -> None:
    sources = _sources(n)
    cleaned, citations, notes = check_citations(answer, sources)
    for match in MARK.finditer(cleaned):
        assert all(1 <= int(x) <= n for x in re.findall(r"\d+", match.group(1)))
    assert all(1 <= c.n <= n for c in citations)
    assert [c.n for c in citations] == sorted({c.n for c in citations})
    assert all(c.chunk_id == f"c{c.n}" for c in citations)
    unknown = [x for m in MARK.finditer(answer) for x in re.findall(r"\d+", m.group(1))]
    assert len(notes) == sum(1 for x in unknown if not 1 <= int(x) <= n)
    strip = lambda s: re.sub(r"\s+", "", MARK.sub("", s))  # noqa: E731
    assert strip(cleaned) in (strip(answer), strip(answer).replace(" ", ""))

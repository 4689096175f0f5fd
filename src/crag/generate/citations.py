"""Numbered sources for the prompt, and the `[n]` markers of an answer checked against them.

Strips are grouped by the chunk they came from: source `[n]` is one chunk (file, unit and
character range, or URL), holding the strips kept from it. After generation, every `[n]` in
the answer is checked: markers that point at no source are removed and noted, so a citation
in a crag answer always points at a real chunk.

Markers also decide how an answer is cut into sentences for the support check: a marker
written after the full stop ("… 1937. [1]" or "… 1937.[1]") belongs to the sentence before it,
and a piece that is nothing but markers is never a sentence of its own — otherwise "[1]" alone
could survive the check (it has no words to be unsupported) and reach the user as the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from crag.refine.sentences import CAPITALS, sentences
from crag.refine.strips import in_section
from crag.symbols import SYMBOL
from crag.titles import heading_of, title_of
from crag.titles import titled as titled_chunks
from crag.types import Chunk, Citation, Strip

__all__ = [
    "MARK",
    "STRIP_JOIN",
    "Source",
    "answer_sentences",
    "check_citations",
    "cited_numbers",
    "close_gaps",
    "has_words",
    "number_sources",
]

MARK = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")  # [1] or [1, 3]
# Between the kept strips of one chunk in its source's text: what was left out lies there.
STRIP_JOIN = " … "
# A sentence end followed by markers: "capital. [1]", "1937.[1][2]" (group 1: the end mark).
# A stop written again after the markers ("BC. [1].") is the same sentence end: dropped.
_MARKS_AFTER_STOP = re.compile(r"([.!?…]+)((?:\s*\[\d+(?:\s*,\s*\d+)*\])+)([.!?…]*)")
_WORD = re.compile(r"[^\W_]")  # a letter or digit
# "red [9]." with [9] removed leaves "red ."; but "The ? operator returns" keeps its space: a
# "?" or "!" that a lower-case word follows stands alone in the sentence (crag.generate.matching);
# and so does a stop or colon glued to what follows it (Vim's ":qall!", a path's ".vimrc")
_GAP = re.compile(rf"[ \t]+([.,;:…](?=[\s\])\"'”’]|$)|[!?](?![ \t]+[^\W\d_{CAPITALS}]))")


def close_gaps(text: str) -> str:
    """Remove the space a dropped marker leaves before punctuation ("red ." → "red."), on the
    line only: an answer's paragraphs keep their line breaks."""
    return _GAP.sub(r"\1", text).strip()


def has_words(text: str) -> bool:
    """True when `text` holds a letter or digit outside its `[n]` markers, or a symbol
    (`crag.symbols`: "~ [1]" names Vim's backup suffix).

    "[3]", "[1]." or " . [2]" say nothing: an answer made only of them is an empty answer.
    """
    bare = MARK.sub(" ", text)
    return bool(_WORD.search(bare) or SYMBOL.search(bare))


def _marks_before_stop(match: re.Match[str]) -> str:
    """ "X. [1]" → "X [1]."; but "panic! [3]." stays: a "!" or "?" with a stop after its
    markers belongs to a name (a Rust macro, an operator, "Yahoo!"), not to the sentence."""
    stop, marks, after = match.groups()
    if after and stop in ("!", "?"):
        return match.group(0)
    return f" {' '.join(marks.split())}{stop}"


def answer_sentences(text: str) -> list[str]:
    """Sentences of an answer, each holding the markers that cite it.

    Markers after a full stop are moved before it ("X. [1]" → "X [1].") so the splitter keeps
    them with their sentence; any piece still without words (a leading "[1]", an answer that
    is only markers) is joined to its neighbour, so it is never checked, kept or shown alone.
    """
    text = _MARKS_AFTER_STOP.sub(_marks_before_stop, text)
    out: list[str] = []
    pending = ""  # marker-only pieces before the first sentence with words
    for piece in sentences(text):
        if has_words(piece):
            out.append(f"{pending} {piece}".strip())
            pending = ""
        elif out:
            out[-1] = f"{out[-1]} {piece}"
        else:
            pending = f"{pending} {piece}".strip()
    if pending:
        out.append(pending)  # nothing but markers: one piece, which has no words
    return out


def marker_numbers(match: re.Match[str]) -> list[int]:
    """The source numbers in one `[n]` / `[n, m]` marker matched by `MARK`."""
    return [int(x) for x in re.split(r"\s*,\s*", match.group(1))]


def cited_numbers(sentence: str) -> tuple[int, ...]:
    """Every source number a sentence cites, in order of its markers."""
    return tuple(n for m in MARK.finditer(sentence) for n in marker_numbers(m))


@dataclass(frozen=True, slots=True)
class Source:
    n: int
    chunk: Chunk
    text: str  # the kept strips of this chunk, joined
    label: str = ""  # its title and section, shown with it where these differ (crag.titles)

    @property
    def shown(self) -> str:
        """The source as the reader was shown it: its label on a line before its text."""
        return f"{self.label}\n{self.text}" if self.label else self.text

    @property
    def findable(self) -> str:
        """Where a short answer is looked for: the text, after the section heading the reader
        was shown in the label. A heading is often the only place a chunk names its function
        ("socket.addMembership(…)" above "Tells the kernel to join a multicast group"); the
        document's title is not searched: an answer that is the article's name is its topic
        (on SQuAD-TR one refusal became a wrong answer that way)."""
        heading = heading_of(self.chunk) if self.label else ""
        return f"{heading}\n{self.text}" if heading else self.text


def number_sources(strips: list[Strip], titled: bool = False) -> list[Source]:
    """One numbered source per chunk, in the order its first strip appears; `titled`: each
    labelled with its document's title where the sources' titles differ (a label that every
    source shares tells none apart, and only changes what the reader reads). A strip read
    apart from the one before it follows its section's heading (`Strip.lead`)."""
    labelled = titled and titled_chunks(s.chunk for s in strips)
    order: list[str] = []
    grouped: dict[str, list[Strip]] = {}
    for strip in strips:
        if strip.chunk.id not in grouped:
            order.append(strip.chunk.id)
            grouped[strip.chunk.id] = []
        grouped[strip.chunk.id].append(strip)
    return [
        Source(
            n=i,
            chunk=grouped[cid][0].chunk,
            text=STRIP_JOIN.join(in_section(grouped[cid])),
            label=title_of(grouped[cid][0].chunk) if labelled else "",
        )
        for i, cid in enumerate(order, start=1)
    ]


def check_citations(text: str, sources: list[Source]) -> tuple[str, list[Citation], list[str]]:
    """(answer with unknown markers removed, citations actually used in order, notes)."""
    valid = {s.n: s for s in sources}
    used: list[int] = []
    notes: list[str] = []

    def fix(match: re.Match[str]) -> str:
        numbers = marker_numbers(match)
        good = [n for n in numbers if n in valid]
        for n in numbers:
            if n not in valid:
                notes.append(f"removed citation [{n}]: there is no source {n}")
        for n in good:
            if n not in used:
                used.append(n)
        return "".join(f"[{n}]" for n in good)

    cleaned = MARK.sub(fix, text)
    cleaned = close_gaps(cleaned)
    citations = [
        Citation(
            n=n,
            chunk_id=valid[n].chunk.id,
            label=valid[n].chunk.cite(),
            source=valid[n].chunk.source,
            url=valid[n].chunk.url,
            origin=valid[n].chunk.origin,
        )
        for n in sorted(used)
    ]
    return cleaned, citations, notes

"""A chunk read with its document's title, where titles tell the candidates apart.

Why: a chunk of a man page or a manual often does not name what it is about. "-t, --list
List the contents of an archive." belongs to tar's page and says so nowhere; the packaged
cross-encoder, which learned word overlap more than meaning, scores it 0.17 for "Which tar
option lists the contents of an archive?" and 0.84 when it reads "tar" first. The reader,
shown option lists from five pages, cannot tell which one is tar's. BM25 already indexes
title and text together (`crag.index.catalog`); this gives what chooses and reads the
evidence — the reranker, the refiner's strip scores, the reader and the answer's verification
— the same context: the contextual chunk header of many RAG systems (Haystack's
`meta_fields_to_embed`, the metadata LlamaIndex shows its LLM beside a node's text).

The verdict reads chunks as they are. The evaluator's weights and thresholds (shipped, or
fitted by `crag calibrate`) were fitted on chunks as they are, and a title makes every chunk
of a document look on topic: on the demo corpus, "Why do honey bees dance to warn their nest
mates about bears?" scored 0.04 against the waggle-dance paragraph (INCORRECT: the sources do
not say it) and 0.44 with "Honey bees" before it (AMBIGUOUS, and a false premise answered).

A chunk's title includes the section it stands in where the loader knows it: the heading path
of a Markdown chunk (`crag.headings`) or of a DOCX section, after the document's
title ("Query string › querystring.stringify(obj[, sep[, eq[, options]]])"). A manual's
option lists look alike from one function to the next; the heading is what tells them apart.

When: only where the retrieved candidates come from documents (or sections) with more than
one title.
Where they all share one (a single manual, or a SQuAD-format file whose one article is the
whole collection), the title tells no chunk from another and only costs tokens. A title the
text already names is not added again, and web pages are read as they come (their strips are
judged on their own).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from crag.types import Chunk

__all__ = [
    "MAX_PATH",
    "MAX_TITLE",
    "SEPARATOR",
    "heading_of",
    "names",
    "searchable",
    "shorten",
    "title_of",
    "titled",
    "with_title",
]

MAX_TITLE = 100  # characters of a document's title shown; a title is a name, not a passage
MAX_PATH = 160  # characters of a section's heading path shown
SEPARATOR = " › "  # between the title and the parts of the heading path (as a DOCX section's)
_WORDS = re.compile(r"[^\W_]+")


def shorten(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, "…" marking the cut (a title, a heading)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def heading_of(chunk: Chunk) -> str:
    """The heading path of the section a chunk stands in (its `heading` metadata: Markdown,
    HTML, DOCX, a PDF's outline), whitespace collapsed; "" when unknown."""
    heading = chunk.metadata.get("heading")
    return " ".join(heading.split()) if isinstance(heading, str) else ""


def _parts(chunk: Chunk) -> list[str]:
    """The title (underscores read as spaces, as in a Wikipedia title or a file name) and the
    heading path of a local chunk, each whitespace collapsed and cut short; none for a web
    chunk."""
    if chunk.origin != "local":
        return []
    title = " ".join(chunk.title.replace("_", " ").split())
    path = heading_of(chunk)
    parts = [shorten(title, MAX_TITLE)] if title else []
    return parts + ([shorten(path, MAX_PATH)] if path else [])


def title_of(chunk: Chunk) -> str:
    """The title a local chunk is read with: its document's title (at most MAX_TITLE
    characters) and the heading path of its section, if known (at most MAX_PATH); "" for a
    web chunk or one with neither."""
    return SEPARATOR.join(_parts(chunk))


def searchable(chunk: Chunk) -> str:
    """What keyword search indexes for a chunk: its title, its heading path where known, and
    its text (the catalogs of both backends analyse this)."""
    heading = heading_of(chunk)
    return f"{chunk.title}\n{heading}\n{chunk.text}" if heading else f"{chunk.title}\n{chunk.text}"


def titled(chunks: Iterable[Chunk]) -> bool:
    """Do the local chunks come from documents (or sections) with more than one title?"""
    return len({t for c in chunks if (t := title_of(c))}) > 1


def names(text: str, title: str) -> bool:
    """Every word of `title` occurs among the words of `text` (case folded)."""
    words = set(_WORDS.findall(text.casefold()))
    wanted = _WORDS.findall(title.casefold())
    return bool(wanted) and all(w in words for w in wanted)


def with_title(chunk: Chunk, text: str | None = None) -> str:
    """`text` (default: the chunk's text) with the chunk's title on a line before it; the
    title and the heading path each left out where the text already names it."""
    text = chunk.text if text is None else text
    title = SEPARATOR.join(p for p in _parts(chunk) if not names(text, p))
    return f"{title}\n{text}" if title else text

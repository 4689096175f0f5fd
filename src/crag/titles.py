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

When: only where the retrieved candidates come from documents with more than one title.
Where they all share one (a single manual, or a SQuAD-format file whose one article is the
whole collection), the title tells no chunk from another and only costs tokens. A title the
text already names is not added again, and web pages are read as they come (their strips are
judged on their own).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from crag.types import Chunk

__all__ = ["MAX_TITLE", "title_of", "titled", "with_title"]

MAX_TITLE = 100  # characters of a title shown; a title is a name, not a passage
_WORDS = re.compile(r"[^\W_]+")


def title_of(chunk: Chunk) -> str:
    """The title a local chunk is read with (underscores read as spaces, as in a Wikipedia
    title or a file name; whitespace collapsed; at most MAX_TITLE characters); "" for a web
    chunk or one without a title."""
    if chunk.origin != "local":
        return ""
    title = " ".join(chunk.title.replace("_", " ").split())
    return title if len(title) <= MAX_TITLE else title[: MAX_TITLE - 1] + "…"


def titled(chunks: Iterable[Chunk]) -> bool:
    """Do the local chunks come from documents with more than one title?"""
    return len({t for c in chunks if (t := title_of(c))}) > 1


def _names(text: str, title: str) -> bool:
    """Every word of `title` occurs among the words of `text` (case folded)."""
    words = set(_WORDS.findall(text.casefold()))
    wanted = _WORDS.findall(title.casefold())
    return bool(wanted) and all(w in words for w in wanted)


def with_title(chunk: Chunk, text: str | None = None) -> str:
    """`text` (default: the chunk's text) with the chunk's title on a line before it, unless
    the chunk has none or the text already names it."""
    text = chunk.text if text is None else text
    title = title_of(chunk)
    if not title or _names(text, title):
        return text
    return f"{title}\n{text}"

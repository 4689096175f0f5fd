"""Split documents into chunks with stable content ids.

Splitting uses semantic-text-splitter (Rust, unicode segmentation): it fills each chunk up to
`chunk_size` characters with the largest semantic units that fit — paragraphs, then sentences,
then words — so chunks end at sentence boundaries where possible, unlike a plain recursive
character splitter.

Markdown (and HTML, which is read as Markdown) is cut at its headings (`crag.headings`) and
each section split the same way, its paragraphs' line wraps already joined
(`crag.ingest.soft_breaks`). Not the library's Markdown splitter: it ranks a line break and
an inline element (`code`, *emphasis*) above a sentence end, so on a technical page it cut in
the middle of sentences — 12 % of the Rust book's chunks ended mid-sentence (0.2 % now), and
joining the wraps alone did not change that.

Bounded work: the splitter's time grows with the square of the length of its semantic units
(a 0.8 MB line of words took 11 s, 1.6 MB of one word a line 2.9 s). So a long document is first
cut into pieces of at most `piece_chars` characters, each cut at the best boundary near the
piece's end (paragraph, line, sentence; a window with none is cut short at a space, else
anywhere), and each piece is split on its own: time is linear in the input whatever its
punctuation. Documents up to `piece_chars` are
split whole, exactly as before.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

from semantic_text_splitter import TextSplitter

from crag.headings import Headings
from crag.types import Chunk, Document

__all__ = ["Chunker", "chunk_id", "pieces"]

# a section's first chunk this short, with no paragraph break, is its heading alone
_HEADING_CHARS = 160
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f\u061f\u0964][\"')\]]*\s")


def pieces(text: str, size: int) -> Iterator[tuple[int, str]]:
    """`(offset, piece)` covering `text` in order, each at most `size` characters, cut at the
    last paragraph break, else line break, else sentence end in the last quarter of the window.
    A window with none of them is one long "sentence", which costs the splitter most, so it is
    cut shorter: at the last whitespace before `size // 4` (else at `size // 4`). Linear in
    `len(text)`."""
    start, n = 0, len(text)
    short = max(1, size // 4)
    while n - start > size:
        end = start + size
        low = end - size // 4
        cut = text.rfind("\n\n", low, end)
        cut = cut + 2 if cut >= 0 else -1
        if cut < 0:
            cut = text.rfind("\n", low, end)
            cut = cut + 1 if cut >= 0 else -1
        if cut < 0:
            last = None
            for last in _SENTENCE_END.finditer(text, low, end):  # noqa: B007
                pass
            cut = last.end() if last else -1
        if cut < 0:
            end = start + short
            low = end - short // 4
            space = max(text.rfind(" ", low, end), text.rfind("\t", low, end))
            cut = space + 1 if space >= 0 else end
        yield start, text[start:cut]
        start = cut
    if start < n:
        yield start, text[start:]


def chunk_id(source: str, doc_id: str, text: str) -> str:
    """SHA-256 of source, unit and text: identical text in the same unit keeps its id.

    The unit (`doc_id`: JSONL record id, SQuAD paragraph, PDF page) is part of the id because
    records of one file often share passages (13,834 NQ passages: 20 records share every chunk
    with another record); hashing only source + text merged them and cited the wrong record.
    """
    return hashlib.sha256(f"{source}\x00{doc_id}\x00{text}".encode()).hexdigest()


class Chunker:
    """Turns `Document`s into `Chunk`s of at most `chunk_size` characters."""

    def __init__(
        self, chunk_size: int = 500, chunk_overlap: int = 50, piece_chars: int | None = None
    ) -> None:
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.piece_chars = piece_chars or max(8_000, 16 * chunk_size)
        self._text = TextSplitter(chunk_size, overlap=chunk_overlap, trim=True)

    def split(self, doc: Document) -> list[Chunk]:
        markdown = doc.format == "markdown"
        headings = (
            Headings(doc.text, doc.title, marks=doc.headings)
            if doc.headings
            else Headings(doc.text, doc.title)
            if markdown
            else None
        )
        chunks: list[Chunk] = []
        seen: set[str] = set()
        # cut at the headings in force: the loader's marks, else the Markdown's own
        starts = headings.starts if headings is not None else []
        cuts = sorted({offset for offset in starts if 0 < offset < len(doc.text)})
        for start, text in self._sections(doc.text, cuts, set(starts)):
            cid = chunk_id(doc.source, doc.doc_id, text)
            if cid in seen:  # the same text twice in one unit adds nothing to retrieval
                continue
            seen.add(cid)
            metadata = dict(doc.metadata)
            # the section a chunk stands in (crag.headings): Markdown's, or a loader's marks
            if headings is not None and (path := headings.path(start)):
                metadata["heading"] = path
            if headings is not None and (fence := headings.fence_at(start)):
                metadata["code_fence"] = fence  # it starts inside a code block
            chunks.append(
                Chunk(
                    id=cid,
                    text=text,
                    source=doc.source,
                    doc_id=doc.doc_id,
                    position=len(chunks),
                    start=start,
                    end=start + len(text),
                    title=doc.title,
                    url=doc.url,
                    metadata=metadata,
                )
            )
        return chunks

    def _sections(self, text: str, cuts: list[int], heads: set[int]) -> Iterator[tuple[int, str]]:
        """Chunks that never run on past a heading (one the loader placed, `Document.headings`:
        a PDF's outline, reStructuredText titles, EPUB headings; or a Markdown heading): the
        text is cut at each, and neighbouring sections are split together while they fit in
        one chunk. Why: the plain splitter knows no headings, and a chunk ended with the next
        section's title ("Ferries leave at dawn. max_queue_size -----"), which then named the
        wrong section. `heads`: where headings start (one may open the text, at no cut)."""
        if not cuts:
            yield from self._with_heading(text, 0, len(text), heads)
            return
        bounds = [0, *cuts, len(text)]
        begin = 0
        for i in range(1, len(bounds)):
            end = bounds[i]
            after = bounds[i + 1] if i + 1 < len(bounds) else None
            if after is not None and after - begin <= self.chunk_size:
                continue  # the next section fits with this group: keep them together
            yield from self._with_heading(text, begin, end, heads)
            begin = end

    def _with_heading(
        self, text: str, begin: int, end: int, heads: set[int]
    ) -> Iterator[tuple[int, str]]:
        """The chunks of the section group `text[begin:end]`, its heading kept with the text
        below it. The splitter fills a chunk with whole paragraphs, and a heading is one: when
        the first paragraph under it did not fit beside it, the heading was a chunk of its own
        ("### Teams of Developers"; 4 % of the Rust book's chunks, 14 % of Node.js's
        Markdown), which names a section and answers nothing. Such a first chunk (it starts at
        a heading in `heads`, is short and one block) joins the next: that chunk runs over
        `chunk_size` by the heading's length."""
        parts = iter(self._indices(text[begin:end]))
        first = next(parts, None)
        if first is None:
            return
        start, chunk = first
        following = next(parts, None)
        alone = begin + start in heads and len(chunk) <= _HEADING_CHARS and "\n\n" not in chunk
        if following is not None and alone:
            after, rest = following
            yield begin + start, text[begin + start : begin + after + len(rest)]
        else:
            yield begin + start, chunk
            if following is not None:
                yield begin + following[0], following[1]
        for start, chunk in parts:
            yield begin + start, chunk

    def _indices(self, text: str) -> Iterator[tuple[int, str]]:
        if len(text) <= self.piece_chars:
            yield from self._text.chunk_indices(text)
            return
        for offset, piece in pieces(text, self.piece_chars):
            for start, chunk in self._text.chunk_indices(piece):
                yield offset + start, chunk

    def split_all(self, docs: list[Document]) -> list[Chunk]:
        """Chunks of all documents of one source; ids unique across the source (a repeated
        unit id with the same text, e.g. a duplicated JSONL record, is kept once)."""
        out: list[Chunk] = []
        seen: set[str] = set()
        for doc in docs:
            for chunk in self.split(doc):
                if chunk.id not in seen:
                    seen.add(chunk.id)
                    out.append(chunk)
        return out

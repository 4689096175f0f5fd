"""Chunker at a document's structure: chunks start at Markdown headings and at the headings a
loader placed, a heading stays with the paragraph under it, a chunk inside a code block says
so, and wrapped Markdown is cut where sentences end."""

from __future__ import annotations

from tests.support.chunks import check_offsets, document

from crag.ingest.chunking import Chunker
from crag.types import Document, Heading

_MARKDOWN = (
    "# Guide\n\n"
    "Intro paragraph about the guide. " + "It has words. " * 5 + "\n\n"
    "## Installation\n\n" + "Run the installer and wait. " * 6 + "\n\n"
    "## Usage\n\n" + "Type a query and press enter. " * 6
)


def test_markdown_chunks_start_at_headings() -> None:
    doc = document(_MARKDOWN, source="/data/guide.md", fmt="markdown")
    chunks = Chunker(200, 0).split(doc)
    assert all(len(c.text) <= 200 for c in chunks)
    check_offsets(doc, chunks)
    starts = [c.text.split("\n", 1)[0] for c in chunks]
    assert starts == ["# Guide", "## Installation", "## Usage"]
    # No chunk ends with a dangling heading.
    assert not any(c.text.rstrip().splitlines()[-1].startswith("#") for c in chunks)


def test_a_markdown_chunk_that_starts_inside_a_code_block_says_so() -> None:
    code = "\n".join(f"print({n})  # step {n} of the example" for n in range(12))
    text = f"## Example\n\nRun this:\n\n```\n{code}\n```\n\n## Next\n\nMore text here.\n"
    chunks = Chunker(200, 0).split(document(text, source="/data/ex.md", fmt="markdown"))
    inside = [c for c in chunks if c.text.startswith("print(")]
    assert inside and all(c.metadata.get("code_fence") == "```" for c in inside)
    assert not any("code_fence" in c.metadata for c in chunks if c not in inside)


def test_text_format_is_not_cut_at_markdown_headings() -> None:
    # The same text as a plain-text document packs the heading onto the previous paragraph,
    # which shows the cuts at headings follow Document.format.
    doc = document(_MARKDOWN, source="/data/guide.txt", fmt="text")
    chunks = Chunker(200, 0).split(doc)
    check_offsets(doc, chunks)
    assert [c.text.split("\n", 1)[0] for c in chunks] != ["# Guide", "## Installation", "## Usage"]


def test_chunks_stop_at_the_headings_a_loader_placed() -> None:
    parts = [
        "Boats\n" + "Boats of the harbour are small and slow. " * 3,  # 128 characters
        "Fees\nA ticket costs four euros.",
        "Tides\nThe tide turns twice a day.",
        "Storms\n" + "Storms close the harbour for days at a time. " * 6,
    ]
    text = "\n".join(parts)
    offsets = [text.index(p) for p in parts]
    doc = Document(
        source="s",
        doc_id="d",
        text=text,
        headings=tuple(
            Heading(o, 1, p.split("\n")[0]) for o, p in zip(offsets, parts, strict=True)
        ),
    )
    chunks = Chunker(chunk_size=150, chunk_overlap=0).split(doc)
    assert all(text[c.start : c.end] == c.text for c in chunks)
    # no chunk runs on into the next section (128 + 33 characters would fit 150 with the
    # plain splitter's cut inside "Fees") ...
    assert not any("Boats" in c.text and "Fees" in c.text for c in chunks)
    assert not any("Tides" in c.text and "Storms" in c.text for c in chunks)
    # ... but neighbours small enough to share one chunk do: "Fees" and "Tides" together
    assert any(c.text.startswith("Fees") and "Tides" in c.text for c in chunks)
    rest = [c.metadata.get("heading") for c in chunks[1:] if c.start > text.index("Storms")]
    assert rest and set(rest) == {"Storms"}  # the section's later chunks name it


def test_a_wrapped_markdown_page_is_chunked_at_sentence_ends() -> None:
    """A Markdown page wrapped at 72 columns, with inline code in every sentence (the Rust
    book's pages as trafilatura gives them): chunks end where sentences end. The Markdown
    splitter cut at the wraps and around the code spans, mid-sentence (12 % of the Rust
    book's chunks); joining the soft breaks alone did not change that."""
    import textwrap

    from crag.ingest.documents import load_markdown

    sentence = "The `Result<T, E>` type of the `{n}` call returns `Ok` with the value it read. "
    paragraphs = ["".join(sentence.format(n=f"read_{p}_{i}") for i in range(5)) for p in range(6)]
    wrapped = "\n\n".join(textwrap.fill(p, 72) for p in paragraphs)
    assert len(wrapped.splitlines()) > 2 * len(paragraphs)  # wrapped: lines, not paragraphs
    [doc], _ = load_markdown("/docs/page.md", f"# Reading files\n\n{wrapped}\n")
    chunks = Chunker(300, 0).split(doc)
    assert len(chunks) >= 6
    check_offsets(doc, chunks)
    assert all(c.text.rstrip().endswith(".") for c in chunks)  # the heading alone is none
    assert chunks[0].text.startswith("# Reading files\n\nThe `Result<T, E>` type")


def test_a_heading_stays_with_the_paragraph_under_it() -> None:
    """A heading is a paragraph of its own to the splitter: when the first paragraph under it
    did not fit beside it, the heading was a chunk alone ("### Teams of Developers": 4 % of
    the Rust book's chunks, 14 % of Node.js's Markdown), naming a section, answering nothing."""
    from crag.ingest.documents import load_markdown

    body = " ".join(
        f"Sentence {i} of the first paragraph says something long enough." for i in range(8)
    )
    body = body[:489].rsplit(" ", 1)[0] + "."  # fits a chunk alone, not beside its heading
    assert 500 - len("## Teams of Developers\n\n") < len(body) <= 500
    text = f"# Guide\n\nIntro line.\n\n## Teams of Developers\n\n{body}\n\nA second paragraph.\n"
    [doc], _ = load_markdown("/docs/guide.md", text)
    chunks = Chunker(500, 50).split(doc)
    check_offsets(doc, chunks)
    assert not any(c.text.strip() == "## Teams of Developers" for c in chunks)
    teams = next(c for c in chunks if c.text.startswith("## Teams of Developers"))
    assert "Sentence 0 of the first paragraph" in teams.text
    assert len(teams.text) <= 500 + len("## Teams of Developers\n\n")

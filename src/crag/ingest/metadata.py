"""Source metadata every chunk carries, so searches can be filtered by it (`--where`).

A chunk's metadata is, lowest priority first:

1. what crag knows about the source: `type` (the loader's format: `pdf`, `docx`, `html`, ...;
   the inner one for `.json.gz`), `modified` (the file's mtime, seconds since the epoch, UTC;
   `--where 'modified>=2024-06-01'` compares it) and, for a page fetched by URL, `site`;
2. what the loader found (JSONL fields, page and slide numbers, sheet and rows);
3. the user's tags given at ingest (`crag ingest --tag year=2024 --tag team=ops`), typed as
   filter values are (`2024` a number, `'2024'` a string).

Path, title and URL are the chunk's own columns (`source`/`path`, `title`, `url` in filters).

Tags take part in a source's digest: the same file ingested again with other tags is
rewritten (its chunks keep their vectors; only their metadata changes).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from crag.errors import CragError
from crag.index.filters import Scalar, condition, parse_value
from crag.ingest.loaders import format_of
from crag.types import Document

__all__ = [
    "Tags",
    "file_type",
    "layout_digest",
    "parse_tags",
    "source_metadata",
    "tagged_digest",
    "with_metadata",
]

# What a loader makes of a file changed in a way re-ingest must see: a source of these types
# stored under an earlier digest is read again once, though its bytes did not change. Markdown
# and HTML chunks gained their section's heading path (crag.headings), HTML became Markdown;
# PDF pages lost their running heads and page numbers and gained the outline's sections;
# EPUB chapters' and reStructuredText files' chunks gained their sections; Markdown, HTML and
# reStructuredText paragraphs lost their line wraps and are chunked at sentence ends
# (crag.ingest.soft_breaks, crag.ingest.rst_breaks); a section's heading is no longer a chunk
# of its own when the paragraph under it did not fit beside it (crag.ingest.chunking); plain
# text's chunks gained the sections its rules mark (crag.ingest.text_sections); HTML pages
# gained the section titles and text that trafilatura dropped on pages with empty anchors or no
# content frame (crag.html_frame); a changelog's entries and an outlined NEWS file's releases
# became sections (crag.ingest.release_notes); a Sphinx page's described functions and
# classes became headed sections, their permalink marks gone (crag.html_sphinx); a Markdown or
# HTML chunk that starts inside a code block says so (its headings after the block were read
# as code), and a code fence trafilatura opened after text opens its own line; a Sphinx page's
# cross-references and wrapped inline literals read as text (crag.html_sphinx); a Markdown page
# that opens with a rule ("---") never closed as front matter keeps its headings; a PDF page's
# footnotes are set apart from its text and their marks taken off their words, a sentence a
# page break cut is whole on the page it starts on, TeX's spacing accents are on their letters
# and its ligatures are letters (crag.ingest.pdf_flow); a compound's hyphen at a line's end
# stays, and a URL broken across lines is one word (crag.ingest.pdf_lines).
LAYOUTS = {
    "txt": "releases-1",
    "text": "releases-1",
    "epub": "headings-2",
    "rst": "render-1",
    "md": "fences-2",
    "markdown": "fences-2",
    "html": "refs-1",
    "htm": "refs-1",
    "pdf": "flow-1",
}

Tags = dict[str, Scalar]
_RESERVED = {"source", "path", "title", "url"}


def parse_tags(items: Iterable[str] | None) -> Tags:
    """`["year=2024", "team=ops"]` -> `{"year": 2024, "team": "ops"}`; a clear error names the
    bad one."""
    tags: Tags = {}
    for item in items or ():
        if "=" not in item:
            raise CragError(f"--tag {item!r}: expected KEY=VALUE, e.g. --tag year=2024")
        key, _, raw = item.partition("=")
        key = key.strip()
        if key in _RESERVED:
            raise CragError(f"--tag {item!r}: {key!r} is a chunk column; pick another name")
        condition(key, "=", "x", where=f"--tag {item!r}")  # the field rules of filters
        tags[key] = parse_value(raw, field=f"--tag {item!r}") if raw.strip() else ""
    return tags


def file_type(name: str) -> str:
    """The format name of a file as the loaders see it: `report.PDF` -> `pdf`,
    `squad.json.gz` -> `json`, `gzip.1.gz` -> `man`, `README.Debian` -> `txt`."""
    return format_of(name).lstrip(".")


def source_metadata(name: str, *, modified: float | None = None, **extra: Scalar) -> Tags:
    """crag's own fields for one source (priority 1 above)."""
    meta: Tags = {"type": file_type(name)}
    if modified is not None:
        meta["modified"] = round(float(modified), 3)
    meta.update({k: v for k, v in extra.items() if v not in (None, "")})
    return meta


def with_metadata(
    docs: Iterable[Document], base: Mapping[str, Any], tags: Mapping[str, Any]
) -> list[Document]:
    """The documents with `base` under and `tags` over their own metadata."""
    return [replace(d, metadata={**base, **d.metadata, **tags}) for d in docs]


def layout_digest(digest: str, name: str) -> str:
    """The digest stored for a source of the file type `name` has: changed by the version of
    its loader's layout where that changed (LAYOUTS), so sources ingested before are chunked
    again on the next ingest (unchanged chunk texts keep their ids and embeddings)."""
    layout = LAYOUTS.get(file_type(name))
    if layout is None:
        return digest
    return hashlib.sha256(f"{digest}\0layout\0{layout}".encode()).hexdigest()


def tagged_digest(digest: str, tags: Mapping[str, Any]) -> str:
    """The digest stored for a source: the content's, changed by its tags (if any)."""
    if not tags:
        return digest
    blob = json.dumps(dict(tags), sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(digest.encode() + b"\0tags\0" + blob).hexdigest()

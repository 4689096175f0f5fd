"""GNU Info manuals as they are installed (`sed.info.gz`, `find.info-1.gz`), read as plain text.

Why: the GNU tools document themselves in Info (`/usr/share/info`: coreutils, grep, sed, find,
wget …), and crag refused `.info` files as an unsupported type. An Info file is plain text in
nodes, its titles underlined, which the plain-text loader already reads with its sections
(`crag.ingest.text_sections`). Two renderings that dropped the nodes' "File: … Node: …" headers
and menus (one of them as Markdown, one table entry per paragraph) were measured against the
file read as it is, on 22 questions of my own over six manuals: 11 and 13 right answers against
16 (docs/benchmarks.md, "GNU Info manuals"). The headers name each node ("Node: du
invocation"), which the questions' words find. So the file is read as it is, but for what is not
text: the NUL bytes that mark an index node, and the first file of a manual split in parts, which
only lists the parts.
"""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

from crag.errors import LoaderError, UnsupportedFileError
from crag.ingest.documents import load_text
from crag.types import Document

__all__ = ["INFO_SUFFIX", "load_info", "without_index_marks"]

# An Info file's suffix, or a part's of a manual split in several (".info-1").
INFO_SUFFIX = re.compile(r"\.info(?:-\d+)?")

# makeinfo marks an index node's menu with "\0\b[index\0\b]": the only NUL bytes of the file
_INDEX_MARK = re.compile(rb"\x00\x08\[[a-z ]*\x00\x08\]")
_PARTS = re.compile(r"\x1f\s*Indirect:")
_NODE_START = re.compile(r"\x1f\s*\nFile:[^\n]*Node:\s*([^,\n]+)")
_RULE = re.compile(r"([*=.-])\1+")


def without_index_marks(data: bytes) -> bytes:
    """The file's bytes without the marks of its index nodes, which would read as binary."""
    return _INDEX_MARK.sub(b"", data) if b"\x00" in data else data


def load_info(path: str, text: str) -> tuple[list[Document], list[str]]:
    """One document per file, its text as written, titled by the manual's first title. The
    first file of a manual split in parts lists the parts and holds no node, and a last part
    may hold only the index: both refused as unsupported (the other parts hold the text)."""
    nodes = _NODE_START.findall(text)
    if not nodes and _PARTS.search(text):
        raise UnsupportedFileError(path, "the list of a split Info manual's parts (they hold it)")
    if nodes and all("Index" in name for name in nodes):
        raise UnsupportedFileError(path, "an Info file that holds only an index")
    if not nodes:
        raise LoaderError(path, "not an Info file: no node")
    stem = Path(path).name.split(".info")[0]
    (doc,), warnings = load_text(path, text.replace("\x1f", ""))
    return [replace(doc, doc_id="info", title=_title(text) or stem)], warnings


def _title(text: str) -> str:
    """The Top node's first underlined title ("GNU ‘sed’"), if the file holds the Top node."""
    start = re.search(r"\x1f\s*\nFile:[^\n]*Node:\s*Top\b[^\n]*\n", text)
    if start is None:
        return ""
    lines = text[start.end() :].split("\x1f", 1)[0].split("\n")  # the Top node alone
    for line, rule in pairwise(lines):
        cut = rule.strip()
        if line.strip() and _RULE.fullmatch(cut) and abs(len(cut) - len(line.strip())) <= 2:
            return line.strip()
    return ""

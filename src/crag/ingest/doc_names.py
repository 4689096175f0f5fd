"""Plain-text documents named by convention, not by format: README, FAQ, NEWS, copyright…

Why: a project's and a package's prose often sits in files named for what they are rather
than for their format: `README`, `FAQ`, `NEWS`, `INSTALL`, `copyright`, `changelog`, or with a
qualifier where the format suffix would be (`README.Debian`, `NEWS.Debian.gz`,
`changelog.Debian.amd64.gz`, `README.source`). /usr/share/doc of this machine holds 1,500 such
files beside its 600 `.txt`; crag picked loaders by suffix only, and a folder walk passed them
over without a word ("0 added"). They are read as plain text, as GitHub shows them (its
linguist list of text file names, which this follows) and as LlamaIndex's directory reader
reads a file it has no reader for.

What counts: a name whose first part (up to a `.`, `-` or `_`) is one of the conventional
names below, in any case, with nothing after it or only qualifiers: suffixes that name no
media type, or a text one (".Debian", ".amd64", ".source" do; ".png" and ".sh" do not). A
format suffix crag reads (`README.md`, `LICENSE.txt`) keeps its own loader. Other names
without a suffix (`Makefile`, scripts, programs) are not documents by convention and stay
unread in a folder walk, as is a conventional name whose bytes are binary (`history.db`).

Such a name says what kind of document it is, not what it is about: ten packages each have a
README. Its folder says that, so its title is the folder's name and then the file's
("bash README.Debian"): chunk titles are how the reranker and the reader tell candidates of
different documents apart (`crag.titles`).
"""

from __future__ import annotations

import mimetypes
import re
from pathlib import Path, PurePath

from crag.ingest.compressed import COMPRESSED

__all__ = ["CONVENTIONAL", "is_conventional_text", "looks_binary", "name_title"]

CONVENTIONAL = re.compile(
    r"(?:00)?(?:readme|read\.me|faq|news|install|changes|changelog|history|todo|authors"
    r"|thanks|credits|bugs|hacking|notice|copying|copyright|licen[cs]e|contributing"
    r"|contributors|maintainers|upgrading|release-?notes)(?=$|[._-])",
    re.IGNORECASE,
)
_TYPES = mimetypes.MimeTypes()  # its own copy: the module's table is left as it is
# what Python 3.11's table lacks of the formats crag reads (3.13 knows most of them)
for _kind, _suffix in [
    ("text/markdown", ".md"),
    ("text/markdown", ".markdown"),
    ("text/x-rst", ".rst"),
    ("text/plain", ".text"),
    ("application/x-ndjson", ".jsonl"),
    ("application/x-ndjson", ".ndjson"),
    ("application/epub+zip", ".epub"),
    ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", ".docx"),
    ("application/vnd.openxmlformats-officedocument.presentationml.presentation", ".pptx"),
    ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ".xlsx"),
    ("application/vnd.ms-excel.sheet.macroEnabled.12", ".xlsm"),
]:
    _TYPES.add_type(_kind, _suffix)


def _uncompressed(name: str) -> str:
    """The file name without a compression suffix (`NEWS.gz` -> `NEWS`)."""
    suffix = PurePath(name).suffix
    return name[: -len(suffix)] if suffix.lower() in COMPRESSED else name


def is_conventional_text(name: str) -> bool:
    """Whether a file name (compression suffix and all) names a plain-text document by
    convention: `README`, `FAQ.gz`, `README.Debian`, `changelog.Debian.amd64.gz`."""
    base = _uncompressed(PurePath(name).name)
    match = CONVENTIONAL.match(base)
    if match is None:
        return False
    for qualifier in PurePath("x" + base[match.end() :]).suffixes:
        kind, _ = _TYPES.guess_type("x" + qualifier, strict=False)
        if kind is not None and not kind.startswith("text/"):
            return False
    return True


def looks_binary(path: Path) -> bool:
    """Whether an uncompressed file's first 8 KB hold a NUL byte: a folder walk passes over
    `history.db` rather than failing on it as a text document (named alone, it is refused)."""
    if path.suffix.lower() in COMPRESSED:
        return False
    try:
        with path.open("rb") as fh:
            return b"\0" in fh.read(8192)
    except OSError:
        return False  # the load reports it


def name_title(path: str) -> str:
    """The title a document takes from its file name when it has none of its own: the name
    without its format suffix, as before; for a conventional name, its folder's name and the
    file's, qualifiers kept (`/usr/share/doc/bash/README.Debian.gz` -> "bash README.Debian",
    `proj/README.md` -> "proj README")."""
    pure = PurePath(path)
    if not is_conventional_text(pure.name):
        return pure.stem
    name = _uncompressed(pure.name)
    suffix = PurePath(name).suffix
    if suffix and _TYPES.guess_type("x" + suffix, strict=False)[0] is not None:
        name = name[: -len(suffix)]  # a format suffix: README.md -> README
    folder = pure.parent.name
    return f"{folder} {name}" if folder else name

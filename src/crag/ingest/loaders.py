"""Pick a loader by file extension and run it; every failure is a `LoaderError` naming the file.

Registry: `LOADERS` maps a suffix to a function `(path, text) -> (documents, warnings)`;
`BINARY_LOADERS` the same for loaders that need raw bytes (PDF); `PACKAGE_LOADERS` for the
ZIP-based formats (DOCX, PPTX, XLSX, EPUB), which also get the size limit that bounds what
their members may unpack to. A `.gz`, `.bz2` or `.xz`
suffix is decompressed first (every member, bounded by `max_bytes` while inflating: see
`crag.ingest.compressed`) and the inner suffix decides (`squad.json.gz`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from crag.errors import LoaderError, UnsupportedFileError
from crag.ingest.compressed import COMPRESSED, compression_of, decompress
from crag.ingest.decode import decode_bytes
from crag.ingest.doc_names import is_conventional_text, looks_binary
from crag.ingest.documents import load_html, load_markdown, load_text
from crag.ingest.epub import load_epub
from crag.ingest.info import INFO_SUFFIX, load_info, without_index_marks
from crag.ingest.office import load_docx, load_pptx
from crag.ingest.pdf import load_pdf
from crag.ingest.roff import MAN_SUFFIX, load_man
from crag.ingest.rst import load_rst
from crag.ingest.sheets import load_csv, load_tsv, load_xlsx
from crag.ingest.structured import load_jsonl, load_squad_json
from crag.types import Document

__all__ = [
    "BINARY_LOADERS",
    "LOADERS",
    "PACKAGE_LOADERS",
    "LoadResult",
    "format_of",
    "format_suffix",
    "is_supported",
    "is_walked",
    "load_file",
    "supported_suffixes",
]

TextLoader = Callable[[str, str], tuple[list[Document], list[str]]]
BytesLoader = Callable[[str, bytes], tuple[list[Document], list[str]]]
PackageLoader = Callable[[str, bytes, int | None], tuple[list[Document], list[str]]]

LOADERS: dict[str, TextLoader] = {
    ".json": load_squad_json,
    ".jsonl": load_jsonl,
    ".ndjson": load_jsonl,
    ".html": load_html,
    ".htm": load_html,
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".txt": load_text,
    ".text": load_text,
    ".rst": load_rst,
    ".man": load_man,  # and a man page's section suffix: ".1", ".3pm" (crag.ingest.roff)
    ".info": load_info,  # and a split manual's parts: ".info-1" (crag.ingest.info)
    ".csv": load_csv,
    ".tsv": load_tsv,
}
BINARY_LOADERS: dict[str, BytesLoader] = {".pdf": load_pdf}
PACKAGE_LOADERS: dict[str, PackageLoader] = {
    ".docx": load_docx,
    ".pptx": load_pptx,
    ".xlsx": load_xlsx,
    ".xlsm": load_xlsx,
    ".epub": load_epub,
}


def supported_suffixes() -> set[str]:
    return set(LOADERS) | set(BINARY_LOADERS) | set(PACKAGE_LOADERS)


@dataclass(slots=True)
class LoadResult:
    documents: list[Document]
    warnings: list[str] = field(default_factory=list)


def _suffix(path: Path) -> tuple[str, str | None]:
    """The suffix that picks the loader, and the compression format (None: not compressed)."""
    return format_of(path.name), compression_of(path.name)


def format_of(name: str) -> str:
    """The suffix of the loader a file name picks, a compression suffix looked through:
    `squad.json.gz` -> ".json", `gzip.1.gz` -> ".man"; a plain-text document named by
    convention (`README`, `NEWS.Debian.gz`: `crag.ingest.doc_names`) -> ".txt"."""
    suffixes = [s.lower() for s in PurePath(name).suffixes]
    if suffixes and suffixes[-1] in COMPRESSED:
        suffixes.pop()
    suffix = format_suffix(suffixes[-1] if suffixes else "")
    if suffix not in supported_suffixes() and is_conventional_text(name):
        return ".txt"
    return suffix


def format_suffix(suffix: str) -> str:
    """The suffix a loader is registered under: a man page's section (".1", ".3pm") is ".man",
    a split Info manual's part (".info-1") ".info"; any other, lower-cased, itself."""
    suffix = suffix.lower()
    if MAN_SUFFIX.fullmatch(suffix):
        return ".man"
    return ".info" if INFO_SUFFIX.fullmatch(suffix) else suffix


def is_supported(path: Path) -> bool:
    return _suffix(path)[0] in supported_suffixes()


def is_walked(path: Path) -> bool:
    """Whether a folder walk (`crag ingest DIR`, `crag watch`) reads this file: a type crag
    reads, but not one whose type was guessed from its name (a conventional name, a man
    page's section) when its bytes are binary: `history.db`, and a shared library
    `libavif.so.16.4.2`, whose ".2" names a man page's section."""
    suffix = format_of(path.name)
    if suffix not in supported_suffixes():
        return False
    guessed = suffix == ".man" or is_conventional_text(path.name)
    return not (guessed and looks_binary(path))


def load_bytes(
    path: Path,
    data: bytes,
    *,
    detect_encoding: bool = True,
    max_bytes: int | None = None,
    encoding: str | None = None,
) -> LoadResult:
    """Load already-read bytes of `path` (lets the caller hash exactly what was loaded).

    `max_bytes` bounds what a compressed file may decompress to (checked while inflating);
    `encoding` forces the text encoding (ingest.encoding) instead of detecting it.
    """
    name = str(path)
    suffix, compression = _suffix(path)
    if suffix not in supported_suffixes():
        raise UnsupportedFileError(
            name,
            f"unsupported file type {suffix or '(none)'!r}; supported: "
            + ", ".join(sorted(supported_suffixes()))
            + ", and plain text named README, FAQ, NEWS, copyright …",
        )
    if compression:
        data = decompress(data, name, compression, max_bytes)
    if not data.strip():
        raise LoaderError(name, "empty file")
    if suffix in BINARY_LOADERS:
        docs, warnings = BINARY_LOADERS[suffix](name, data)
        return LoadResult(docs, warnings)
    if suffix in PACKAGE_LOADERS:
        try:
            docs, warnings = PACKAGE_LOADERS[suffix](name, data, max_bytes)
        except LoaderError:
            raise
        except Exception as exc:  # a damaged member surfaces late (zipfile, lxml, openpyxl)
            kind = suffix.lstrip(".").upper()
            raise LoaderError(name, f"corrupt {kind} file: {type(exc).__name__}: {exc}") from exc
        return LoadResult(docs, warnings)
    if suffix == ".info":
        data = without_index_marks(data)
    decoded = decode_bytes(data, name, detect=detect_encoding, encoding=encoding)
    try:
        docs, warnings = LOADERS[suffix](name, decoded.text)
    except UnsupportedFileError:
        # a rotated log named like a page (tar's changelog.1.gz): plain text by its name
        if suffix != ".man" or not is_conventional_text(PurePath(name).name.split(".")[0]):
            raise
        docs, warnings = load_text(name, decoded.text)
    if decoded.warning:
        warnings.insert(0, decoded.warning)
    return LoadResult(docs, warnings)


def load_file(
    path: Path,
    *,
    max_bytes: int | None = None,
    detect_encoding: bool = True,
    encoding: str | None = None,
) -> LoadResult:
    """Read and load one file, refusing missing, unreadable or oversized ones with a reason."""
    name = str(path)
    if not path.exists():
        raise LoaderError(name, "no such file")
    if not path.is_file():
        raise LoaderError(name, "not a regular file")
    size = path.stat().st_size
    if max_bytes is not None and size > max_bytes:
        raise LoaderError(
            name,
            f"file is {size / 1e6:.1f} MB, above ingest.max_file_mb={max_bytes / 1e6:.0f}",
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LoaderError(name, f"cannot read: {exc.strerror or exc}") from exc
    return load_bytes(
        path, data, detect_encoding=detect_encoding, max_bytes=max_bytes, encoding=encoding
    )

"""EPUB (2 and 3) loader: one citable unit per chapter (spine document), named by its heading.

Library: none new. An EPUB is a ZIP holding `META-INF/container.xml` -> the package (OPF) file
-> its spine (the reading order of XHTML documents); the stdlib `zipfile` and lxml (already a
dependency) read that in about a hundred lines. ebooklib was not chosen: it is AGPL-licensed
(crag is MIT) and adds nothing needed here. XML is parsed without entity expansion or network
access.

- `doc_id` = "chapter N: heading" (first h1-h3 of the document, else its <title>); N counts
  the spine documents that hold text.
- The chapter's headings (h1-h6) give each chunk the heading path it starts in (its
  `heading` metadata), as a Markdown file's do: a chapter holds many sections.
- Tables become one line per row, with its header where the table marks one, like the other
  loaders (`crag.ingest.tables`).
- DRM: a chapter listed as encrypted in `META-INF/encryption.xml` (other than obfuscated
  fonts) makes the file a clear error: "DRM-protected EPUB".
"""

from __future__ import annotations

import posixpath
from typing import Any
from urllib.parse import unquote

from crag.errors import LoaderError
from crag.ingest.doc_names import name_title
from crag.ingest.package import open_package
from crag.ingest.tables import html_table_lines
from crag.titles import shorten
from crag.types import Document, Heading

__all__ = ["load_epub"]

_BLOCKS = {
    "p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "blockquote", "pre",
    "section", "article", "dd", "dt", "figcaption", "hr", "table", "ul", "ol",
}  # fmt: skip
_SKIP = {"script", "style", "head", "nav"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_FONT_OBFUSCATION = {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
_TITLE_MAX = 80


def _parser() -> Any:
    from lxml import etree

    return etree.XMLParser(resolve_entities=False, no_network=True, recover=False)


def _local(tag: Any) -> str:
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def _xml(path: str, package: Any, member: str) -> Any:
    from lxml import etree

    try:
        return etree.fromstring(package.read(member), _parser())
    except KeyError as exc:
        raise LoaderError(path, f"not an EPUB: {member} is missing") from exc
    except etree.XMLSyntaxError as exc:
        raise LoaderError(path, f"corrupt EPUB: {member} is not well-formed XML ({exc})") from exc
    except Exception as exc:  # zipfile CRC / decompression errors, lxml limits
        raise LoaderError(path, f"corrupt EPUB: {member} unreadable ({exc})") from exc


def _encrypted(path: str, package: Any) -> set[str]:
    """Members encrypted by DRM (font obfuscation is not DRM and is ignored)."""
    if "META-INF/encryption.xml" not in package.namelist():
        return set()
    root = _xml(path, package, "META-INF/encryption.xml")
    out: set[str] = set()
    for data in root.iter():
        if _local(data.tag) != "encrypteddata":
            continue
        methods = [
            e.get("Algorithm", "") for e in data.iter() if _local(e.tag) == "encryptionmethod"
        ]
        method = methods[0] if methods else ""
        if method in _FONT_OBFUSCATION:
            continue
        for ref in data.iter():
            if _local(ref.tag) == "cipherreference" and ref.get("URI"):
                out.add(posixpath.normpath(unquote(ref.get("URI"))))
    return out


def _text(
    node: Any, lines: list[str], current: list[str], marks: list[tuple[int, int]] | None = None
) -> None:
    """Collect the text of an XHTML tree: blocks end lines, tables a line per row; each
    h1-h6 that gives a line is noted in `marks` as (its line's index, its level)."""
    tag = _local(node.tag)
    if marks is not None and tag in _HEADINGS:
        _flush(lines, current)
        before = len(lines)
        _text(node, lines, current)  # a heading inside a heading is text of the outer one
        _flush(lines, current)
        if len(lines) > before:
            marks.append((before, int(tag[1])))
    elif tag in _SKIP:
        pass
    elif tag == "table":
        _flush(lines, current)
        lines.extend(html_table_lines(node, _local))
    else:
        if tag in _BLOCKS:
            _flush(lines, current)
        if node.text:
            current.append(node.text)
        for child in node:
            _text(child, lines, current, marks)
        if tag in _BLOCKS:
            _flush(lines, current)
    if node.tail:
        current.append(node.tail)


def _flush(lines: list[str], current: list[str]) -> None:
    line = " ".join("".join(current).split())
    if line:
        lines.append(line)
    current.clear()


def _heading(root: Any) -> str:
    for level in ("h1", "h2", "h3"):
        for node in root.iter():
            if _local(node.tag) == level:
                text = " ".join("".join(node.itertext()).split())
                if text:
                    return text
    for node in root.iter():
        if _local(node.tag) == "title":
            text = " ".join("".join(node.itertext()).split())
            if text:
                return text
    return ""


def _chapter(path: str, package: Any, member: str) -> tuple[str, str, tuple[Heading, ...]]:
    """(heading, text, the headings in the text) of one XHTML document of the spine."""
    from lxml import etree, html

    raw = package.read(member)
    try:
        root = etree.fromstring(raw, _parser())
    except etree.XMLSyntaxError:
        try:  # EPUB 2 files are sometimes HTML rather than XHTML: parse them leniently
            root = html.fromstring(raw)
        except (etree.ParserError, ValueError) as exc:
            raise LoaderError(path, f"corrupt EPUB: {member} cannot be parsed ({exc})") from exc
    body = next((n for n in root.iter() if _local(n.tag) == "body"), root)
    lines: list[str] = []
    current: list[str] = []
    marks: list[tuple[int, int]] = []
    _text(body, lines, current, marks)
    _flush(lines, current)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    headings = tuple(Heading(starts[i], level, lines[i]) for i, level in marks)
    return _heading(root), "\n".join(lines), headings


def load_epub(path: str, data: bytes, limit: int | None = None) -> tuple[list[Document], list[str]]:
    package = open_package(path, data, "EPUB", limit)
    container = _xml(path, package, "META-INF/container.xml")
    rootfile = next(
        (e.get("full-path") for e in container.iter() if _local(e.tag) == "rootfile"), None
    )
    if not rootfile:
        raise LoaderError(path, "not an EPUB: META-INF/container.xml names no package file")
    opf = _xml(path, package, rootfile)
    base = posixpath.dirname(rootfile)
    title = next(
        (
            " ".join("".join(e.itertext()).split())
            for e in opf.iter()
            if _local(e.tag) == "title" and "".join(e.itertext()).strip()
        ),
        "",
    )
    title = title or name_title(path)
    manifest = {
        e.get("id"): posixpath.normpath(posixpath.join(base, unquote(e.get("href", ""))))
        for e in opf.iter()
        if _local(e.tag) == "item" and e.get("id") and e.get("href")
    }
    spine = [e.get("idref") for e in opf.iter() if _local(e.tag) == "itemref" and e.get("idref")]
    if not spine:
        raise LoaderError(path, "not an EPUB: the package file has no spine (reading order)")
    encrypted = _encrypted(path, package)
    names = set(package.namelist())
    docs: list[Document] = []
    warnings: list[str] = []
    for idref in spine:
        member = manifest.get(idref)
        if member is None or member not in names:
            warnings.append(f"{path}: spine item {idref!r} is missing from the package; skipped")
            continue
        if member in encrypted:
            raise LoaderError(path, f"DRM-protected EPUB: {member} is encrypted")
        try:
            heading, text, headings = _chapter(path, package, member)
        except LoaderError as exc:
            warnings.append(f"{exc.reason}; skipped")
            continue
        except Exception as exc:  # zipfile CRC errors, decompression errors
            warnings.append(f"{path}: {member} unreadable ({exc}); skipped")
            continue
        if not text.strip():
            continue
        number = len(docs) + 1
        short = shorten(heading, _TITLE_MAX)
        docs.append(
            Document(
                source=path,
                doc_id=f"chapter {number}: {short}" if short else f"chapter {number}",
                text=text,
                title=title,
                metadata={"chapter": number, "href": member},
                headings=headings,  # each chunk stores the section it starts in
            )
        )
    if not docs:
        detail = f" ({warnings[0]})" if warnings else ""
        raise LoaderError(path, f"EPUB holds no chapter with text{detail}")
    return docs, warnings

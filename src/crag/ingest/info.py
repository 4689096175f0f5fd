"""GNU Info manuals as they are installed (`sed.info.gz`, `find.info-1.gz`), as Markdown.

Why: the GNU tools document themselves in Info (`/usr/share/info`: coreutils, grep, sed, find,
wget …), and crag refused `.info` files as an unsupported type. An Info file is plain text in
nodes (separated by a ^_ byte, each opened by a "File: …, Node: …, Next: …" line and closed by
a menu of links to other nodes); its titles are underlined (`*` a chapter, `=` a section, `-`
and `.` below); a table of options writes each option at the margin and its description
indented under it. Read here: the nodes' headers, menus and index tables dropped, the
underlined titles as headings (chunks store the section they stand in), each table entry as
one paragraph with its options first (so that it opens a strip of its own, as a man page's
does: `crag.refine.strips.option_entry`), examples as code, and a cross reference
("*note Execution Cycle::") as "see Execution Cycle".
"""

from __future__ import annotations

import re
from pathlib import Path

from crag.errors import LoaderError, UnsupportedFileError
from crag.types import Document

__all__ = ["INFO_SUFFIX", "load_info", "render_info", "without_index_marks"]

# An Info file's suffix, or a part's of a manual split in several (".info-1").
INFO_SUFFIX = re.compile(r"\.info(?:-\d+)?")

# makeinfo marks an index node's menu with "\0\b[index\0\b]": the only NUL bytes of the file
_INDEX_MARK = re.compile(rb"\x00\x08\[[a-z ]*\x00\x08\]")
_PARTS = re.compile(r"\x1f\s*Indirect:")
_UNDERLINE = {"*": "#", "=": "##", "-": "###", ".": "####"}
_RULE = re.compile(r"([*=.-])\1+")
_MENU = re.compile(r"^\* Menu:.*", re.MULTILINE | re.DOTALL)
_REF_NODE = re.compile(r"\*[Nn]ote\s+([^:*]+?)::")
_REF_NAMED = re.compile(r"\*[Nn]ote\s+([^:*]+?):\s*[^.,:*]+[.,]")
_NODE = re.compile(r"Node:\s*([^,\n]+)")
_BODY = 5  # a table entry's description, an example: indented this many spaces


def without_index_marks(data: bytes) -> bytes:
    """The file's bytes without the marks of its index nodes, which would read as binary."""
    return _INDEX_MARK.sub(b"", data) if b"\x00" in data else data


def load_info(path: str, text: str) -> tuple[list[Document], list[str]]:
    """One document per file: its nodes' text as Markdown, titled by the manual's first title.
    The first file of a manual split in parts lists the parts and holds no node, and a last
    part may hold only the index: both refused as unsupported (the other parts hold the
    text)."""
    title, body = render_info(text)
    if not body.strip() and _PARTS.search(text):
        raise UnsupportedFileError(path, "the list of a split Info manual's parts (they hold it)")
    if not body.strip() and _NODE.search(text):
        raise UnsupportedFileError(path, "an Info file that holds only an index")
    if not body.strip():
        raise LoaderError(path, "an Info file with no node text")
    stem = Path(path).name.split(".info")[0]
    doc = Document(source=path, doc_id="info", text=body, title=title or stem, format="markdown")
    return [doc], []


def render_info(source: str) -> tuple[str, str]:
    """(title, Markdown text) of an Info file: the title is the Top node's, if it has one."""
    title = ""
    blocks: list[str] = []
    for node in source.replace("\r\n", "\n").split("\x1f")[1:]:  # [0]: the preamble
        node = node.lstrip("\n")
        if not node.startswith("File:"):  # "Indirect:", "Tag Table:", local variables
            continue
        header, _, body = node.partition("\n")
        name = _NODE.search(header)
        if name and "Index" in name.group(1):  # an index: links to the text, no text
            continue
        body = _MENU.sub("", body)
        body = _REF_NAMED.sub(r"see \1", _REF_NODE.sub(r"see \1", body))
        node_blocks = _blocks(body.split("\n"))
        if not title and name and name.group(1).strip() == "Top":
            title = next((b.lstrip("# ") for b in node_blocks if b.startswith("#")), "")
        blocks += node_blocks
    return title, "\n\n".join(blocks) + ("\n" if blocks else "")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _blocks(lines: list[str]) -> list[str]:
    """A node's lines as Markdown blocks: headings, paragraphs, entries and code."""
    out: list[str] = []
    groups: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            groups[-1].append(line.rstrip())
        elif groups[-1]:
            groups.append([])
    in_entry = False  # the last block was a table entry: an indented paragraph continues it
    for group in (g for g in groups if g):
        if len(group) >= 2 and _RULE.fullmatch(group[1].strip()) and _is_title(group[0], group[1]):
            out.append(f"{_UNDERLINE[group[1].strip()[0]]} {group[0].strip()}")
            group, in_entry = group[2:], False
            if not group:
                continue
        margin = [i for i, line in enumerate(group) if _indent(line) < _BODY]
        if not margin:  # all indented: an entry's further paragraph, or an example
            if in_entry and _indent(group[0]) == _BODY:
                out += _entry_body(group)
            else:
                out.append(_code(group))
            continue
        tags = _leading_tags(group)
        if tags:  # "‘-n’" / "‘--quiet’" at the margin, the description under them
            head = ", ".join(line.strip() for line in group[:tags])
            out += _entry_body(group[tags:], head)
            in_entry = True
        else:
            out.append("\n".join(line.strip() for line in group))
            in_entry = False
    return out


def _is_title(line: str, rule: str) -> bool:
    """`rule` underlines `line` (as long as it, give or take the width of a wide character)."""
    return bool(line.strip()) and abs(len(rule.strip()) - len(line.strip())) <= 2


def _leading_tags(group: list[str]) -> int:
    """How many margin lines open the group before its indented description (0: none)."""
    n = 0
    while n < len(group) and _indent(group[n]) < _BODY:
        n += 1
    return n if 0 < n < len(group) and n <= 4 else 0


def _entry_body(lines: list[str], head: str = "") -> list[str]:
    """An entry's description as one paragraph (its options first), its examples as code."""
    text: list[str] = [head] if head else []
    code: list[str] = []
    out: list[str] = []
    for line in lines:
        if _indent(line) >= 2 * _BODY:
            code.append(line)
            continue
        if code:
            out += ["\n".join(text)] if text else []
            out.append(_code(code))
            text, code = [], []
        text.append(line.strip())
    if text:
        out.append("\n".join(text))
    if code:
        out.append(_code(code))
    return [block for block in out if block.strip()]


def _code(lines: list[str]) -> str:
    cut = min(_indent(line) for line in lines)
    return "```\n" + "\n".join(line[cut:] for line in lines) + "\n```"

"""Man pages as they are installed (`gzip.1.gz`, `ssh_config.5`, `foo.man`): roff source read as
the page `man` shows, written as Markdown so that its sections and option lists carry over.

Why: a folder of man pages is the documentation most machines already hold (17,904 pages under
`/usr/share/man/man1` here), and ingesting it meant `man -l page | col -b > page.txt` by hand
for each one: crag refused the files as an unsupported type. Read here without groff (which a
laptop may not have): the man(7) macros that carry the text — sections (`.SH`, `.SS`), option
entries (`.TP`, `.IP`: the option, then its description, one paragraph, so that each entry
opens a strip of its own, `crag.refine.strips.option_entry`), fonts and their alternations
(`.BR ls (1)` is "ls(1)"), unfilled blocks (`.nf`, `.EX`: kept as code), the escapes of
characters and fonts (`\\-`, `\\(em`, `\\fB`) — and a rough reading of BSD's mdoc(7) (0.1 % of
the pages here). What only lays the page out (indents, adjustments, registers, conditionals,
macro definitions) is dropped.
"""

from __future__ import annotations

import re
from pathlib import Path

from crag.errors import LoaderError, UnsupportedFileError
from crag.types import Document

__all__ = ["MAN_SUFFIX", "load_man", "render_man", "unescape"]

# A man page's file suffix: its section, maybe with a suffix of letters (".1", ".3pm", ".1ssl").
MAN_SUFFIX = re.compile(r"\.[1-9][a-z]{0,6}")

_GLYPHS = {
    "em": "—", "en": "–", "hy": "-", "mi": "-", "bu": "•", "aq": "'", "dq": '"', "lq": "“",
    "rq": "”", "oq": "‘", "cq": "’", "Lq": "„", "co": "©", "rg": "®", "tm": "™", "mu": "×",
    "di": "÷", "+-": "±", "<=": "≤", ">=": "≥", "!=": "≠", "->": "→", "<-": "←", "de": "°",
    "rs": "\\", "ti": "~", "ha": "^", "sl": "/", "ba": "|", "or": "|", "pl": "+", "eq": "=",
    "lB": "[", "rB": "]", "lC": "{", "rC": "}", "la": "⟨", "ra": "⟩", "sc": "§", "ct": "¢",
    "Tm": "™", "R": "®", "ga": "`", "aa": "´", "at": "@", "sh": "#", "Do": "$", "fm": "′",
}  # fmt: skip
# \(xx and \[name] glyphs, \*x \*(xx \*[name] strings, \fX \f(XX \f[X] fonts, \sN sizes,
# \nx \n(xx \n[x] registers, \w'…' and the other delimited escapes, and a single character.
_ESCAPE = re.compile(
    r"\\(?:\((?P<two>..)|\[(?P<name>[^\]]*)\]|\*(?:\((?P<str2>..)|\[(?P<strn>[^\]]*)\]|(?P<str1>.))"
    r"|f(?:\(..|\[[^\]]*\]|.)|s[+-]?(?:\d+|\(\d\d|\[\d+\])|n[+-]?(?:\(..|\[[^\]]*\]|.)"
    r"|[whvlLoXNbDZ]'[^']*'|k.|\$\d|(?P<one>.))"
)
_SINGLE = {"-": "-", "e": "\\", "\\": "\\", " ": " ", "~": " ", "0": " ", "t": "\t", ".": ".",
           "'": "´", "`": "`", "_": "_"}  # fmt: skip
_DROPPED = set("&)|^,/:%c!{}p")  # zero-width, break and font-less escapes
_ARGS = re.compile(r'"((?:[^"]|"")*)"?|((?:\\.|[^\s\\])+\\?)')  # "a b" | a\ b
_ALIAS = re.compile(r"\s*\.so\s+(\S+)\s*$")  # the whole page: ".so man7/other.7"
_END_OF_BLOCK = re.compile(r"\.\s*\.\s*")
_TITLE_LINE = re.compile(r"^\.(?:TH|Dt)\s", re.MULTILINE)

_FONTS = {"B", "I", "R", "SM", "SB", "CW"}
_ALTERNATING = {"BR", "BI", "IB", "IR", "RB", "RI"}
_BREAKS = {"PP", "LP", "P", "sp", "br", "HP", "Pp", "Lp", "YS", "Bl", "El", "Bd", "Ed"}
_BLOCKS = {"de", "de1", "am", "ig", "ds1"}  # skipped up to their ".." line
# mdoc's inline macros: their names are dropped, their arguments kept
_MDOC_NAMES = (
    "Ad An Ar Cd Cm Dv Em Er Ev Fa Fd Fn Ft Ic Li Lk Ms Mt Nd No Ns Pa Pq Ql Dq Sq Qq Aq Bq "
    "Brq Sy Tn Va Vt Xo Xc Oo Oc Op Fl Nm Xr Dl It Sx Ux At Bx Bsx Fx Nx Ox St Ta"
)
_MDOC_CALLS = frozenset(_MDOC_NAMES.split(" "))


def load_man(path: str, text: str) -> tuple[list[Document], list[str]]:
    """One document: the page's text as Markdown, titled "name(section)" after its `.TH`.
    A file named like a man page (`syslog.1`, a rotated log) without a title request is
    not one: refused as unsupported, as its suffix was before."""
    if (alias := _ALIAS.match(text)) is not None:
        raise UnsupportedFileError(path, f"a man page alias: it only points to {alias.group(1)}")
    if not path.endswith((".man", ".man.gz")) and not _TITLE_LINE.search(text[:20000]):
        raise UnsupportedFileError(path, "not a man page: no .TH or .Dt line")
    title, body = render_man(text)
    if not body.strip():
        raise LoaderError(path, "a man page with no text")
    name = Path(path).name
    stem = name[: name.index(".")] if "." in name else name
    doc = Document(source=path, doc_id="page", text=body, title=title or stem, format="markdown")
    return [doc], []


def render_man(source: str) -> tuple[str, str]:
    """(title, Markdown text) of a man page's roff source."""
    return _Renderer().run(source)


def unescape(text: str) -> str:
    """A roff text line's escapes as the characters they print (fonts and sizes: nothing)."""
    if "\\" not in text:
        return text
    text = re.sub(r'\\".*', "", text)  # a comment runs to the end of the line

    def char(m: re.Match[str]) -> str:
        if (two := m.group("two")) is not None:
            return _GLYPHS.get(two, "")
        if (name := m.group("name")) is not None:
            if re.fullmatch(r"u[0-9A-Fa-f]{4,6}", name):  # \[u00E9]: a code point
                code = int(name[1:], 16)
                return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else ""
            return _GLYPHS.get(name, "")
        string = m.group("str2") or m.group("strn") or m.group("str1")
        if string is not None:
            return _GLYPHS.get(string, "")
        one = m.group("one")
        if one is None or one in _DROPPED:
            return ""
        return _SINGLE.get(one, one)

    return _ESCAPE.sub(char, text)


def _args(line: str) -> list[str]:
    """A request's arguments, roff's double quotes grouping words ("" is a quote)."""
    return [
        m.group(1).replace('""', '"') if m.group(1) is not None else m.group(2)
        for m in _ARGS.finditer(line)
    ]


class _Renderer:
    """One pass over the page's lines, collecting Markdown blocks."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.para: list[str] = []
        self.code: list[str] | None = None  # the lines of an unfilled block, while in one
        self.title = ""
        self.heading = ""  # a section request without words: the next line is its title
        self.tag_next = False  # the next text line is an entry's tag (.TP, .TQ)
        self.tags: list[str] = []
        self.name = ""  # mdoc's .Nm

    def run(self, source: str) -> tuple[str, str]:
        lines = re.sub(r"\\\n", "", source.replace("\r\n", "\n")).split("\n")
        skip_to = ""
        for line in lines:
            if skip_to:
                if _END_OF_BLOCK.fullmatch(line):  # "..", also written ".  ."
                    skip_to = ""
                continue
            if line[:1] in (".", "'"):
                request, _, rest = line[1:].lstrip().replace("\t", " ").partition(" ")
                if request in _BLOCKS:
                    skip_to = "end"
                    continue
                self.request(request, rest.strip())
            else:
                self.text(unescape(line))
        self.end_code()
        self.flush()
        return self.title, "\n\n".join(self.blocks) + "\n"

    def flush(self) -> None:
        """The paragraph (or entry) so far as a block."""
        if self.tags:  # a tag with no description
            self.para[:0] = [", ".join(self.tags)]
            self.tags, self.tag_next = [], False
        text = "\n".join(line.strip() for line in self.para if line.strip())
        if text:
            self.blocks.append(text)
        self.para = []

    def end_code(self) -> None:
        if self.code is not None and any(line.strip() for line in self.code):
            self.blocks.append("```\n" + "\n".join(self.code).strip("\n") + "\n```")
        self.code = None

    def text(self, line: str) -> None:
        if self.heading:
            if line.strip():
                self.blocks.append(f"{self.heading} {line.strip()}")
                self.heading = ""
            return
        if self.code is not None:
            self.code.append(line.rstrip())
            return
        if self.tag_next:
            if line.strip():
                self.tags.append(line.strip())
                self.tag_next = False
            return
        if self.tags:  # the entry's description starts: its tag opens the paragraph
            self.para, self.tags = [", ".join(self.tags)], []
        self.para.append(line)

    def request(self, name: str, rest: str) -> None:
        words = [unescape(a) for a in _args(rest)]
        if name.startswith('\\"'):
            return
        if name in ("TH", "Dt") and words and not self.title:
            page = words[0].lower() if words[0].isupper() else words[0]
            self.title = f"{page}({words[1]})" if len(words) > 1 else page
        elif name in ("SH", "SS", "Sh", "Ss"):
            self.end_code()
            self.flush()
            level = "##" if name in ("SH", "Sh") else "###"
            if words:
                self.blocks.append(f"{level} {' '.join(words)}")
            else:
                self.heading = level
        elif name == "TQ":  # one more tag for the entry (after a description: a new entry)
            if self.para:
                self.flush()
            self.tag_next = True
        elif name in ("TP", "It"):
            self.flush()
            if name == "It" and words:
                self.tags = [self.mdoc(words)]
            else:
                self.tag_next = True
        elif name == "IP":
            self.flush()
            if words and words[0] not in ("•", "-", "*", "o"):
                self.tags = [words[0]]
        elif name in _BREAKS:
            if self.code is not None:
                self.code.append("")
            else:
                self.flush()
        elif name in ("nf", "EX", "Bd"):
            self.flush()
            self.end_code()
            self.code = []
        elif name in ("fi", "EE", "Ed"):
            self.end_code()
        elif name in _FONTS:
            if words:
                self.text(" ".join(words))
        elif name in _ALTERNATING:
            self.text("".join(words))
        elif name == "SY":
            self.flush()
            self.text(" ".join(words))
        elif name == "OP":
            self.text(f"[{' '.join(words)}]")
        elif name in ("UE", "ME"):
            if words:
                self.text(words[0])
        elif name == "Nm" and words and not self.name:
            self.name = words[0]
            self.text(self.mdoc(words))
        elif name in _MDOC_CALLS:
            self.text(self.mdoc([name, *words]))

    def mdoc(self, words: list[str]) -> str:
        """An mdoc line's words, its macro names dropped ("Fl k" is "-k", "Xr ls 1" "ls(1)")."""
        out: list[str] = []
        i = 0
        while i < len(words):
            w, after = words[i], words[i + 1] if i + 1 < len(words) else ""
            if w == "Fl":
                flag = after if after not in _MDOC_CALLS else ""
                out.append(f"-{flag}")
                i += 2 if flag else 1
            elif w == "Xr" and i + 2 < len(words):
                out.append(f"{after}({words[i + 2]})")
                i += 3
            elif w == "Nm":
                named = after and after not in _MDOC_CALLS
                out.append(after if named else self.name)
                i += 2 if named else 1
            else:
                out.append("-" if w == "Nd" else "" if w in _MDOC_CALLS else w)
                i += 1
        return " ".join(o for o in out if o)

"""reStructuredText as Sphinx renders it: roles read as their text, directives as they show.

Why: a Sphinx manual's source is markup that its readers never see. CMake's reference dates
each change with a directive over the sentence it dates,

    .. versionadded:: 3.11
      The source files can be omitted if they are added later using
      :command:`target_sources`.

which the rendered page shows as "New in version 3.11: The source files can be omitted if
they are added later using target_sources." Read as source, the version stood on a line of
its own, in a directive the line joiner (`crag.ingest.rst_breaks`) leaves alone, so the
sentence kept its wraps, and a chunk could hold the date without the change or the change
without the date. Roles (`:command:`, `:prop_tgt:`, Python's `:func:` …) put markup around
the names a reader asks about, and a line opening with one was taken for a field.

What is done, outside literal blocks and code:
- `versionadded`, `versionchanged`, `deprecated`, `versionremoved` read "New in version X: …"
  (and so on), their text on one paragraph with the label; admonitions (`note`, `warning`,
  `seealso` …) read "Note: …";
- the wrappers `only`, `container` and `rst-class` give their content; what shows no text
  (`contents`, `toctree`, `index`, `include`, `highlight`, `meta`, `raw`, `image` …), comments
  and hyperlink targets (`.. _label:`) go;
- a role reads as its text: its title where it has one (":ref:`exit code <CMake Exit
  Code>`" → "exit code"), a cross-reference to a name as that name in literal quotes
  (":command:`target_sources`" → "``target_sources``", ":func:`~os.path.join`" → "``join``"),
  as Sphinx shows it in code type;
- every other directive (`code-block`, `parsed-literal`, tables, CMake's `command` and
  Sphinx's domain directives) is left as written.
"""

from __future__ import annotations

import re

from crag.ingest.rst_breaks import indent_of

__all__ = ["rendered"]

_DIRECTIVE = re.compile(
    r"^(?P<indent>[ \t]*)\.\.[ \t]+(?P<name>[\w.+:-]+?)::(?:[ \t]+(?P<arg>.*?))?[ \t]*$"
)
_EXPLICIT = re.compile(r"^(?P<indent>[ \t]*)\.\.(?:[ \t]+(?P<rest>.*))?$")
_OPTION = re.compile(r"^[ \t]+:[\w-]+:")  # a directive's option line (":caption: …")
_ROLE = re.compile(r"(?<![\w`]):(?P<role>[A-Za-z][\w.+-]*(?::[A-Za-z][\w.+-]*)?):`(?P<text>[^`]+)`")
# "title <target>": a space before the bracket ("$<TARGET_FILE:tgt>" is a name, not a title)
_TITLED = re.compile(r"^(?P<title>.+?)\s+<(?P<target>[^<>]+)>$")

_VERSIONS = {
    "versionadded": "New in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
_ADMONITIONS = {
    "note": "Note",
    "warning": "Warning",
    "tip": "Tip",
    "hint": "Hint",
    "important": "Important",
    "caution": "Caution",
    "attention": "Attention",
    "danger": "Danger",
    "error": "Error",
    "seealso": "See also",
}
_UNWRAPPED = {"only", "container", "rst-class"}
_HIDDEN = {
    "contents", "toctree", "index", "include", "highlight", "meta", "raw", "image",
    "sectionauthor", "moduleauthor", "codeauthor", "default-role", "role", "class", "todo",
    "tabularcolumns", "cmake-module", "currentmodule", "module", "automodule",
}  # fmt: skip
_MAX_DEPTH = 16  # directives nested deeper than this stay as written (bounded time, no recursion)
_PROSE_ROLES = {"ref", "doc", "term", "numref", "abbr", "download", "manual", "guilabel"}


def rendered(text: str) -> str:
    """`text` with its directives and roles as a rendered page shows them (module doc)."""
    return "\n".join(_render(text.split("\n")))


def _block_end(lines: list[str], start: int, indent: int) -> int:
    """The end of the block whose first line is `start`: the lines after it that are blank
    or indented deeper than `indent`, trailing blank lines left out."""
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or indent_of(lines[end]) > indent):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def _dedented(body: list[str], indent: int) -> list[str]:
    """`body` moved left to `indent`, options dropped, leading blank lines left out."""
    while body and (not body[0].strip() or _OPTION.match(body[0])):
        body = body[1:]
    cut = min((indent_of(line) for line in body if line.strip()), default=0)
    return [" " * indent + line[cut:] if line.strip() else "" for line in body]


def _render(lines: list[str], depth: int = 0) -> list[str]:
    out: list[str] = []
    i = 0
    literal = -1  # inside a literal block: lines indented deeper than this stay as written
    while i < len(lines):
        line = lines[i]
        if literal >= 0 and (not line.strip() or indent_of(line) > literal):
            out.append(line)
            i += 1
            continue
        literal = -1
        explicit = _EXPLICIT.match(line)
        if explicit is None:
            out.append(_roles(line))
            if line.rstrip().endswith("::"):  # a literal block follows, indented below
                literal = indent_of(line)
            i += 1
            continue
        indent = len(explicit.group("indent"))
        end = _block_end(lines, i, indent)
        directive = _DIRECTIVE.match(line)
        rest = explicit.group("rest") or ""
        if directive is None:
            if rest.startswith(("[", "|")):  # a footnote, citation or substitution: kept
                out.extend(lines[i:end])
            # else a comment or a hyperlink target (".. _label:"): no text
            i = end
            continue
        name, arg = directive.group("name").lower(), directive.group("arg") or ""
        body = _dedented(lines[i + 1 : end], indent)
        if depth >= _MAX_DEPTH:
            out.extend(lines[i:end])
        elif name in _VERSIONS or name in _ADMONITIONS or name == "admonition":
            out.extend(_labelled(name, arg, body, indent, depth + 1))
        elif name in _UNWRAPPED:
            out.extend(_render(body, depth + 1))
        elif name not in _HIDDEN:
            out.extend(lines[i:end])  # code, tables, domain directives: as written
        i = end
    return out


def _labelled(name: str, arg: str, body: list[str], indent: int, depth: int) -> list[str]:
    """A version change or an admonition as one paragraph led by its label."""
    if name in _VERSIONS:
        version, _, said = arg.partition(" ")
        label, first = f"{_VERSIONS[name]} {version}".rstrip(), _roles(said.strip())
    elif name == "admonition":
        label, first = arg.strip() or "Note", ""
    else:
        label, first = _ADMONITIONS[name], _roles(arg.strip())
    rest = _render(body, depth)  # its roles rendered already
    if not first and rest and rest[0].strip():
        first, rest = rest[0].strip(), rest[1:]
    if first.casefold().startswith(label.casefold() + " "):  # "Note that …": no "Note: Note"
        lead = " " * indent + first
    else:
        lead = " " * indent + (f"{label}: {first}" if first else f"{label}.")
    return [lead, *rest]


def _roles(line: str) -> str:
    return _ROLE.sub(_role_text, line) if ":`" in line else line


def _role_text(m: re.Match[str]) -> str:
    role, text = m.group("role").rsplit(":", 1)[-1].lower(), m.group("text").strip()
    if titled := _TITLED.match(text):
        return titled.group("title")
    if role in _PROSE_ROLES:
        return text
    name = text.lstrip("!")
    if name.startswith("~"):
        name = name[1:].rsplit(".", 1)[-1]
    return f"``{name}``"

"""The README and docs/ say what the code does: commands exist, links resolve, the README is short.

Quick and model-free: the `crag` commands shown in ```bash blocks are checked against the
click command tree typer builds from `crag.cli.app` (subcommand path and every option), and
relative links (with their `#anchor`) against the files and headings they point at.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import typer

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_BYTES = 15_000

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SUBSTITUTION = re.compile(r"\$\([^()]*\)")  # $(...) : its own command, not crag's arguments
OPERATORS = {"&&", "||", "|", ";", "&", ";;", "(", ")", "<", ">", ">>"}


@dataclass(frozen=True)
class Shown:
    """One `crag ...` command as a page shows it."""

    page: str
    line: int
    tokens: tuple[str, ...]  # after "crag"

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: crag {' '.join(self.tokens)}"


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _bash_lines(text: str) -> list[tuple[int, str]]:
    """(line number, logical line) of every ```bash block, continuation lines joined."""
    out: list[tuple[int, str]] = []
    for match in FENCE.finditer(text):
        if match.group(1) not in ("bash", "sh", "shell", "console"):
            continue
        first = text.count("\n", 0, match.start(2)) + 1
        pending, start = "", first
        for offset, raw in enumerate(match.group(2).splitlines()):
            if not pending:
                start = first + offset
            if raw.rstrip().endswith("\\"):
                pending += raw.rstrip()[:-1] + " "
                continue
            out.append((start, pending + raw))
            pending = ""
        if pending:
            out.append((start, pending))
    return out


def _crag_commands(line: str) -> list[list[str]]:
    """The argument lists of each `crag` command in one shell line (env assignments skipped)."""
    lexer = shlex.shlex(SUBSTITUTION.sub("X", line), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    tokens = list(lexer)
    commands, segment = [], []
    for token in [*tokens, ";"]:
        if token in OPERATORS:
            words = list(segment)
            while words and ASSIGNMENT.match(words[0]):
                words.pop(0)
            if words and words[0] == "crag":
                commands.append(words[1:])
            segment = []
        else:
            segment.append(token)
    return commands


def _shown_commands() -> list[Shown]:
    shown = []
    for page in PAGES:
        for number, line in _bash_lines(page.read_text(encoding="utf-8")):
            for args in _crag_commands(line):
                shown.append(Shown(_rel(page), number, tuple(args)))
    return shown


# typer builds click-style commands (newer typer on its own copy of click), so they are
# read by their attributes: a group has `commands`, a parameter says whether it is an option.
Command = Any


@cache
def _cli() -> Command:
    from crag.cli import app

    return typer.main.get_command(app)


def _is_group(command: Command) -> bool:
    return isinstance(getattr(command, "commands", None), dict)


def _options(command: Command) -> set[str]:
    names = {"--help"}
    for param in command.params:
        if param.param_type_name == "option":
            names.update(param.opts)
            names.update(param.secondary_opts)
    return names


def _problems(shown: Shown) -> list[str]:
    command = _cli()
    path = ["crag"]
    args = list(shown.tokens)
    # Walk the subcommand path: options of a group come before its subcommand.
    while _is_group(command):
        words = [a for a in args if not a.startswith("-")]
        if not words:
            return [f"`{' '.join(path)}` needs a subcommand"]
        name = words[0]
        sub = command.commands.get(name)
        if sub is None:
            known = ", ".join(sorted(command.commands))
            return [f"`{' '.join(path)}` has no subcommand {name!r} (it has: {known})"]
        before = args[: args.index(name)]
        problems = _unknown_options(command, before, path)
        if problems:
            return problems
        args = args[args.index(name) + 1 :]
        command, path = sub, [*path, name]
    return _unknown_options(command, args, path)


def _unknown_options(command: Command, args: list[str], path: list[str]) -> list[str]:
    accepted = _options(command)
    problems = []
    for arg in args:
        if arg == "--":
            break
        if not arg.startswith("-") or arg == "-" or re.match(r"^-\d", arg):
            continue
        name = arg.split("=", 1)[0]
        if name not in accepted:
            problems.append(f"`{' '.join(path)}` has no option {name}")
    return problems


SHOWN = _shown_commands()


def test_the_pages_show_crag_commands() -> None:
    """Guards the parser below: the README's usage block must be found at all."""
    on_readme = [s for s in SHOWN if s.page == "README.md"]
    assert len(on_readme) >= 10, [str(s) for s in on_readme]
    assert {s.tokens[0] for s in SHOWN if s.tokens} >= {"ingest", "ask", "serve", "eval"}


@pytest.mark.parametrize("shown", SHOWN, ids=str)
def test_each_command_shown_exists_with_its_options(shown: Shown) -> None:
    assert _problems(shown) == [], str(shown)


def test_the_checker_catches_a_wrong_subcommand_and_a_wrong_option() -> None:
    assert _problems(Shown("x", 1, ("ask", "q", "--no-such-option")))
    assert _problems(Shown("x", 1, ("no-such-command",)))
    assert _problems(Shown("x", 1, ("evaluator", "no-such-step")))
    assert _problems(Shown("x", 1, ("evaluator", "export", "run/model", "--dest", "d"))) == []
    assert _crag_commands("A=1 B=$(python -c 'x; y') crag serve --host 0.0.0.0 &") == [
        ["serve", "--host", "0.0.0.0"]
    ]


def test_readme_is_one_page() -> None:
    size = len(README.read_bytes())
    assert size <= README_MAX_BYTES, f"README.md is {size} bytes; move detail to docs/"


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: text only, lowercased, punctuation dropped, spaces -> -."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").replace("*", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@cache
def _anchors(path: Path) -> frozenset[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    anchors = set()
    for match in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M):
        slug = _slug(match.group(1))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return frozenset(anchors)


def _links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)
    return [m.group(1) for m in LINK.finditer(text)]


LINKS = [
    (page, target)
    for page in PAGES
    for target in _links(page)
    if not re.match(r"^[a-z][a-z0-9+.-]*:", target)  # http:, https:, mailto:
]


def test_readme_links_every_docs_page() -> None:
    linked = {(README.parent / t.split("#")[0]).resolve() for p, t in LINKS if p == README}
    missing = [_rel(p) for p in PAGES[1:] if p.resolve() not in linked]
    assert missing == [], "docs pages the README does not link"


@pytest.mark.parametrize("link", LINKS, ids=lambda link: f"{_rel(link[0])}->{link[1]}")
def test_each_relative_link_resolves(link: tuple[Path, str]) -> None:
    page, target = link
    file_part, _, anchor = target.partition("#")
    dest = (page.parent / file_part).resolve() if file_part else page
    assert dest.exists(), f"{_rel(page)} links {target}: no such file"
    if anchor and dest.suffix == ".md":
        assert anchor in _anchors(dest), f"{_rel(page)} links {target}: no such heading"

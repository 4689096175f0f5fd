"""A Markdown page's front matter: the block at its top where a documentation site keeps the
page's title.

Why: the Markdown sources of documentation sites (Jekyll, Hugo, Docusaurus, MkDocs, GitHub
Docs) open with YAML between `---` lines, or TOML between `+++` lines (Hugo), and name the page
there rather than in a `# heading`:

    ---
    title: npm-ci
    section: 1
    description: Clean install a project
    ---

Read as Markdown, that block is a paragraph under a thematic break: its line wraps were joined
("title: npm-ci section: 1") and it opened the page's first chunk as raw YAML. The title came
from the first `# ` line, which in 14 of npm's 91 pages is a comment in a shell example
("# .travis.yml" titled `npm ci`), and else from the file's name. The page's
title is the front matter's `title`; its `description` (or Hugo's `summary`), a sentence
written to say what the page is for, stays as the page's first paragraph. The other keys
(layout, weight, tags, permalink …) are for the site's generator and are dropped.

Bounded: the block must close within `MAX_LINES` lines and hold at most `MAX_CHARS`
characters; a block that is longer, is not a mapping or does not parse (nesting too deep for
the parser included) is left in the text as it was, with a warning; only string or number
values are taken (a YAML alias bomb is never walked).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_CHARS", "MAX_LINES", "FrontMatter", "split_front_matter"]

MAX_LINES = 200  # a front matter block is a few lines; one not closed by then is no block
MAX_CHARS = 65_536  # nor is one of more text than this (it is read as text, with a warning)

_CLOSERS = {"---": ("---", "..."), "+++": ("+++",)}


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """What a page's front matter says about it, and the page without it."""

    title: str
    description: str
    body: str  # the text after the block's closing line


def split_front_matter(text: str) -> tuple[FrontMatter | None, list[str]]:
    """The front matter at the top of Markdown `text` and the text after it; `None` where the
    text opens with no such block. A block that does not parse as a mapping gives `None` and
    a warning (the text is then read as it is)."""
    lines = text.split("\n", MAX_LINES + 1)
    opener = lines[0].rstrip("\r \t")
    if opener not in _CLOSERS:
        return None, []
    for n, line in enumerate(lines[1 : MAX_LINES + 1], 1):
        if line.rstrip("\r \t") in _CLOSERS[opener]:
            block = "\n".join(lines[1:n])
            body = "\n".join(lines[n + 1 :]) if n + 1 < len(lines) else ""
            break
    else:
        return None, []
    kind = "TOML" if opener == "+++" else "YAML"
    if len(block) > MAX_CHARS:
        return None, [f"front matter longer than {MAX_CHARS:,} characters: read as text"]
    fields = _parse(block, toml=opener == "+++")
    if fields is None:
        return None, [f"front matter is not a {kind} mapping: read as text"]
    return FrontMatter(
        title=_scalar(fields.get("title")),
        description=_scalar(fields.get("description")) or _scalar(fields.get("summary")),
        body=body,
    ), []


def _parse(block: str, *, toml: bool) -> dict[Any, Any] | None:
    if toml:
        try:
            return tomllib.loads(block)
        except (tomllib.TOMLDecodeError, RecursionError):  # nested past the parser's depth
            return None
    import yaml

    try:
        fields = yaml.safe_load(block) if block.strip() else {}
    except (yaml.YAMLError, RecursionError):  # nested past the parser's depth
        return None
    return fields if isinstance(fields, dict) else None


def _scalar(value: object) -> str:
    """A title or description as one line of text; "" for a list, a mapping or nothing."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return ""
    return " ".join(str(value).split())

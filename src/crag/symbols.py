"""Answers written in symbols: an editor's `~` and `%`, a shell's `|` and `$?`, a quoted `"."`.

Why: matching splits text into words (letters and digits), so an answer made only of
symbols said nothing to it. Over Vim's user manual the packaged reader answered "What does Vim
add to the end of a backup file's name?" with "~ [1]", and the answer was dropped as empty;
"Which command repeats the last change?" with 'The "." command', dropped as only repeating the
question (its one word, "command", is the question's). Technical documents are full of such
answers: commands, operators, a path's `~/`.

A *symbol* here is a run of operator characters standing alone — between spaces, brackets or
the text's ends, perhaps before a sentence's punctuation ("with a ~ added", "(%)") — or any
punctuation written between quotes ('"."', "`*`"). A symbol glued to a word is part of that
word's spelling, not a symbol: "20%", "$5", "data.txt~", "C++". Dashes, "*" and sentence
punctuation stand alone in prose (a list's bullet, "a — b", a tokenised " , ") and count only
quoted.

Matching uses symbols only for an answer that has no word at all (`symbolic`), so every answer
with a word is matched as before.
"""

from __future__ import annotations

import re

__all__ = ["SYMBOL", "symbolic", "symbols"]

_QUOTES = "\"'`‘’“”"
_OPERATOR = r"~%&|$#@^+=<>/\\"
SYMBOL = re.compile(
    rf"(?<![^\s(\[{{])[{_OPERATOR}][{_OPERATOR}!?*-]*(?=[\s)\]}}.,;:!?]|$)"  # standing alone
    rf"|(?<=[{_QUOTES}])[^\w\s{_QUOTES}]+(?=[{_QUOTES}])"  # quoted: '"."', "`*`"
)
_WORD = re.compile(r"[^\W_]")


def symbols(text: str) -> list[str]:
    """The symbols of `text`, in order."""
    return SYMBOL.findall(text)


def symbolic(text: str) -> bool:
    """`text` is written in symbols only: no letter or digit, at least one symbol ("~",
    '"."', "$?")."""
    return not _WORD.search(text) and bool(SYMBOL.search(text))

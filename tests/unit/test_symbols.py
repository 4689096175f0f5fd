"""Symbols as answers (crag.symbols): found standing alone or quoted, never inside a word."""

from __future__ import annotations

import pytest

from crag.symbols import symbolic, symbols


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("~", ["~"]),
        ("with a ~ added to the end", ["~"]),
        ('the "%" command', ["%"]),
        ('The "." command', ["."]),
        ("`*`", ["*"]),
        ("echo $? now", ["$?"]),
        ("x | y (&)", ["|", "&"]),
        ("the end ~.", ["~"]),  # before a sentence's stop
        # glued to a word: part of its spelling
        ("data.txt~", []),
        ("20%", []),
        ("$5", []),
        ("C++", []),
        ("2>&1", []),
        # prose punctuation standing alone counts only quoted
        ("a - b — c", []),
        ("* a bullet", []),
        ("Paris , France .", []),
        ("the ? operator", []),
    ],
)
def test_symbols_stand_alone_or_between_quotes(text: str, found: list[str]) -> None:
    assert symbols(text) == found


def test_an_answer_is_symbolic_only_without_a_word() -> None:
    assert symbolic("~") and symbolic('"."') and symbolic("$?") and symbolic("(%)")
    assert not symbolic('The "." command')  # a word: matched by its words
    assert not symbolic("20%") and not symbolic(".") and not symbolic("")
    assert symbols('The "." command, and `%`') == [".", "%"]
    assert symbols("'Paris'") == []

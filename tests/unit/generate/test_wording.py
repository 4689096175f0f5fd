"""The source's own wording of a short answer the model wrote another way: a number spelled
the other way, a type between other brackets, a misspelled word."""

from __future__ import annotations

import pytest

from crag.generate.wording import (
    bracket_spelling,
    dotted_name,
    number_wording,
    source_spelling,
    source_wording,
)

LIGHTHOUSE = "Its architect is usually named as Sostratus of Cnidus."


def test_a_number_answer_takes_the_sources_spelling_only_where_it_differs() -> None:
    text = "The university has four academic divisions; 1997 saw two more."
    assert number_wording("4", text) == "four"
    assert number_wording("4 academic divisions", text) == "four academic divisions"
    assert number_wording("2", text) == "two"
    assert number_wording("Four", text) is None  # as written, case aside
    assert number_wording("1997", text) is None
    assert number_wording("5", text) is None  # not in the source at all
    # "4" inside "1940" is no occurrence of the word; a literal "4" anywhere is
    assert number_wording("4", "In 1940 it had four divisions.") == "four"
    assert number_wording("2", "Kuvvet iki kuvvete bölünebilir.") == "iki"
    assert number_wording("4", "Dört kişi geldi.") == "Dört"
    assert number_wording("4", "It had four divisions, 4 of them new.") is None
    assert number_wording("3", "Boğaz üzerinde üç asma köprü bulunur.") == "üç"


def test_an_answer_between_other_brackets_takes_its_sources_spelling() -> None:
    source = "The simplest smart pointer is a box, whose type is written `Box<T>`. Boxes"
    assert bracket_spelling("Box[T]", source) == "Box<T>"
    assert bracket_spelling("HashMap[K, V]", "The type `HashMap<K, V>` maps") == "HashMap<K, V>"
    assert bracket_spelling("Box<T>", source) is None  # spelled the same
    assert bracket_spelling("Box[U]", source) is None  # another word
    assert bracket_spelling("box[T]", source) is None  # another case: not only the brackets
    assert bracket_spelling("Box", source) is None  # no bracket to respell


def test_an_answer_keeps_the_symbols_around_its_words_where_its_source_has_them() -> None:
    """ninja's manual: the model answered "`[%f/%t] `", and the words alone ("f/%t") were
    shown and verified (P(yes) 0.65, under the cut)."""
    source = 'The default progress status is `"[%f/%t] "` (note the trailing space).'
    assert bracket_spelling("`[%f/%t] `", source) == "[%f/%t]"
    assert bracket_spelling('"[%f/%t] "', source) is None  # as the source writes it
    assert bracket_spelling("[%f/%t]", source) is None


def test_a_misspelled_answer_takes_its_sources_spelling() -> None:
    assert source_spelling("Sostatus of Cnidus", LIGHTHOUSE) == "Sostratus of Cnidus"
    assert source_wording("Sostatus of Cnidus", LIGHTHOUSE) == "Sostratus of Cnidus"
    # two letters wrong in a long word, one in each of two words
    text = "The play was written by William Shakespeare in 1599."
    assert source_spelling("Wiliam Shakespere", text) == "William Shakespeare"
    assert source_spelling("william shakespeare", text) is None  # as written, case aside
    assert source_spelling("Sostratus of Cnidus", LIGHTHOUSE) is None


@pytest.mark.parametrize(
    ("short", "text"),
    [
        ("Prussia", "Russia joined the alliance."),  # another first letter: another word
        ("Mary", "Mark wrote it."),  # four letters: too short to call a misspelling
        ("1985", "It was held in 1986."),  # numbers are never respelled
        ("Shakspr", "William Shakespeare"),  # too far
        ("Sostatus of Rhodes", LIGHTHOUSE),  # a word the source does not hold at all
        ("", LIGHTHOUSE),
    ],
)
def test_another_word_is_no_misspelling(short: str, text: str) -> None:
    assert source_spelling(short, text) is None


def test_a_name_the_source_writes_after_a_leading_dot_keeps_its_dot() -> None:
    source = (
        "Any function named .First() in either of the two profile files or in the .RData "
        "image has a special status."
    )
    assert dotted_name("First()", source) == ".First()"
    assert dotted_name("RData", source) == ".RData"
    assert source_wording("RData", source) == ".RData"
    assert dotted_name(".RData", source) is None  # written with its dot already
    assert dotted_name("image", source) is None  # the source writes it without one
    # a member of something, not a hidden name; a name the source also writes bare
    assert dotted_name("First()", "Call obj.First() once.") is None
    assert dotted_name("Rprofile", "Edit .Rprofile, or Rprofile.site.") is None
    assert dotted_name("First", "the .First function") == ".First"
    assert dotted_name("two words", "a .two words") is None

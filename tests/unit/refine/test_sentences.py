"""The sentence rule that strips, quotes and citations share (`crag.refine.sentences`)."""

from __future__ import annotations

from crag.refine.sentences import sentences


def test_sentences_keep_abbreviations_and_drop_headings() -> None:
    text = "# Title\n\nDr. Smith came at 5 p.m. He left. Then J. R. R. Tolkien wrote! Why? 3 men."
    assert sentences(text) == [
        "Dr. Smith came at 5 p.m.",
        "He left.",
        "Then J. R. R. Tolkien wrote!",
        "Why?",
        "3 men.",
    ]


def test_a_code_fence_line_ends_a_sentence_and_is_dropped() -> None:
    # a page's text often follows its code block on the next line; the quoted "sentence" was
    # "} ``` The type of `x` is `Option<i32>`."
    text = "Declare it:\n```rust\nlet x = Some(5);\n}\n```\nThe type of `x` is `Option<i32>`."
    assert sentences(text) == [
        "Declare it:",
        "let x = Some(5); }",
        "The type of `x` is `Option<i32>`.",
    ]
    # so does a rule of "=": Vim's manual quoted "===…=== *04.3* Repeating a change The ".""
    vim = "the end of it.\n\n" + "=" * 78 + "\n*04.3*\tRepeating a change\n\nThe . command."
    assert sentences(vim) == ["the end of it.", "*04.3* Repeating a change", "The . command."]
    assert sentences("Ferries\n=======\n\nFerries leave.") == ["Ferries", "Ferries leave."]


def test_a_list_item_after_a_sentence_end_opens_a_sentence() -> None:
    # a strip joins its sentences on one line, where the blank line before a list item is
    # gone: the AWS CLI's return codes were quoted "… cannot read from. * ``130`` -- The …"
    joined = "files the user cannot read from. * ``130`` -- The process received a SIGINT."
    assert sentences(joined) == [
        "files the user cannot read from.",
        "* ``130`` -- The process received a SIGINT.",
    ]
    assert sentences("It costs 5 - 6 dollars. It is *cheap*.") == [
        "It costs 5 - 6 dollars.",
        "It is *cheap*.",
    ]


def test_sentences_keep_closing_quotes_and_brackets() -> None:
    # The closing quote used to be eaten by the split: 'He said "stop.' reached the generator.
    text = 'He said "stop." Then he left (at noon.) “Why?” she asked. Done!\n\nNext line'
    assert sentences(text) == [
        'He said "stop."',
        "Then he left (at noon.)",
        "“Why?” she asked.",
        "Done!",
        "Next line",
    ]
    assert "".join(sentences(text)).replace(" ", "") == text.replace(" ", "").replace("\n", "")

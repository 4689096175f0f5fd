"""The draft filter (crag.generate.marker): the NOT_FOUND marker never reaches a live view of
a draft, whatever the tokenisation; `clean_drafts` applies it to a pipeline's events."""

from __future__ import annotations

import pytest

from crag.generate.marker import MarkerFilter, clean_drafts


def stream(tokens: list[str]) -> tuple[list[str], bool]:
    f = MarkerFilter()
    out = [f.feed(t) for t in tokens] + [f.flush()]
    return [t for t in out if t], f.saw_marker


@pytest.mark.parametrize(
    "tokens",
    [
        ["NOT", "_FO", "UND"],
        ["N", "OT", "_", "FOUND"],
        ["[", "NOT_FOUND", "]"],
        ["not_found"],
        ["NOT", " FOUND", "."],
        [" NOT_", "FOUND", " The", " sources", " say", " nothing"],  # nothing after it
    ],
)
def test_the_marker_is_never_sent_in_any_tokenisation(tokens: list[str]) -> None:
    sent, saw = stream(tokens)
    assert saw and "".join(sent).strip() == ""


def test_text_before_the_marker_is_sent_and_the_marker_is_not() -> None:
    sent, saw = stream(["Paris", " is", " ", "NOT", "_FOUND"])
    assert saw and "".join(sent) == "Paris is "


@pytest.mark.parametrize(
    "tokens",
    [
        ["Paris", " [", "1", "]."],
        ["No", ",", " it", " was", " not", " found", " there", "."],  # English, lower case
        ["Nobody", " knows", " the", " NOTE"],
        ["AND", " NOTHING"],
        ["Vitamin", " N"],  # a lone N ending a draft is text
    ],
)
def test_ordinary_text_comes_through_whole(tokens: list[str]) -> None:
    sent, saw = stream(tokens)
    assert not saw and "".join(sent) == "".join(tokens)


def test_a_possible_marker_start_is_held_only_until_it_cannot_be_one() -> None:
    f = MarkerFilter()
    assert f.feed("Answer: ") == "Answer: "
    assert f.feed("NO") == ""  # could become NOT_FOUND
    assert f.feed("T") == ""
    assert f.feed(" TRUE") == "NOT TRUE"  # no longer can
    assert f.feed("NOT_FO") == ""
    assert f.flush() == ""  # a marker cut off at max_tokens is dropped too


def test_clean_drafts_removes_the_marker_and_keeps_every_other_event() -> None:
    events = [
        ("node", "retrieve", {}),
        ("token", "NOT"),
        ("token", "_FO"),
        ("token", "UND"),
        ("node", "generate", {}),
        ("token", "Paris [1]"),  # a Self-RAG retry: a new draft, a fresh filter
        ("token", ". N"),
        ("node", "generate", {}),
        ("answer", "the answer"),
    ]
    assert list(clean_drafts(events)) == [
        ("node", "retrieve", {}),
        ("node", "generate", {}),
        ("token", "Paris [1]"),
        ("token", "."),
        ("token", " N"),  # held back as a possible marker start, sent when the draft ended
        ("node", "generate", {}),
        ("answer", "the answer"),
    ]


def test_clean_drafts_sends_a_held_end_before_the_answer() -> None:
    events = [("token", "Vitamin"), ("token", " N"), ("answer", None)]
    assert list(clean_drafts(events)) == [("token", "Vitamin"), ("token", " N"), ("answer", None)]

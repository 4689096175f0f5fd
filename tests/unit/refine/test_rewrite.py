"""A rewrite that only rewrites (crag.refine.rewrite_check, QueryRewriter): the model's web
query may reuse the question's words in normalised forms, never add a word or drop the subject;
a rejected rewrite is replaced whole by the deterministic extraction, and the Rewrite says why.
The first two cases are web queries seen in real runs (issue 19)."""

from __future__ import annotations

import pytest
from tests.support.web_helpers import ReplyLLM

from crag.refine.rewrite import QueryRewriter, keyword_query
from crag.refine.rewrite_check import check_rewrite, key_terms

MACYS = "when was the first macy's thanksgiving day parade held"
MOON = "who was the second person to walk on the moon"


def rewrite(reply: str, question: str):
    return QueryRewriter(ReplyLLM(reply)).rewrite(question)


def test_an_added_entity_rejects_the_whole_rewrite() -> None:
    r = rewrite("Macy's Thanksgiving Day Parade created by John Adams", MACYS)
    assert r.method == "rejected"
    assert "'John'" in r.reason and "'Adams'" in r.reason and "not in the question" in r.reason
    assert r.keywords == keyword_query(MACYS)
    assert "adams" not in r.query.lower() and r.raw.startswith("Macy's")


def test_a_dropped_subject_rejects_the_rewrite() -> None:
    r = rewrite("second person", MOON)
    assert r.method == "rejected" and "'moon'" in r.reason and "key term" in r.reason
    assert r.keywords == keyword_query(MOON) and "moon" in r.query


@pytest.mark.parametrize(
    ("reply", "question"),
    [
        # case, plural / suffix (Snowball), punctuation: still the question's words
        ("Macy's Thanksgiving Day Parade, first held", MACYS),
        ("second person, walked, Moon", MOON),
        (
            "Golden Gate Bridge, opened to traffic",
            "when did the golden gate bridge open to traffic",
        ),
        ("Billy Carlson, painter, city born", "In what city was the painter Billy Carlson born?"),
        ("Worf, Star Trek, Next Generation", "who played worf on star trek the next generation?"),
        ("Kırkgöz, founded", "When was Kirkgoz founded?"),  # diacritics folded
        ("Kuzey Kore lideri", "Kuzey Kore'nin lideri kim?"),  # Turkish suffix after '
        # irregular verbs: a change of tense is not a new word
        ("Winner Takes It All lyrics, written", "who wrote the winner takes it all lyrics?"),
        ("Once I Was Seven Years Old, sang", "who sings once i was seven years old?"),
    ],
)
def test_faithful_rewrites_are_kept(reply: str, question: str) -> None:
    r = rewrite(reply, question)
    assert (r.method, r.reason) == ("llm", ""), r.reason


@pytest.mark.parametrize(
    ("reply", "question", "why"),
    [
        ("Michael Dorn", "who played worf on star trek the next generation?", "adds"),  # answer
        ("Worf, Star Trek, actor", "who played worf on star trek the next generation?", "adds"),
        ("Super Bowl, winner", "Who won Super Bowl 50?", "adds"),
        ("La La Land soundtrack, written by Michael Jackson",
         "who wrote the soundtrack for la la land?", "'Michael'"),  # seen with the 0.5B grader
        ("Rebecca in the Bible married to Mary", "who was rebecca in the bible married to?",
         "'Mary'"),
        ("Super Bowl, won", "Who won Super Bowl 50?", "'50'"),  # a number is a key term
        ("painter, city born", "In what city was the painter Billy Carlson born?", "'Billy'"),
        ("episodes, season, walking", "how many episodes are in season 5 of the walking dead",
         "'5'"),
    ],
)  # fmt: skip
def test_unfaithful_rewrites_are_rejected(reply: str, question: str, why: str) -> None:
    r = rewrite(reply, question)
    assert r.method == "rejected" and why in r.reason
    assert r.keywords == keyword_query(question)


def test_key_terms_are_proper_nouns_and_numbers_or_the_last_content_word() -> None:
    assert key_terms("In what city was the painter Billy Carlson born?") == ["Billy", "Carlson"]
    assert key_terms("Who won Super Bowl 50?") == ["Super", "Bowl", "50"]
    assert key_terms(MOON) == ["moon"]  # typed in lower case: no capitals to go by
    assert check_rewrite(("moon",), MOON).startswith("keeps 1 of the question's 4")
    assert check_rewrite(("second person", "moon"), MOON) == ""


def test_unusable_replies_still_fall_back_without_a_reason() -> None:
    r = rewrite("", MOON)
    assert (r.method, r.reason) == ("fallback", "")
    assert QueryRewriter(None).rewrite(MOON).method == "keywords"

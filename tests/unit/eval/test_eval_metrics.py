"""Answer scoring against hand-worked examples (crag.eval.metrics)."""

from __future__ import annotations

import math

import pytest

from crag.eval.metrics import (
    contains_answer,
    normalize,
    percentile,
    recall_at_k,
    token_f1,
    tokens,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # SQuAD rules: lowercase, drop a/an/the, punctuation, squeeze whitespace
        ("The  Denver Broncos!", "denver broncos"),
        ("an apple, a pear", "apple pear"),
        # citation markers go first, single and grouped
        ("It opened in 1937 [1]. It is red [2, 3].", "it opened in 1937 it is red"),
        # punctuation becomes a space: the Turkish suffix after an apostrophe splits off
        ("Fransa'da", "fransa da"),
        ("10,000", "10 000"),
        # Turkish i's: İ, I, ı and i all fold to i (Python's lower() would give "i̇" for İ)
        ("İSTANBUL", "istanbul"),
        ("ISTANBUL", "istanbul"),
        ("ıstanbul", "istanbul"),
        ("i\u0307stanbul", "istanbul"),  # an İ lowercased elsewhere: i + combining dot
        # other letters keep their marks (only the i's are folded)
        ("Şişli Üsküdar", "şişli üsküdar"),
        ("“Quoted” — dash", "quoted dash"),
    ],
)
def test_normalize(text: str, expected: str) -> None:
    assert normalize(text) == expected


def test_contains_answer_whole_tokens_in_order() -> None:
    answer = "Super Bowl 50 was won by the Denver Broncos [1]."
    assert contains_answer(answer, ["Denver Broncos"])
    assert contains_answer(answer, ["Carolina Panthers", "denver broncos"])  # any gold
    assert not contains_answer(answer, ["Broncos Denver"])  # order matters
    assert not contains_answer("It opened in 1937.", ["1"])  # not inside a token
    assert not contains_answer("It opened in 1937.", ["193"])
    assert not contains_answer("anything", [""])  # an empty gold never matches
    assert not contains_answer("", ["Denver"])


def test_contains_answer_turkish_suffixes_only_in_turkish() -> None:
    answer = "Normanlar 10. ve 11. yüzyıllarda Normandiya'ya adını verdi [1]."
    assert contains_answer(answer, ["10. ve 11. yüzyıllar"], "tr")  # "yüzyıllar" + "da"
    assert contains_answer(answer, ["Normandiya"], "tr")  # apostrophe splits "ya" off
    assert not contains_answer(answer, ["10. ve 11. yüzyıllar"], "en")  # no suffixing
    # a suffix is no more digits: "31" is another number than "3"
    assert not contains_answer("yaklaşık 31 kilometre", ["3"], "tr")
    assert contains_answer("1890'larda göç etti", ["1890"], "tr")
    # only the last token may be extended: "ve" must be a whole token
    assert not contains_answer("10. vea 11. yüzyıl", ["10. ve 11. yüzyıl"], "tr")
    assert contains_answer("İSTANBUL'DA yaşar", ["istanbul"], "tr")


def test_token_f1_hand_worked() -> None:
    # pred tokens: [denver, broncos, won] ; gold: [denver, broncos] -> P=2/3, R=1, F1=0.8
    assert token_f1("The Denver Broncos won [1].", ["Denver Broncos"]) == pytest.approx(0.8)
    # best gold counts: second gold matches exactly
    assert token_f1("Denver Broncos", ["Panthers", "the Denver Broncos"]) == 1.0
    # pred [a, b, b, c] vs gold [b, b, d]: common 2 -> P=2/4, R=2/3, F1=4/7
    assert token_f1("x y y z", ["y y w"]) == pytest.approx(4 / 7)
    assert token_f1("nothing shared", ["Denver"]) == 0.0
    assert token_f1("", ["Denver"]) == 0.0
    assert token_f1("the", ["a"]) == 1.0  # both normalise to nothing (SQuAD's rule)


def test_tokens_drop_citations_and_articles() -> None:
    assert tokens("The answer is 42 [3].") == ["answer", "is", "42"]


def test_recall_at_k() -> None:
    ranked = ["p3", None, "p1", "p3", "p9"]
    assert not recall_at_k(ranked, "p1", 1)
    assert not recall_at_k(ranked, "p1", 2)
    assert recall_at_k(ranked, "p1", 3)
    assert recall_at_k(ranked, "p3", 1)
    assert not recall_at_k(ranked, "p7", 5)


def test_percentile_interpolates_like_numpy() -> None:
    values = [10.0, 20.0, 30.0, 40.0]
    assert percentile(values, 50) == 25.0  # between 20 and 30
    assert percentile(values, 95) == pytest.approx(38.5)  # 30 + 0.85 * 10 at pos 2.85
    assert percentile([7.0], 95) == 7.0
    assert math.isnan(percentile([], 50))

"""The short answer's token probabilities, found in the generated tokens."""

from __future__ import annotations

import math

from tests.support.strips import strips

from crag.generate.citations import number_sources
from crag.generate.confidence import answer_probs
from crag.generate.reader import Reading, candidates


def _tokens(*pairs: tuple[str, float]) -> tuple[tuple[str, float], ...]:
    return tuple((t, math.log(p)) for t, p in pairs)


def test_only_the_tokens_that_spell_the_short_answer_count() -> None:
    tokens = _tokens(("The", 0.5), (" E", 0.9), ("iff", 1.0), ("el", 1.0), (" Tower", 1.0),
                     (" [", 0.99), ("1", 0.8), ("].", 1.0))  # fmt: skip
    assert answer_probs(tokens, "Eiffel Tower") == (0.9, 1.0, 1.0, 1.0)
    assert answer_probs(tokens, "The Eiffel") == (0.5, 0.9, 1.0, 1.0)
    assert answer_probs(tokens, "Louvre") == ()  # not what was generated
    assert answer_probs((), "Eiffel") == ()  # the provider returned no log-probabilities


def test_a_reading_carries_its_probabilities_into_its_candidate() -> None:
    sources = number_sources(strips("The tower was completed in 1889."))
    reading = Reading("1889 [1].", "all", 0, _tokens(("18", 0.6), ("89", 0.9), (" [", 1.0)))
    (found,) = candidates([reading], "When was the tower completed?", sources, [])
    assert found.probs == (0.6, 0.9)
    assert found.short == "1889"

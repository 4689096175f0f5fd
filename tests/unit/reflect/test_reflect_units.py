"""Self-RAG's reflection logic without a model: routing, the auto rule, what the user gets.

The judges are scripted scorers here (the live test runs them on the packaged model): a
scorer is anything with `score(question, passages) -> list[float]`, like the evaluator.
"""

from __future__ import annotations

import math

from crag.generate.citations import number_sources
from crag.generate.generator import Generated
from crag.reflect import Reflection, Reflector, ReflectPolicy, best_attempt, finalize, is_refusal
from crag.reflect.reflector import ClaimCheck
from crag.types import Chunk, Citation, Strip, Verdict


class Scripted:
    """Scores by substring: the first key found in the scored text decides; else `default`."""

    name = "scripted"

    def __init__(self, rules: dict[str, float], default: float = 0.9) -> None:
        self.rules, self.default, self.asked = rules, default, []

    def score(self, question: str, passages: list[str]) -> list[float]:
        self.asked.append((question, passages))
        text = question + " " + " ".join(passages)
        return [next((v for k, v in self.rules.items() if k in text), self.default)]


def _generated(text: str, refused: bool = False, language: str = "en") -> Generated:
    chunks = [
        Chunk("a", "The Broncos beat the Panthers 24-10 in Super Bowl 50.", "sb.md", "sb", 0, 0, 9),
        Chunk("b", "The game was played at Levi's Stadium.", "sb.md", "sb", 1, 10, 20),
    ]
    sources = number_sources([Strip(c.text, c, i) for i, c in enumerate(chunks)])
    cites = [Citation(n, f"id{n}", "x", "sb.md") for n in (1, 2) if f"[{n}]" in text]
    return Generated(text, cites, refused, language, sources)


def test_each_claim_is_judged_against_the_sources_it_cites() -> None:
    claims = Scripted({"Panthers won": 0.1})
    r = Reflector(claims, Scripted({}))
    g = _generated("The Panthers won the game [1]. It was played at Levi's Stadium [2].")
    out = r.reflect("Who won Super Bowl 50?", g)
    assert [c.supported for c in out.claims] == [False, True]
    source_1 = "The Broncos beat the Panthers 24-10 in Super Bowl 50."
    assert claims.asked[0] == ("The Panthers won the game.", [source_1])
    assert claims.asked[1][1] == ["The game was played at Levi's Stadium."]
    assert not out.grounded and out.unsupported == [g.text.split(" It")[0]]
    assert not out.refusal and out.useful


def test_refusals_are_grounded_but_not_useful_and_cost_no_call() -> None:
    claims, useful = Scripted({}), Scripted({})
    r = Reflector(claims, useful)
    out = r.reflect("Q?", _generated("I don't know: no passage", refused=True))
    assert out.refusal and out.grounded and not out.useful
    said = r.reflect("Q?", _generated("The sources do not say who sang the anthem."))
    assert said.refusal and said.grounded
    assert claims.asked == [] and useful.asked == []
    assert is_refusal("Kaynaklarda bu konuda bilgi yok.") and not is_refusal("Denver won [1].")


def test_unknown_scores_are_unverified_not_unsupported() -> None:
    r = Reflector(Scripted({}, default=math.nan), Scripted({}, default=math.nan))
    out = r.reflect("Who won?", _generated("The Broncos won [1]."))
    assert out.claims[0].supported is None and out.grounded and out.useful


def test_routes() -> None:
    p = ReflectPolicy(max_regenerations=2)
    bad = Reflection(False, False, True, 0.9, (ClaimCheck("x [1]", (1,), 0.1, False),))
    assert p.route(bad, regenerations=0, web_done=False, web_available=True)[0] == "regenerate"
    assert p.route(bad, regenerations=2, web_done=False, web_available=True)[0] == "finish"
    off_topic = Reflection(False, True, False, 0.2)
    assert p.route(off_topic, regenerations=0, web_done=False, web_available=True)[0] == (
        "web_search"
    )
    assert p.route(off_topic, regenerations=0, web_done=True, web_available=True)[0] == "finish"
    assert p.route(off_topic, regenerations=0, web_done=False, web_available=False)[0] == ("finish")
    refusal = Reflection(True, True, False)
    assert p.route(refusal, regenerations=0, web_done=False, web_available=True)[0] == "web_search"
    assert p.route(refusal, regenerations=0, web_done=True, web_available=True) == (
        "finish",
        "honest refusal",
    )
    good = Reflection(False, True, True, 0.9)
    assert p.route(good, regenerations=0, web_done=False, web_available=True)[0] == "finish"


def test_auto_reflects_only_when_in_doubt() -> None:
    p = ReflectPolicy(when="auto", min_confidence=0.8)
    sure = _generated("The Broncos won [1].")
    assert p.should_reflect(Verdict.CORRECT, sure)[0] is False
    assert p.should_reflect(Verdict.AMBIGUOUS, sure) == (True, "the verdict was AMBIGUOUS")
    sure.support = 0.5
    run, why = p.should_reflect(Verdict.CORRECT, sure)
    assert run and "low generator confidence: support 0.50 < 0.80" in why
    uncited = _generated("The Broncos won.")
    assert p.should_reflect(Verdict.CORRECT, uncited) == (True, "the answer cites no source")
    refused = _generated("I don't know", refused=True)
    assert p.should_reflect(Verdict.CORRECT, refused)[0] is True
    nothing = Generated("I don't know", [], True, "en", [])
    assert p.should_reflect(Verdict.INCORRECT, nothing)[0] is False
    assert ReflectPolicy(when="always").should_reflect(Verdict.CORRECT, sure)[0] is True


def test_finish_drops_unsupported_claims_or_refuses_and_names_a_missed_question() -> None:
    g = _generated("The Panthers won [1]. It was played at Levi's Stadium [2].")
    mixed = Reflection(False, False, True, 0.9, (
        ClaimCheck("The Panthers won [1].", (1,), 0.1, False),
        ClaimCheck("It was played at Levi's Stadium [2].", (2,), 0.9, True),
    ))  # fmt: skip
    final, how = finalize(g, mixed)
    assert final.text == "It was played at Levi's Stadium [2]." and [
        c.n for c in final.citations
    ] == [2]
    assert how == "dropped 1 unsupported claim(s)" and not final.refused
    none = Reflection(
        False, False, True, 0.9, (ClaimCheck("The Panthers won [1].", (1,), 0.1, False),)
    )
    final, how = finalize(_generated("The Panthers won [1]."), none)
    assert final.refused and final.citations == [] and "not supported" in final.text
    tr, _ = finalize(_generated("Panthers kazandı [1].", language="tr"), none)
    assert tr.text.startswith("Bilmiyorum:")
    missed, how = finalize(_generated("The Broncos won [1]."), Reflection(False, True, False, 0.1))
    assert missed.text.startswith("The sources do not answer this question as asked")
    assert missed.citations and how.startswith("caveat")


def test_best_attempt_prefers_grounded_and_useful_then_the_latest() -> None:
    a = (_generated("a [1]."), Reflection(False, False, True, 0.9))
    b = (_generated("b [1]."), Reflection(False, True, True, 0.9))
    c = (_generated("c [1]."), Reflection(True, True, False))
    assert best_attempt([a, b, c]) is b
    assert best_attempt([a, c]) is c


def test_a_non_answer_is_never_rated_useful_and_costs_no_usefulness_call() -> None:
    useful = Scripted({}, default=0.82)  # what the 0.5B judge gave a non-answer (issue 19)
    r = Reflector(Scripted({}), useful)
    q = "Who won Super Bowl 50?"
    for text in (
        "The sources do not say who won. The game was played at Levi's Stadium [2].",
        "The game was played at Levi's Stadium [2]. None of the sources says who won it.",
        "I could not find the winner in the sources.",
    ):
        out = r.reflect(q, _generated(text))
        assert not out.useful and out.usefulness is None, text
    assert useful.asked == []
    # an answer first, then a caveat, is still an answer: the judge is asked
    answer = "The Broncos won [1]. The passages do not say who sang the anthem."
    out = r.reflect(q, _generated(answer))
    assert out.useful and out.usefulness == 0.82 and len(useful.asked) == 1
    assert not is_refusal("Nixon did not resign until August.")  # a claim, not a refusal

"""Escalation's rule: the best-scored passage is judged once, and the judge's cuts decide.

The judge here is scripted (it returns the P(yes) it is given and records what it read): these
tests pin the rule, the cuts' lookup and when escalation is off. The packaged model's own
judgement is tested in tests/integration/test_pipeline_live.py.
"""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from crag.config import EvaluateSettings
from crag.grading.escalation import (
    ESCALATION_CUTS,
    Escalation,
    escalation_cuts,
    make_escalation,
)
from crag.types import Verdict


class Scripted:
    name = "scripted"

    def __init__(self, p_yes: float) -> None:
        self.p_yes = p_yes
        self.read: list[tuple[str, list[str]]] = []

    def score(self, question: str, passages: list[str]) -> list[float]:
        self.read.append((question, passages))
        return [self.p_yes] * len(passages)


@pytest.mark.parametrize(
    ("p", "verdict"),
    [(0.9, Verdict.CORRECT), (0.95, Verdict.CORRECT), (0.89, Verdict.AMBIGUOUS),
     (0.7, Verdict.AMBIGUOUS), (0.69, Verdict.INCORRECT), (0.0, Verdict.INCORRECT),
     (math.nan, Verdict.AMBIGUOUS)],
)  # fmt: skip
def test_the_cuts_decide_and_an_unknown_judgement_stays_ambiguous(p, verdict) -> None:
    assert Escalation(Scripted(p), upper=0.9, lower=0.7).verdict(p) is verdict


def test_only_the_best_scored_passage_is_judged() -> None:
    judge = Scripted(0.95)
    out = Escalation(judge, 0.9, 0.7).escalate("q?", ["a", "b", "c"], [0.2, math.nan, 0.4])
    assert out is not None
    assert judge.read == [("q?", ["c"])]  # one call, the best known score; NaN never wins
    assert (out.index, out.score, out.p_yes, out.verdict) == (2, 0.4, 0.95, Verdict.CORRECT)


def test_a_tie_goes_to_the_higher_ranked_passage() -> None:
    judge = Scripted(0.1)
    out = Escalation(judge, 0.9, 0.7).escalate("q?", ["a", "b"], [0.3, 0.3])
    assert out is not None and out.index == 0 and out.verdict is Verdict.INCORRECT


def test_nothing_is_judged_without_a_known_score() -> None:
    judge = Scripted(0.95)
    assert Escalation(judge, 0.9, 0.7).escalate("q?", ["a"], [math.nan]) is None
    assert Escalation(judge, 0.9, 0.7).escalate("q?", [], []) is None
    assert judge.read == []


def test_cuts_out_of_order_are_refused() -> None:
    with pytest.raises(ValueError, match="lower"):
        Escalation(Scripted(0.5), upper=0.6, lower=0.7)
    with pytest.raises(ValidationError, match="escalate_lower"):
        EvaluateSettings(escalate_upper=0.6, escalate_lower=0.7)


def test_cuts_are_found_for_the_packaged_model_by_name_or_file() -> None:
    assert escalation_cuts("qwen2.5-coder-1.5b") == ESCALATION_CUTS["qwen2.5-coder-1.5b"]
    assert escalation_cuts("/m/Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf") is not None
    assert escalation_cuts("qwen2.5-coder-0.5b") is None
    assert escalation_cuts("gemma3:27b") is None


def test_by_default_escalation_needs_web_search_and_applies_to_an_english_collection_only() -> None:
    judge = Scripted(0.5)
    default = EvaluateSettings()
    assert default.escalate == "web"
    assert make_escalation(default, judge, "qwen2.5-coder-1.5b", "english", web=False) is None
    assert make_escalation(default, judge, "qwen2.5-coder-1.5b", "english", web=True) is not None
    asked = EvaluateSettings(escalate=True)
    on = make_escalation(asked, judge, "qwen2.5-coder-1.5b", "english", web=False)
    assert on is not None and (on.upper, on.lower) == ESCALATION_CUTS["qwen2.5-coder-1.5b"]
    # not measured: another language, another model, or another evaluator
    assert make_escalation(asked, judge, "qwen2.5-coder-1.5b", "turkish", web=False) is None
    assert make_escalation(asked, judge, "gemma3:27b", "english", web=False) is None
    for method in ("cross-encoder", "llm"):
        settings = EvaluateSettings(method=method, escalate=True)
        assert make_escalation(settings, judge, "qwen2.5-coder-1.5b", "english", web=False) is None
    off = EvaluateSettings(escalate=False)
    assert make_escalation(off, judge, "qwen2.5-coder-1.5b", "english", web=False) is None
    assert make_escalation(off, judge, "qwen2.5-coder-1.5b", "english", web=True) is None


def test_web_mode_escalates_only_where_web_search_is_configured() -> None:
    judge = Scripted(0.5)
    web = EvaluateSettings(escalate="web")
    assert make_escalation(web, judge, "qwen2.5-coder-1.5b", "english", web=False) is None
    on = make_escalation(web, judge, "qwen2.5-coder-1.5b", "english", web=True)
    assert on is not None and (on.upper, on.lower) == ESCALATION_CUTS["qwen2.5-coder-1.5b"]
    # the cuts still belong to a measured model and language
    assert make_escalation(web, judge, "qwen2.5-coder-1.5b", "turkish", web=True) is None
    # always on, with or without web search
    always = EvaluateSettings(escalate=True)
    assert make_escalation(always, judge, "qwen2.5-coder-1.5b", "english", web=False) is not None


def test_the_escalate_setting_reads_true_false_and_web_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from crag.config import load_settings
    from crag.errors import ConfigError

    for raw, want in (("true", True), ("false", False), ("web", "web")):
        monkeypatch.setenv("CRAG_EVALUATE__ESCALATE", raw)
        assert load_settings().evaluate.escalate == want
    monkeypatch.setenv("CRAG_EVALUATE__ESCALATE", "sometimes")
    with pytest.raises(ConfigError, match=r"evaluate\.escalate"):
        load_settings()


def test_cuts_set_by_the_user_apply_to_any_model_and_language() -> None:
    both = EvaluateSettings(escalate=True, escalate_upper=0.8, escalate_lower=0.4)
    made = make_escalation(both, Scripted(0.5), "gemma3:27b", "turkish", web=False)
    assert made is not None and (made.upper, made.lower) == (0.8, 0.4)
    one = EvaluateSettings(escalate=True, escalate_upper=0.95)
    made = make_escalation(one, Scripted(0.5), "qwen2.5-coder-1.5b", "english", web=False)
    assert made is not None and (made.upper, made.lower) == (
        0.95,
        ESCALATION_CUTS["qwen2.5-coder-1.5b"][1],
    )
    assert make_escalation(one, Scripted(0.5), "gemma3:27b", "english", web=False) is None

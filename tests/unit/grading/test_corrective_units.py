"""Fast checks of the corrective pieces that need no model: the trigger rule, probability
reading, citation checking, language, packaged-model resolution (the strips:
tests/unit/refine/test_strips.py)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from tests.support.chunks import chunk

from crag.errors import ModelLoadError
from crag.generate import check_citations, detect_language, number_sources
from crag.generate.support import recite
from crag.grading import ActionTrigger, yes_probability
from crag.models.llm.packaged import resolve_gguf
from crag.types import Strip, Verdict


@pytest.mark.parametrize(
    ("scores", "verdict"),
    [
        ([0.9, 0.1], Verdict.CORRECT),  # any >= upper
        ([0.7], Verdict.CORRECT),  # boundary counts as CORRECT
        ([0.1, 0.29], Verdict.INCORRECT),  # all < lower
        ([], Verdict.INCORRECT),
        ([0.3, 0.1], Verdict.AMBIGUOUS),  # lower is inclusive for "not incorrect"
        ([0.5, 0.69], Verdict.AMBIGUOUS),
    ],
)
def test_trigger_is_the_paper_rule(scores: list[float], verdict: Verdict) -> None:
    assert ActionTrigger(upper=0.7, lower=0.3).decide(scores) is verdict


def test_trigger_rejects_crossed_thresholds() -> None:
    with pytest.raises(ValueError, match="lower <= upper"):
        ActionTrigger(upper=0.2, lower=0.5)


def test_yes_probability_sums_spellings_and_normalises() -> None:
    lp = {"Yes": math.log(0.3), " yes": math.log(0.1), "No": math.log(0.4), "The": -1.0}
    assert yes_probability(lp) == pytest.approx(0.5)
    assert yes_probability({"The": -0.1}) is None
    assert yes_probability({}) is None


def test_citations_point_at_real_sources_and_bad_markers_are_removed() -> None:
    c1, c2 = chunk("Alpha.", 1), chunk("Beta.", 2)
    strips = [Strip("Alpha.", c1, 0), Strip("Beta.", c2, 1), Strip("Alpha 2.", c1, 2)]
    sources = number_sources(strips)
    assert [(s.n, s.chunk.id) for s in sources] == [(1, "c1"), (2, "c2")]
    assert sources[0].text == "Alpha. … Alpha 2."
    text, cites, notes = check_citations("A is alpha [1]. B is beta [2, 7]. C [9].", sources)
    assert text == "A is alpha [1]. B is beta [2]. C."
    assert [c.n for c in cites] == [1, 2] and cites[0].chunk_id == "c1"
    assert cites[0].label.startswith("/docs/f1.txt")
    assert len(notes) == 2 and "[7]" in notes[0]


def test_a_removed_marker_leaves_no_gap_before_punctuation_but_line_breaks_stay() -> None:
    sources = number_sources([Strip("Alpha.", chunk("Alpha.", 1), 0)])
    text, _, _ = check_citations("Is it alpha [9]?\n\nYes [1] !\nC [4] …", sources)
    assert text == "Is it alpha?\n\nYes [1]!\nC…"
    assert recite("It is red [2] [3, 4] !", 1) == "It is red [1]!"


def test_language_detection() -> None:
    assert detect_language("Boğaziçi Köprüsü ne zaman açıldı?") == "tr"
    assert detect_language("When did the first bridge over the Bosphorus open?") == "en"
    assert detect_language("Wann wurde die erste Brücke über den Rhein gebaut?") == "de"


def test_resolve_gguf_errors_name_the_model(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="neither a packaged model"):
        resolve_gguf("no-such-model", tmp_path)
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"NOPE" + b"\0" * 10)
    with pytest.raises(ModelLoadError, match="not a GGUF file"):
        resolve_gguf(str(bad), tmp_path)


def test_support_check_catches_answers_from_memory() -> None:
    from crag.generate.support import supported_sentences

    sources = {
        1: "Foragers tell their nest mates where flowers are with the waggle dance.",
        3: "The Lighthouse of Alexandria was built by the Ptolemaic Kingdom.",
    }
    wrong = supported_sentences(
        "Tungsten boils at approximately 3400 °C [3].", "What is the boiling point of tungsten?",
        sources,
    )  # fmt: skip
    assert [c.support for c in wrong] == [0.0] and wrong[0].cited == (3,)
    right = supported_sentences(
        "They use the waggle dance [1]. Built by the Ptolemaic Kingdom [3].",
        "How do bees tell where flowers are?",
        sources,
    )
    assert all(c.support >= 0.5 for c in right)
    crossed = supported_sentences("They use the waggle dance [3].", "How do bees?", sources)
    assert crossed[0].support < 0.5  # right fact, wrong source
    turkish = supported_sentences(
        "Köprü 1973'te açıldı [1].", "Köprü ne zaman açıldı?",
        {1: "Boğaziçi Köprüsü 30 Ekim 1973'te açıldı."}, "tr",
    )  # fmt: skip
    assert turkish[0].support == 1.0


def test_thresholds_follow_the_scorer_unless_set() -> None:
    from crag.config import load_settings
    from crag.grading.evidence import evidence_thresholds
    from crag.grading.thresholds import JUDGE_THRESHOLDS, thresholds_for
    from crag.models.cross_encoder import calibrated_thresholds

    s = load_settings(evaluate={"method": "cross-encoder"})  # thresholds calibrated with it
    t = thresholds_for(s.evaluate, "default", "qwen2.5-coder-1.5b")
    assert (t.upper, t.lower) == calibrated_thresholds("crag-evaluator")
    s = load_settings(evaluate={"method": "llm"})  # the LLM judge: measured per grader
    t = thresholds_for(s.evaluate, "default", "qwen2.5-coder-1.5b")
    assert (t.upper, t.lower) == JUDGE_THRESHOLDS["qwen2.5-coder-1.5b"]
    s = load_settings()  # the default evidence evaluator: chosen with its weights, per embedder
    t = thresholds_for(s.evaluate, "default", "qwen2.5-coder-1.5b", embedding="minilm")
    assert (t.upper, t.lower) == evidence_thresholds("all-MiniLM-L6-v2")
    s = load_settings(
        evaluate={"lower": 0.1, "per_collection": {"tr": {"upper": 0.9, "lower": 0.4}}}
    )
    assert thresholds_for(s.evaluate, "default", "qwen2.5-coder-0.5b").lower == 0.1
    assert thresholds_for(s.evaluate, "tr", "qwen2.5-coder-0.5b").upper == 0.9
    from crag.errors import ConfigError

    with pytest.raises(ConfigError, match="evaluate"):
        load_settings(evaluate={"upper": 0.2, "lower": 0.6})

"""The verification cut replayed from a run's traces (`crag.eval.cuts`): each cut's answers
follow the order the candidates were checked, unverified outcomes stay, and the summary and
report carry the table."""

from __future__ import annotations

from typing import Any

from crag.eval.cuts import replay_cuts
from crag.eval.report import render_markdown
from crag.eval.summary import expects_answer, summarize


def record(
    answer: str,
    refused: bool,
    checks: list[tuple[str, float | None]],
    *,
    answerable: bool = True,
    cut: float = 0.75,
) -> dict[str, Any]:
    verifications = [
        {"short": s, "source": 1, "p_yes": p, "cut": cut, "passed": p is None or p >= cut}
        for s, p in checks
    ]
    return {
        "mode": "crag",
        "question": "Who was second on the moon?",
        "answer": answer,
        "refused": refused,
        "answers": ["Aldrin"] if answerable else [],
        "answerable": answerable,
        "language": "en",
        "trace": {"question": "q", "mode": "crag", "verifications": verifications},
    }


RECORDS = [
    # answered right at 0.8; a cut above refuses it
    record("Buzz Aldrin [1].", False, [("Buzz Aldrin", 0.8)]),
    # refused: "Collins" 0.7 then "Aldrin" 0.6 fell below 0.75; 0.65 answers Collins (wrong),
    # 0.55 too (the first candidate that passes wins)
    record("I don't know", True, [("Michael Collins", 0.7), ("Buzz Aldrin", 0.6)]),
    # answered after a candidate that failed: at 0.6 the first one (right) would win
    record("Armstrong [1].", False, [("Aldrin", 0.65), ("Armstrong", 0.9)]),
    # CORRECT verdict, not verified: right at every cut
    record("Aldrin [1].", False, []),
    # a should-refuse question answered at 0.77
    record("Collins [1].", False, [("Collins", 0.77)], answerable=False),
]


def expects(r: dict[str, Any]) -> bool:
    return expects_answer(r)


def at(cuts: dict[str, Any], cut: float) -> tuple[int, int, int, int]:
    p = next(p for p in cuts["points"] if p["cut"] == cut)
    return p["right"], p["wrong"], p["refused"], p["should_refuse_answered"]


def test_each_cut_answers_with_the_first_candidate_that_passes() -> None:
    cuts = replay_cuts(RECORDS, expects)
    assert cuts is not None and cuts["run_cut"] == [0.75] and cuts["verified"] == 4
    assert at(cuts, 0.75) == (2, 1, 1, 1)  # the run as it was: Aldrin, Armstrong ✗, -, Aldrin
    assert at(cuts, 0.6) == (3, 1, 0, 1)  # Collins ✗ answers; Aldrin (0.65) replaces Armstrong
    assert at(cuts, 0.7) == (2, 2, 0, 1)  # Collins at 0.7
    assert at(cuts, 0.8) == (2, 1, 1, 0)  # the should-refuse answer (0.77) goes
    assert at(cuts, 0.85) == (1, 1, 2, 0)  # Aldrin at 0.8 refused; Armstrong (0.9) stays
    assert at(cuts, 0.95) == (1, 0, 3, 0)  # only the unverified answer is left


def test_a_check_that_passed_but_was_refused_for_another_reason_stays_refused() -> None:
    # "Aldrin" passed its verification (0.9) and was still refused (e.g. its answer cited no
    # source); "Collins" failed at 0.7: only Collins can change, from 0.7 down
    other = [record("I don't know", True, [("Buzz Aldrin", 0.9), ("Collins", 0.7)])]
    cuts = replay_cuts(other, expects)
    assert cuts is not None
    assert at(cuts, 0.75) == (0, 0, 1, 0) and at(cuts, 0.95) == (0, 0, 1, 0)
    assert at(cuts, 0.7) == (0, 1, 0, 0)


def test_unknown_p_passes_every_cut_and_no_verification_means_no_table() -> None:
    unknown = [record("Aldrin [1].", False, [("Aldrin", None)])]
    cuts = replay_cuts(unknown, expects)
    assert cuts is not None and all(p["right"] == 1 for p in cuts["points"])
    assert replay_cuts([record("Aldrin [1].", False, [])], expects) is None


def test_summary_and_report_show_the_replay() -> None:
    modes = summarize(RECORDS, ["crag"])
    assert modes["crag"]["verify_cuts"]["points"]
    summary = {
        "run": {
            "dataset_name": "d", "questions": 5, "language": "en", "collection": "c",
            "embedding": "e", "keyword_language": "english", "evaluator": "x",
            "generator": "g", "thresholds": {"upper": 0.5, "lower": 0.1}, "web": "none",
            "machine": "m",
        },
        "modes": modes,
    }  # fmt: skip
    text = render_markdown(summary)
    assert "## The verification cut, replayed (crag)" in text and "| 0.75 ← |" in text

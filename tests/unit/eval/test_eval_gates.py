"""`--fail-under` / `--fail-over` (crag.eval.gates): parsing, and which figures miss."""

from __future__ import annotations

import pytest

from crag.errors import CragError
from crag.eval.gates import check_gates, parse_gate

MODES = ["rag", "crag"]
SUMMARY = {
    "modes": {
        "crag": {
            "answers": {"accuracy": 0.72, "hallucination_rate": 0.12},
            "evaluator": {"decisive": 0.4},
            "answer_kept": {"n": 0, "rate": None},
        },
        "rag": {"answers": {"accuracy": 0.5, "hallucination_rate": 0.3}, "evaluator": None},
    }
}


def test_parse_short_names_dotted_paths_and_percentages() -> None:
    g = parse_gate("crag.accuracy=0.7", "under", MODES)
    assert (g.mode, g.path, g.kind, g.value) == ("crag", "answers.accuracy", "under", 0.7)
    assert parse_gate("Crag.hallucination = 10%", "over", MODES).value == pytest.approx(0.1)
    assert parse_gate("crag.evaluator.decisive=0.6", "under", MODES).path == "evaluator.decisive"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("crag.accuracy", "MODE.METRIC=VALUE"),
        ("accuracy=0.7", "MODE.METRIC=VALUE"),
        ("self-crag.accuracy=0.7", "not evaluated"),
        ("crag.acuracy=0.7", "unknown metric"),
        ("crag.accuracy=high", "not a number"),
    ],
)
def test_parse_errors_name_the_option(text: str, message: str) -> None:
    with pytest.raises(CragError, match=message) as exc:
        parse_gate(text, "under", MODES)
    assert text.split("=")[0] in str(exc.value)


def test_check_names_each_missed_metric() -> None:
    gates = [
        parse_gate("crag.accuracy=0.7", "under", MODES),  # 0.72: passes
        parse_gate("crag.hallucination=0.1", "over", MODES),  # 0.12: misses
        parse_gate("rag.accuracy=0.6", "under", MODES),  # 0.5: misses
        parse_gate("crag.answer_kept=0.95", "under", MODES),  # not measured: misses
        parse_gate("rag.decisive=0.5", "under", MODES),  # rag has no evaluator: misses
    ]
    missed = check_gates(SUMMARY, gates)
    assert len(missed) == 4
    assert "crag.hallucination = 0.12, above 0.1" in missed[0]
    assert "rag.accuracy = 0.5, below 0.6" in missed[1]
    assert "not measured" in missed[2] and "not measured" in missed[3]
    assert check_gates(SUMMARY, gates[:1]) == []

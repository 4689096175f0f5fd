"""Per-mode figures from results records, hand-worked (crag.eval.summary), and the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crag.eval.plots import _count_label
from crag.eval.report import render_markdown, write_report
from crag.eval.summary import expects_answer, summarize
from crag.trace import RewriteRecord, Trace, WebRecord
from crag.types import ModelCall


def rec(
    qid: str,
    answer: str,
    *,
    mode: str = "crag",
    answers: tuple[str, ...] = ("Denver Broncos",),
    refused: bool = False,
    verdict: str | None = "correct",
    gold_rank: int | None = 1,
    gold_in_context: bool = True,
    total_ms: float = 1000.0,
    part: str | None = None,
    answerable: bool = True,
    error: str | None = None,
) -> dict[str, Any]:
    return {
        "id": qid,
        "mode": mode,
        "answers": list(answers) if answerable else [],
        "answerable": answerable,
        "gold_unit": "u-" + qid,
        "part": part,
        "language": "en",
        "answer": answer,
        "refused": refused,
        "verdict": verdict,
        "gold_rank": gold_rank,
        "gold_in_context": gold_in_context,
        "error": error,
        "trace": Trace(
            question=qid,
            mode=mode,
            stages_ms={"retrieve": 10.0, "generate": total_ms - 10.0},
            total_ms=total_ms,
            calls=[
                ModelCall("grader", "judge", "evaluate", 100, 1, 50.0),
                ModelCall("generator", "writer", "generate", 300, 20, 500.0),
            ],
        ).to_dict(),
    }


RECORDS = [
    # should answer
    rec("r1", "The Denver Broncos won [1].", gold_rank=1, total_ms=1000),  # right, F1 0.8
    rec("r2", "Carolina [1].", verdict="ambiguous", gold_rank=3, total_ms=2000),  # wrong
    rec(
        "r3",
        "I don't know",
        refused=True,
        verdict="incorrect",
        gold_rank=None,
        gold_in_context=False,
        total_ms=3000,
    ),  # refused
    rec("r4", "Broncos won", gold_rank=10, gold_in_context=False, total_ms=4000),  # F1 0.5
    # should refuse
    rec(
        "u1",
        "I don't know",
        refused=True,
        verdict="incorrect",
        answerable=False,
        gold_rank=None,
        gold_in_context=False,
        total_ms=5000,
    ),
    rec(
        "u2",
        "It was 1937 [1].",
        verdict="ambiguous",
        answerable=False,
        gold_rank=None,
        gold_in_context=False,
        total_ms=6000,
    ),
    # failed: counted as an error, in no figure
    rec("e1", "", error="LLMError: boom"),
]


def test_answer_figures_hand_worked() -> None:
    s = summarize(RECORDS, ["crag"])["crag"]
    assert s["n"] == 6 and s["errors"] == 1
    a = s["answers"]
    assert a["n_answerable"] == 4 and a["n_unanswerable"] == 2
    assert a["accuracy"] == pytest.approx(1 / 4)  # only r1 holds "Denver Broncos"
    assert a["f1"] == pytest.approx((0.8 + 0 + 0 + 0.5) / 4)
    assert a["over_refusal"] == pytest.approx(1 / 4)  # r3
    assert a["refusal_rate"] == pytest.approx(1 / 2)  # u1 refused, u2 answered
    assert a["hallucination_rate"] == pytest.approx(1 / 2)
    assert a["found_elsewhere"] == 0.0  # no gold answer: any answer is a hallucination


def test_retrieval_recall_hand_worked() -> None:
    r = summarize(RECORDS, ["crag"])["crag"]["retrieval"]
    assert r["n"] == 4  # unanswerable questions have no gold passage to find
    assert r["recall@1"] == pytest.approx(1 / 4)  # r1
    assert r["recall@5"] == pytest.approx(2 / 4)  # r1, r2 (rank 3)
    assert r["recall@20"] == pytest.approx(3 / 4)  # + r4 (rank 10)
    assert r["gold_in_context"] == pytest.approx(2 / 4)


def test_evaluator_verdicts_hand_worked() -> None:
    e = summarize(RECORDS, ["crag"])["crag"]["evaluator"]
    assert e["verdicts"] == {"correct": 2, "ambiguous": 2, "incorrect": 2}
    assert e["confusion"]["gold"] == {"correct": 1, "ambiguous": 1, "incorrect": 0}
    assert e["confusion"]["no_gold"] == {"correct": 1, "ambiguous": 1, "incorrect": 2}
    # right: r1 (C, gold), r2 (A, gold), r3 (I, none), u1 (I, none); wrong: r4 (C), u2 (A)
    assert e["accuracy"] == pytest.approx(4 / 6)
    assert e["correct_precision"] == pytest.approx(1 / 2)
    assert e["decisive"] == pytest.approx(4 / 6)
    # decisive: r1 (C, gold: right), r4 (C, none: wrong), r3 and u1 (I, none: right)
    assert e["decisive_right"] == pytest.approx(3 / 4)


def test_latency_and_calls_hand_worked() -> None:
    s = summarize(RECORDS, ["crag"])["crag"]
    total = s["latency"]["total"]
    assert total["p50_ms"] == pytest.approx(3500)  # 1..6 s
    assert total["p95_ms"] == pytest.approx(5750)  # pos 4.75 → 5000 + 0.75·1000
    assert total["mean_ms"] == pytest.approx(3500)
    assert list(s["latency"]) == ["retrieve", "generate", "total"]
    calls = s["calls"]
    assert calls["per_question"] == {"calls": 2, "prompt_tokens": 400, "completion_tokens": 21}
    assert calls["by_role"]["grader"]["calls"] == 1


def test_rag_has_no_evaluator_and_modes_stay_apart() -> None:
    rag = [rec("r1", "Denver Broncos [1]", mode="rag", verdict=None)]
    out = summarize(RECORDS + rag, ["rag", "crag"])
    assert out["rag"]["n"] == 1 and out["rag"]["evaluator"] is None
    assert out["rag"]["answers"]["accuracy"] == 1.0
    assert out["crag"]["n"] == 6


def test_split_parts_decide_what_should_be_answered() -> None:
    kb = rec("k", "Denver Broncos [1]", part="kb")
    web = rec("w", "Denver Broncos [1]", part="web", gold_rank=None)
    held = rec("h", "The Carolina Panthers [1]", part="held_out", gold_rank=None)
    assert expects_answer(kb) and not expects_answer(web) and not expects_answer(held)
    assert expects_answer(web, web=True) and not expects_answer(held, web=True)
    s = summarize([kb, web, held], ["crag"])["crag"]
    a = s["answers"]
    assert a["n_answerable"] == 1 and a["n_unanswerable"] == 2
    # the web question was answered right from another indexed passage: not a hallucination
    assert a["found_elsewhere"] == 0.5 and a["hallucination_rate"] == 0.5
    assert a["refusal_rate"] == 0.0
    assert s["retrieval"]["n"] == 1  # only the kb question's passage is in the index
    assert set(s["by_part"]) == {"held_out", "kb", "web"}
    assert s["by_part"]["web"]["n_unanswerable"] == 1


def toy_summary(modes: dict[str, Any], questions: int, web: str = "none") -> dict[str, Any]:
    """A summary as `crag eval` writes it: a toy run's header around `modes`."""
    return {
        "run": {
            "dataset_name": "toy", "questions": questions, "language": "en",
            "collection": "eval-toy", "embedding": "all-MiniLM-L6-v2",
            "keyword_language": "english", "grader": "g", "generator": "G",
            "thresholds": {"upper": 0.5, "lower": 0.2}, "web": web,
            "evaluator": "LLM judge", "machine": "test",
        },
        "modes": modes,
    }  # fmt: skip


def test_report_writes_summary_markdown_and_pngs(tmp_path: Path) -> None:
    rag = [rec(r["id"], r["answer"], mode="rag", verdict=None) for r in RECORDS[:4]]
    summary = toy_summary(summarize(rag + RECORDS, ["rag", "crag"]), questions=6)
    paths = write_report(summary, tmp_path)
    saved = json.loads(paths["summary"].read_text())
    assert saved["modes"]["crag"]["answers"]["accuracy"] == pytest.approx(0.25)
    assert saved["modes"]["rag"]["answers"]["refusal_rate"] is None  # no unanswerable: JSON null
    md = paths["report"].read_text()
    assert "| crag | 4 | 25.0% |" in md and "## Retrieval evaluator" in md
    assert "| rag | 4 |" in md
    assert "these latencies do not compare modes" in md  # two modes shared one process
    summary["run"]["process_per_mode"] = True  # crag eval's default: nothing shared
    assert "do not compare modes" not in render_markdown(summary)
    for kind in ("accuracy", "latency", "verdicts"):
        png = paths[kind].read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 5000
        assert f"]({paths[kind].name})" in md


def test_verdict_counts_too_thin_to_hold_text_are_written_beside_the_bar() -> None:
    """A 2-question sliver of a 120-question stack gets its count beside the bar, in dark
    text; a tall segment keeps it inside, in white; an empty one gets none."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    thin, tall, empty = ax.bar(["a", "b", "c"], [2, 118, 0], 0.55)
    for bar, count in ((thin, 2), (tall, 118), (empty, 0)):
        _count_label(ax, bar, count, tallest=120)
    texts = {t.get_text(): t for t in ax.texts}
    plt.close(fig)
    assert set(texts) == {"2", "118"}
    assert texts["2"].get_ha() == "left" and texts["2"].get_color() == "black"
    assert texts["2"].get_position()[0] > thin.get_x() + thin.get_width()
    assert texts["118"].get_ha() == "center" and texts["118"].get_color() == "white"


def test_answer_kept_counts_only_questions_with_the_answer_in_the_top_5() -> None:
    records = [
        {**rec("k1", "x"), "answer_in_top5": True, "answer_kept": True},
        {**rec("k2", "x"), "answer_in_top5": True, "answer_kept": False},
        {**rec("k3", "x"), "answer_in_top5": False, "answer_kept": None},
        rec("k4", "x"),  # written before the figure existed
    ]
    assert summarize(records, ["crag"])["crag"]["answer_kept"] == {"n": 2, "rate": 0.5}


def test_near_miss_questions_should_be_refused_and_are_reported_apart(tmp_path: Path) -> None:
    records = [
        rec("a1", "The Denver Broncos [1]."),  # answerable, right, CORRECT with gold
        rec("n1", "I don't know", part="near_miss", refused=True, verdict="incorrect",
            gold_in_context=False, gold_rank=None),  # refused: right
        rec("n2", "Denver Broncos [2].", part="near_miss", verdict="correct",
            gold_in_context=False, gold_rank=None),  # found in another unit
        rec("n3", "Carolina [1].", part="near_miss", verdict="ambiguous",
            gold_in_context=False, gold_rank=None),  # hallucinated
    ]  # fmt: skip
    s = summarize(records, ["crag"])["crag"]
    assert s["answers"]["n_answerable"] == 1 and s["answers"]["n_unanswerable"] == 3
    assert s["retrieval"]["n"] == 1  # a withheld gold passage cannot be retrieved
    nm = s["near_miss"]
    assert nm["n_unanswerable"] == 3 and nm["refusal_rate"] == pytest.approx(1 / 3)
    assert nm["found_elsewhere"] == pytest.approx(1 / 3)
    assert nm["hallucination_rate"] == pytest.approx(1 / 3)
    groups = s["evaluator"]["by_group"]
    assert groups["answerable"]["n"] == 1 and groups["answerable"]["accuracy"] == 1.0
    assert groups["near_miss"]["n"] == 3 and groups["near_miss"]["decisive"] == pytest.approx(2 / 3)
    assert groups["near_miss"]["accuracy"] == pytest.approx(1 / 3)  # only n1's INCORRECT
    assert groups["near_miss"]["decisive_right"] == pytest.approx(1 / 2)  # n1 right, n2 not
    assert groups["answerable"]["decisive_right"] == 1.0
    assert "by_part" not in s
    run = {"dataset_name": "d", "questions": 4, "language": "en", "collection": "c",
           "embedding": "e", "keyword_language": "english", "evaluator": "x", "generator": "g",
           "thresholds": {"upper": 0.5, "lower": 0.2}, "web": "none", "machine": "m"}  # fmt: skip
    write_report({"run": run, "modes": {"crag": s}}, tmp_path)
    report = (tmp_path / "report.md").read_text()
    assert "do not compare modes" not in report  # one mode: nothing to compare
    assert (
        "## Near-miss questions" in report
        and "| crag | near_miss | 3 | 33.3% | 66.7% | 50.0% |" in report
    )


def test_failed_web_searches_are_counted_and_warned_about(tmp_path: Path) -> None:
    """A run whose search backend was down measures crag without web correction: the
    summary counts those questions and the report says so at the top."""
    failed = rec("w1", "Broncos [1].", part="web")
    rewrite = RewriteRecord(method="keywords", keywords=["Broncos"])
    web = WebRecord(provider="searxng", query="Broncos", rewrite=rewrite, error="searxng: refused")
    failed["trace"]["web"] = web.model_dump(mode="json")  # as a stored eval record holds it
    records = [failed, rec("w2", "Broncos [1].", part="web")]
    modes = summarize(records, ["crag"], web=True)
    assert modes["crag"]["web_failed"] == {
        "n": 1,
        "first": "web search failed: searxng: refused",
    }
    summary = toy_summary(modes, questions=2, web="searxng")
    md = write_report(summary, tmp_path)["report"].read_text()
    assert "**Warning**: crag: web search failed on 1 of 2 questions" in md
    clean = summarize([rec("w2", "Broncos [1].", part="web")], ["crag"], web=True)
    assert clean["crag"]["web_failed"]["n"] == 0


def test_short_accuracy_counts_the_short_answer_alone() -> None:
    records = [
        rec("s1", "Denver Broncos [1]. They won [1]."),
        # the quoted sentence holds the gold answer, the short answer does not
        rec("s2", "Carolina Panthers [2]. The Denver Broncos beat the Carolina Panthers [2]."),
        rec("s3", "The Denver Broncos, a team [1]."),
        rec("s4", "I don't know.", refused=True),
    ]
    a = summarize(records, ["crag"])["crag"]["answers"]
    assert a["accuracy"] == pytest.approx(3 / 4)
    assert a["short_accuracy"] == pytest.approx(2 / 4)

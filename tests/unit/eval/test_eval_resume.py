"""The harness: resume after an interruption, errors, mode checks, the results file.

The pipeline here is a stand-in that records which questions it was asked: what is under test
is the bookkeeping around it. The same flow with the real models is in test_eval_live.py.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from crag.datasets import EvalItem
from crag.errors import CragError, LLMError
from crag.eval.harness import Harness, check_modes
from crag.eval.kb import detect_language
from crag.eval.results import ResultsFile, check_fingerprint, locked
from crag.eval.run import probe_graph as _probe_graph
from crag.trace import Hit, RewriteRecord, StripRecord, Trace, WebRecord, WebStripRecord
from crag.types import Answer, Chunk, Verdict


def chunk(cid: str, unit: str, text: str) -> Chunk:
    return Chunk(cid, text, "/kb.jsonl", unit, 0, 0, len(text))


CHUNKS = {
    "c1": chunk("c1", "p1", "Ada Lovelace wrote the first program in 1843."),
    "c2": chunk("c2", "p2", "Charles Babbage designed the engine."),
    "c3": chunk("c3", "p1", "She was a mathematician."),  # gold unit, no answer in it
}


class Lookup:
    def get_chunks(self, ids: list[str]) -> dict[str, Chunk]:
        return {i: CHUNKS[i] for i in ids if i in CHUNKS}


class Recorder:
    """Answers every question with a fixed text; `fail_at` raises on that call."""

    def __init__(self, fail_at: int | None = None, exc: BaseException | None = None) -> None:
        self.asked: list[tuple[str, str]] = []
        self.fail_at, self.exc = fail_at, exc

    def ask(self, question: str, mode: str = "crag") -> Answer:
        if self.fail_at is not None and len(self.asked) == self.fail_at:
            self.fail_at = None
            raise self.exc or KeyboardInterrupt()
        self.asked.append((question, mode))
        trace = Trace(
            question=question,
            mode=mode,
            retrieved=[Hit(id=i, score=1.0) for i in ("c2", "c3", "c1")],
            reranked=[Hit(id=i, score=1.0) for i in ("c3", "c1")],
            stages_ms={"retrieve": 5.0, "generate": 20.0},
            total_ms=25.0,
        )
        verdict = Verdict.AMBIGUOUS if mode == "crag" else None
        return Answer(question, "In 1843 [1].", [], verdict, False, trace)


ITEMS = [
    EvalItem(f"q{i}", f"Question {i}?", ("1843",), "p1", True) for i in (1, 2, 3)
]  # fmt: skip
MODES = ["rag", "crag"]


def line(qid: str, mode: str, **extra: object) -> str:
    return json.dumps({"id": qid, "mode": mode, "error": None, **extra}) + "\n"


def test_resume_runs_only_missing_pairs_after_a_kill(tmp_path: Path) -> None:
    # what a killed run leaves: two pairs done, one that failed, and half a line
    (tmp_path / "results.jsonl").write_text(
        line("q1", "rag")
        + line("q1", "crag")
        + json.dumps({"id": "q2", "mode": "rag", "error": "LLMError: boom"})
        + "\n"
        + '{"id": "q2", "mode": "crag", "answ'
    )
    results = ResultsFile(tmp_path)
    assert any("truncated last line" in n for n in results.notes)
    pipeline = Recorder()
    asked = Harness(pipeline, Lookup(), results).run(ITEMS, MODES, warm_up=False)
    assert asked == 4
    assert pipeline.asked == [
        ("Question 2?", "rag"),  # the failed pair is retried
        ("Question 2?", "crag"),  # the truncated one is rerun
        ("Question 3?", "rag"),
        ("Question 3?", "crag"),
    ]
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    records = [json.loads(x) for x in lines]  # every line parses: the stub was cut off
    assert len(records) == 7
    again = ResultsFile(tmp_path)
    assert not again.notes
    assert all(again.done(it.id, m) for it in ITEMS for m in MODES)
    assert again.records[("q2", "rag")]["error"] is None  # the retry replaced the failure


def test_interrupted_run_then_resumed_asks_each_pair_once(tmp_path: Path) -> None:
    first = Recorder(fail_at=3)  # Ctrl-C while asking the fourth pair
    with pytest.raises(KeyboardInterrupt):
        Harness(first, Lookup(), ResultsFile(tmp_path)).run(ITEMS, MODES, warm_up=False)
    assert len(first.asked) == 3
    second = Recorder()
    Harness(second, Lookup(), ResultsFile(tmp_path)).run(ITEMS, MODES, warm_up=False)
    assert first.asked + second.asked == [(it.question, m) for it in ITEMS for m in MODES]
    third = Recorder()
    assert Harness(third, Lookup(), ResultsFile(tmp_path)).run(ITEMS, MODES) == 0
    assert third.asked == []  # nothing pending: no warm-up either


def test_order_mode_runs_every_question_through_one_mode_first_and_resumes(
    tmp_path: Path,
) -> None:
    first = Recorder(fail_at=4)  # stopped inside the second mode
    with pytest.raises(KeyboardInterrupt):
        Harness(first, Lookup(), ResultsFile(tmp_path)).run(
            ITEMS, MODES, warm_up=False, order="mode"
        )
    assert first.asked == [(it.question, "rag") for it in ITEMS] + [("Question 1?", "crag")]
    second = Recorder()
    Harness(second, Lookup(), ResultsFile(tmp_path)).run(ITEMS, MODES, warm_up=False, order="mode")
    assert second.asked == [("Question 2?", "crag"), ("Question 3?", "crag")]
    with pytest.raises(CragError, match="--order 'random'"):
        Harness(Recorder(), Lookup(), ResultsFile(tmp_path)).pending(ITEMS, MODES, "random")


def test_record_holds_trace_units_gold_rank_and_gold_in_context(tmp_path: Path) -> None:
    h = Harness(Recorder(), Lookup(), ResultsFile(tmp_path))
    r = h.ask(ITEMS[0], "crag")
    assert r["retrieved_units"] == ["p2", "p1", "p1"]
    assert r["gold_rank"] == 2  # c3 is the first chunk of the gold unit p1
    assert r["gold_in_context"] is True  # c1 (gold unit, holds "1843") was judged
    assert r["verdict"] == "ambiguous" and Trace.model_validate(r["trace"]).total_ms == 25.0
    no_answer = EvalItem("q9", "Q?", ("Babbage",), "p1", True)  # answer only in another unit
    assert h.ask(no_answer, "rag")["gold_in_context"] is False
    unanswerable = EvalItem("u", "Q?", (), "p1", False)
    assert h.ask(unanswerable, "rag")["gold_in_context"] is False
    # a retrieved chunk the index does not know (a web result) has no unit and never matches
    CHUNKS.pop("c2")
    try:
        r = h.ask(EvalItem("n", "Q?", ("1843",), None, True), "crag")
    finally:
        CHUNKS["c2"] = chunk("c2", "p2", "Charles Babbage designed the engine.")
    assert r["retrieved_units"] == [None, "p1", "p1"] and r["gold_rank"] is None
    assert r["gold_in_context"] is True  # no gold unit named: any chunk holding the answer


def test_warm_up_asks_one_unmeasured_question_per_mode(tmp_path: Path) -> None:
    pipeline = Recorder()
    Harness(pipeline, Lookup(), ResultsFile(tmp_path)).run(ITEMS[:1], MODES)
    assert [m for _, m in pipeline.asked] == ["rag", "crag", "rag", "crag"]
    assert pipeline.asked[0][0] not in {it.question for it in ITEMS}
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 2


def test_errors_are_recorded_and_a_persistent_one_stops_the_run(tmp_path: Path) -> None:
    once = Recorder(fail_at=0, exc=LLMError("model fell over"))
    Harness(once, Lookup(), ResultsFile(tmp_path)).run(ITEMS[:1], ["rag"], warm_up=False)
    (record,) = ResultsFile(tmp_path).records.values()
    assert record["error"] == "LLMError: model fell over"

    class Broken:
        def ask(self, question: str, mode: str = "crag") -> Answer:
            raise LLMError("no model")

    many = [EvalItem(f"m{i}", f"M{i}?", ("a",), None, True) for i in range(8)]
    with pytest.raises(CragError, match=r"5 questions in a row failed.*no model"):
        Harness(Broken(), Lookup(), ResultsFile(tmp_path / "b")).run(many, ["rag"])


def test_modes_are_checked_before_any_model_loads() -> None:
    assert check_modes(["RAG", " crag", "rag"], _probe_graph) == ["rag", "crag"]
    assert check_modes(["rag", "Self_CRAG"], _probe_graph) == ["rag", "self-crag"]
    with pytest.raises(CragError) as info:
        check_modes(["rag", "Self_RAG"], _probe_graph)
    message = str(info.value)
    assert "self-rag is not supported" in message
    assert "supported modes: rag, crag, self-crag" in message
    with pytest.raises(CragError, match="empty"):
        check_modes([" "], _probe_graph)


def test_fingerprint_guards_against_mixing_runs(tmp_path: Path) -> None:
    fp = {"grader": "qwen2.5-coder-0.5b", "collection": "eval-x"}
    check_fingerprint(tmp_path, fp)
    (tmp_path / "results.jsonl").write_text(line("q1", "rag"))
    check_fingerprint(tmp_path, fp)  # same settings: fine
    with pytest.raises(CragError, match=r"grader: 'qwen2\.5-coder-0\.5b' then, 'other' now"):
        check_fingerprint(tmp_path, {**fp, "grader": "other"})


def test_one_run_per_output_folder(tmp_path: Path) -> None:
    with locked(tmp_path), pytest.raises(CragError, match="another `crag eval`"), locked(tmp_path):
        pass


def test_dataset_language_is_detected_from_the_questions() -> None:
    questions = ["Normandiya hangi ülkede bulunur?", "İskandinav lideri kimdi?", "Rollo kimdi?"]
    tr = [EvalItem(str(i), q, ("x",), None, True) for i, q in enumerate(questions)]
    en = [EvalItem("e", "Which country is Normandy in?", ("x",), None, True)]
    assert detect_language(tr) == "tr" and detect_language(en) == "en"


def test_answer_kept_compares_what_the_generator_read_with_the_top_5(tmp_path: Path) -> None:
    h = Harness(Recorder(), Lookup(), ResultsFile(tmp_path))
    rag = h.ask(ITEMS[0], "rag")  # rag reads the reranked chunks whole: c1 holds 1843
    assert rag["answer_in_top5"] is True and rag["answer_kept"] is True
    crag = h.ask(ITEMS[0], "crag")  # the stand-in kept no strip: the answer was lost
    assert crag["answer_in_top5"] is True and crag["answer_kept"] is False

    class Keeps(Recorder):
        def ask(self, question: str, mode: str = "crag") -> Answer:
            answer = super().ask(question, mode)
            strips = [
                StripRecord(chunk_id="c3", score=0.9, kept=True, text="She was a mathematician."),
                StripRecord(
                    chunk_id="c1", score=0.1, kept=False, text="the first program in 1843."
                ),
            ]
            web = WebRecord(
                provider="test",
                query="q",
                rewrite=RewriteRecord(method="keywords"),
                strips=[WebStripRecord(url="u", kind="page", score=0.9, kept=True,
                                       text="written in 1843")],
            )  # fmt: skip
            trace = answer.trace.model_copy(update={"strips": strips, "web": web})
            return replace(answer, trace=trace)

    kept = Harness(Keeps(), Lookup(), ResultsFile(tmp_path)).ask(ITEMS[0], "crag")
    assert kept["answer_kept"] is True  # from the kept web strip, not the dropped local one
    elsewhere = h.ask(EvalItem("q8", "Q?", ("Turing",), "p1", True), "rag")
    assert elsewhere["answer_in_top5"] is False and elsewhere["answer_kept"] is None
    unanswerable = h.ask(EvalItem("u", "Q?", (), "p1", False), "rag")
    assert unanswerable["answer_in_top5"] is None

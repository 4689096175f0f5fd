"""`run_calibration` end to end over a real index (MiniLM, SQLite, Chroma), with a scripted
LLM writing the questions and a word-overlap evaluator: files written, thresholds stored and
used, a second run resumes from the journal, a torn line is repaired, a foreign run refused."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.support.files import write

from crag.calibrate import CalibrateConfig, run_calibration
from crag.calibrate.scoring import NEAR_MISS, Withholding, score_question, withheld
from crag.config import load_settings
from crag.errors import CragError
from crag.grading.stored import read_calibration
from crag.grading.thresholds import thresholds_for
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor
from crag.models.llm.base import ChatRequest, ChatResult

DOCS = {
    "rhine.txt": (
        "The Rhine Falls near Schaffhausen is the largest plain waterfall in Europe. The falls "
        "are 23 metres high and 150 metres wide, and they formed about 15,000 years ago when "
        "the river was pushed south by glacial deposits.",
        ("How wide is the Rhine Falls?", "150 metres"),
    ),
    "bees.txt": (
        "A honey bee colony has one queen, a few hundred drones and tens of thousands of "
        "workers. Worker bees collect nectar and pollen, build wax comb and feed the larvae, "
        "and they tell each other where flowers are by dancing.",
        ("How do worker bees tell each other where flowers are?", "by dancing"),
    ),
    "tower.txt": (
        "The Eiffel Tower in Paris was completed in 1889 for the World's Fair. Gustave Eiffel's "
        "company designed and built the wrought-iron lattice tower, which was the tallest "
        "structure in the world until 1930.",
        ("In which year was the Eiffel Tower completed?", "1889"),
    ),
    "noise.txt": (
        "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
        "incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud "
        "exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.",
        None,  # the model only ever writes prose about this one: rejected
    ),
}


class QuestionWriter:
    """Answers the question-writing prompt for the documents above; counts its calls."""

    name = "scripted"

    def __init__(self) -> None:
        self.calls = 0

    def chat(self, request: ChatRequest) -> ChatResult:
        self.calls += 1
        prompt = request.messages[-1].content
        for text, qa in DOCS.values():
            if text[:40] in prompt:
                if qa is None:
                    return ChatResult(text="This passage is placeholder text.")
                return ChatResult(text=json.dumps({"question": qa[0], "answer": qa[1]}))
        return ChatResult(text="?")


class Overlap:
    """A retrieval evaluator: the share of the question's words (4+ letters) in the passage."""

    name = "overlap"

    def __init__(self) -> None:
        self.calls = 0

    def score(self, question: str, passages: list[str]) -> list[float]:
        self.calls += 1
        words = set(re.findall(r"[a-z]{4,}", question.lower()))
        return [
            len(words & set(re.findall(r"[a-z]{4,}", p.lower()))) / max(1, len(words))
            for p in passages
        ]


@pytest.fixture
def setup(tmp_path: Path, embedder):
    from crag.pipeline.build import build_pipeline

    folder = tmp_path / "docs"
    for name, (text, _) in DOCS.items():
        write(folder / name, text)
    settings = load_settings(
        data_dir=tmp_path / "data",
        collection="notes",
        evaluate={"method": "llm"},
        rerank={"model": None},
    )
    index = Index.open(settings, embedder=embedder)
    Ingestor(index, settings.ingest).ingest([folder])
    judge = Overlap()
    pipeline = build_pipeline(settings, index, evaluator=judge, web=None)
    yield settings, index, pipeline, judge
    index.close()


def test_calibrate_writes_stores_and_resumes(setup) -> None:
    settings, index, pipeline, judge = setup
    llm = QuestionWriter()
    steps: list[str] = []
    config = CalibrateConfig(questions=3, seed=0)
    result = run_calibration(
        settings, config, index=index, pipeline=pipeline, llm=llm, on_step=steps.append
    )
    assert result.questions == 3 and len(steps) == 3 and result.resumed == 0
    assert result.rejected == 1  # the lorem ipsum file
    assert result.curve_png.stat().st_size > 10_000
    curve = json.loads(result.curve_json.read_text())
    assert curve["questions"] == 3 and curve["evaluator"] == "llm-judge:qwen2.5-coder-0.5b"
    assert {p["threshold"] for p in curve["curve"]} >= {result.choice.lower}
    # answerable: the question's own file scores high; near miss: its file is withheld
    assert result.choice.at_lower["right_n"] == 3 and result.choice.at_lower["hallucinated_n"] == 0
    stored = read_calibration(settings.data_dir, "notes")
    assert stored and (stored["upper"], stored["lower"]) == (
        result.choice.upper,
        result.choice.lower,
    )
    t = thresholds_for(settings.evaluate, "notes", settings.llm.grader.model, settings.data_dir)
    assert (t.upper, t.lower) == (result.choice.upper, result.choice.lower)

    lines = result.journal.read_text().splitlines()
    kinds = [json.loads(line)["type"] for line in lines]
    assert kinds.count("question") == 3 and kinds.count("scores") == 6
    assert kinds.count("rejected") == 1 and kinds[0] == "run"

    # a second run asks nothing again: every question and score comes from the journal
    calls, judged = llm.calls, judge.calls
    again = run_calibration(settings, config, index=index, pipeline=pipeline, llm=llm)
    assert (llm.calls, judge.calls) == (calls, judged)
    assert again.resumed == 3 and again.choice.lower == result.choice.lower
    assert len(result.journal.read_text().splitlines()) == len(lines)

    # a line torn by a kill is cut off and its work redone
    last = json.loads(lines[-1])
    with result.journal.open("a") as f:
        f.write('{"type": "scores", "chunk": "x')
    torn = run_calibration(settings, config, index=index, pipeline=pipeline, llm=llm)
    assert torn.questions == 3 and result.journal.read_text().endswith("\n")
    assert json.loads(result.journal.read_text().splitlines()[-1]) == last

    with pytest.raises(CragError, match="seed 0"):
        run_calibration(
            settings, CalibrateConfig(questions=3, seed=1), index=index, pipeline=pipeline, llm=llm
        )
    fresh = run_calibration(
        settings,
        CalibrateConfig(questions=1, seed=1, fresh=True, store=False),
        index=index,
        pipeline=pipeline,
        llm=llm,
    )
    assert fresh.questions == 1 and fresh.stored is None


def test_near_miss_withholds_the_unit_and_the_answer(setup) -> None:
    _, index, pipeline, _ = setup
    c = pipeline.components
    rhine = next(
        ch
        for info in index.sources()
        for ch in index.catalog.chunks_of(info.source)
        if "Rhine" in ch.text
    )
    question, answer = DOCS["rhine.txt"][1]
    answerable = score_question(c, question, rhine, answer, "answerable")
    assert rhine.id in answerable.ids and answerable.gold[answerable.ids.index(rhine.id)]
    near = score_question(c, question, rhine, answer, NEAR_MISS, extra=5)
    assert rhine.id not in near.ids and not any(near.gold) and near.ids
    drop = withheld(rhine, "Paris")  # also any chunk holding the answer, wherever it is
    hits = Withholding(c.retriever, drop, extra=5).search("Eiffel Tower Paris", k=3)
    assert all("Paris" not in h.chunk.text and "Rhine" not in h.chunk.text for h in hits)


def test_an_empty_collection_is_a_clear_error(tmp_path: Path, embedder) -> None:
    settings = load_settings(data_dir=tmp_path / "data", collection="empty")
    index = Index.open(settings, embedder=embedder)
    with pytest.raises(CragError, match="crag ingest"):
        run_calibration(settings, CalibrateConfig(questions=1), index=index, llm=QuestionWriter())
    index.close()


class Answerer:
    """A generator LLM that answers the Rhine question from its source, or says NOT_FOUND."""

    name = "answerer"

    def chat(self, request: ChatRequest) -> ChatResult:
        prompt = " ".join(m.content for m in request.messages)
        if "150 metres wide" in prompt:
            return ChatResult(text="The Rhine Falls are 150 metres wide [1].")
        return ChatResult(text="NOT_FOUND")

    def stream(self, request: ChatRequest, on_token) -> ChatResult:
        result = self.chat(request)
        on_token(result.text)
        return result


def test_answers_use_the_generators_real_outcome(setup) -> None:
    from dataclasses import replace

    from crag.calibrate.scoring import answer_outcome

    _, index, pipeline, _ = setup
    verifier = Sure(0.62)
    generator = replace(pipeline.components.generator, llm=Answerer(), verifier=verifier)
    c = replace(pipeline.components, generator=generator)
    rhine = next(
        ch
        for info in index.sources()
        for ch in index.catalog.chunks_of(info.source)
        if "Rhine" in ch.text
    )
    question, answer = DOCS["rhine.txt"][1]
    got = answer_outcome(c, question, rhine, answer, "answerable")
    assert got["right"] and not got["refused"], got
    # every answer is verified, whatever the verdict, and never refused by the cut (0.62 is
    # below the default 0.75): its P(yes) is journalled for the cut to be chosen later
    assert got["verified"] == pytest.approx(0.62) and verifier.asked == 1
    missed = answer_outcome(c, question, rhine, answer, NEAR_MISS, extra=5)
    assert missed["refused"] and not missed["right"], missed
    assert missed["verified"] is None


class Sure:
    """The answer check's verifier: one fixed P(yes); counts its calls."""

    def __init__(self, p: float) -> None:
        self.p, self.asked = p, 0

    def score(self, question: str, passages: list[str]) -> list[float]:
        self.asked += 1
        return [self.p for _ in passages]

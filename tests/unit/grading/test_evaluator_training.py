"""The evaluator's training pieces: labels, pair mining, threshold choice, train + resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crag.datasets import load_dataset
from crag.datasets.splits import evaluator_part
from crag.errors import LoaderError
from crag.eval.metrics import contains_answer
from crag.grading.training.calibrate import CalibrationItem, choose_thresholds, credit
from crag.grading.training.data import LabelledQuestion, load_squad
from crag.grading.training.pairs import Pair, mine_pairs, read_pairs, write_pairs
from crag.types import Chunk, Verdict


def chunk(doc_id: str, text: str, position: int = 0) -> Chunk:
    return Chunk(
        id=f"{doc_id}:{position}",
        text=text,
        source="s",
        doc_id=doc_id,
        position=position,
        start=0,
        end=len(text),
    )


def test_contains_answer_is_word_bounded_and_turkish_aware() -> None:
    assert contains_answer("It opened in 1937, after four years.", ["1937"])
    assert not contains_answer("It cost 19370 dollars.", ["1937"])
    assert contains_answer("The Denver Broncos won.", ["denver broncos"])
    assert contains_answer("İstanbul'da doğdu.", ["istanbul"])
    assert not contains_answer("anything", ["", "  "])
    # the label rule is crag eval's: SQuAD drops articles, so "the Commission" is held here
    assert contains_answer("The European Commission proposes laws.", ["the Commission"])


def test_evaluator_split_is_stable_and_roughly_70_10_20() -> None:
    parts = [evaluator_part(f"nq-{i:05d}") for i in range(5000)]
    assert evaluator_part("nq-00042") == evaluator_part("nq-00042")
    share = {p: parts.count(p) / len(parts) for p in ("train", "calibrate", "test")}
    assert 0.67 < share["train"] < 0.73 and 0.08 < share["calibrate"] < 0.12
    assert 0.17 < share["test"] < 0.23


def test_mine_pairs_labels_gold_hard_negatives_and_strips() -> None:
    q = LabelledQuestion("When did the bridge open?", ("1937",), "gold", "", "toy")
    gold = [
        chunk("gold", "The bridge opened in 1937. It is red. Fog is common there.", 0),
        chunk("gold", "Tourists walk across it every day.", 1),
    ]
    hits = [
        chunk("other", "A tunnel opened in 1937 too."),  # answer in a non-gold unit: dropped
        chunk("other2", "Bridges are built of steel. Some are old."),
        gold[0],
    ]
    pairs = list(mine_pairs([q], lambda _q, _k: hits, lambda _d: gold, seed=3))
    chunks = [p for p in pairs if p.kind == "chunk"]
    assert Pair(q.question, gold[0].text, 1.0, "chunk", "toy") in pairs
    assert Pair(q.question, gold[1].text, 0.0, "chunk", "toy") in pairs  # gold, no answer
    assert not any("tunnel" in p.passage for p in chunks)
    strips = [p for p in pairs if p.kind == "strip"]
    assert any(p.label == 1.0 and "1937" in p.passage for p in strips)
    assert all(p.label == 0.0 for p in strips if "1937" not in p.passage)


def test_pairs_round_trip(tmp_path: Path) -> None:
    pairs = [Pair("q", "p", 1.0, "chunk", "d"), Pair("q", "ş", 0.25, "distilled", "x")]
    path = tmp_path / "pairs.jsonl"
    assert write_pairs(pairs, path) == 2
    assert read_pairs(path) == pairs
    assert not path.with_suffix(".jsonl.part").exists()


def test_credit_and_threshold_choice_by_hand() -> None:
    assert credit(Verdict.CORRECT, True) == 1 and credit(Verdict.CORRECT, False) == 0
    assert credit(Verdict.INCORRECT, False) == 1 and credit(Verdict.AMBIGUOUS, True) == 0.75
    items = [
        CalibrationItem((0.9, 0.1), True, "a"),
        CalibrationItem((0.8,), True, "a"),
        CalibrationItem((0.4,), True, "a"),  # a weak positive
        CalibrationItem((0.45,), False, "a"),  # a strong negative
        CalibrationItem((0.05, 0.1), False, "a"),
        CalibrationItem((0.2,), False, "a"),
    ]
    got = choose_thresholds(items)
    # Any single cut gets one of the middle two wrong: 5/6. A band over 0.40..0.45 makes both
    # AMBIGUOUS: (4 + 2 * 0.75) / 6; the narrowest such band is lower 0.40, upper 0.46.
    assert got["credit"] == pytest.approx(5.5 / 6, abs=1e-4)
    assert (got["upper"], got["lower"]) == (0.46, 0.40)
    assert got["verdicts"]["answerable"] == {"correct": 2, "ambiguous": 1, "incorrect": 0}
    assert got["verdicts"]["unanswerable"] == {"correct": 0, "ambiguous": 1, "incorrect": 2}
    assert len(got["curve"]) == 101
    # with a credit of 0.5 the band cannot beat a single cut: no AMBIGUOUS band is chosen
    flat = choose_thresholds(items, ambiguous=0.5)
    assert flat["upper"] == flat["lower"] and flat["credit"] == pytest.approx(5 / 6, abs=1e-4)


def test_squad_reader_splits_and_excludes(tmp_path: Path) -> None:
    data = {
        "data": [
            {
                "title": "T",
                "paragraphs": [
                    {
                        "context": f"Paragraph {i} says the answer is {i}.",
                        "qas": [
                            {
                                "id": f"q{i}",
                                "question": f"what {i}?",
                                "answers": [{"text": str(i)}],
                            },
                            {"id": f"u{i}", "question": "?", "answers": [], "is_impossible": True},
                        ],
                    }
                    for i in range(40)
                ],
            }
        ]
    }
    # SQuAD-TR's "excluded" file: answers lost in translation, not marked impossible
    data["data"][0]["paragraphs"][0]["qas"].append({"id": "lost", "question": "?", "answers": []})
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    everything = load_squad(path)
    assert len(everything) == 40  # unanswerable questions are not evaluator pairs
    with pytest.raises(LoaderError, match="not marked"):
        load_dataset(path)  # crag eval reads the same file strictly
    train, test = load_squad(path, "train"), load_squad(path, "test")
    assert train and test and not {q.qid for q in train} & {q.qid for q in test}
    assert everything[3].gold == "T#3"
    assert len(load_squad(path, exclude_ids={"q1", "q2"})) == 38


@pytest.mark.slow
def test_train_checkpoints_and_resumes(tmp_path: Path) -> None:
    from crag.grading.training.trainer import TrainConfig, train

    pairs = [
        Pair(
            "where is the lighthouse", "The lighthouse stood on Pharos island.", 1.0, "chunk", "t"
        ),
        Pair("where is the lighthouse", "Bees dance to show the way.", 0.0, "chunk", "t"),
    ] * 8
    config = TrainConfig(batch_size=4, checkpoint_every=2, epochs=1)
    seen: list[int] = []

    class Stop(Exception):
        pass

    def stop_after_three(step: int, total: int, loss: float) -> None:
        seen.append(step)
        if step == 3:
            raise Stop

    with pytest.raises(Stop):
        train(pairs, tmp_path, config, on_step=stop_after_three)
    assert json.loads((tmp_path / "checkpoint" / "state.json").read_text())["step"] == 2
    record = train(pairs, tmp_path, config, on_step=lambda s, t, loss: seen.append(s))
    assert seen == [1, 2, 3, 3, 4]  # steps 3 and 4 after resuming from the step-2 checkpoint
    assert record["resumed_from"] == 2 and record["steps"] == 4
    assert (tmp_path / "model" / "config.json").exists()

    # export: fp16 weights whose SHA-256 the loader checks, a card with the held-out metrics
    from crag.grading.training.export import export_model
    from crag.models.cross_encoder import CrossEncoderEvaluator

    (tmp_path / "metrics.json").write_text(
        json.dumps(
            {
                "results": [
                    {"judge": "ce", "dataset": "nq", "pairs": 789, "positives": 202,
                     "roc_auc": 0.8437, "accuracy@0.5": 0.7972, "pairs_per_s": 152.3},
                    {"judge": "bi", "dataset": "nq", "pairs": 789, "positives": 202,
                     "roc_auc": 0.667, "accuracy@0.5": 0.256, "pairs_per_s": 85.6},
                ]
            }
        )
    )  # fmt: skip
    dest = tmp_path / "shipped"
    manifest = export_model(tmp_path / "model", dest)
    card = (dest / "README.md").read_text()
    assert "| nq | 789 | 202 | 0.844 | 0.797 | 152 |" in card and "0.667" not in card
    assert manifest["training"]["steps"] == 4
    scores = CrossEncoderEvaluator(str(dest)).score("where is the lighthouse", ["Pharos."])
    assert len(scores) == 1 and 0.0 <= scores[0] <= 1.0
    with pytest.raises(LoaderError, match=r"none\.json: no such file"):
        export_model(tmp_path / "model", dest, metrics=tmp_path / "none.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(LoaderError, match=r"bad\.json: could not read it"):
        export_model(tmp_path / "model", dest, metrics=tmp_path / "bad.json")
    assert (dest / "README.md").read_text() == card  # the earlier export is kept
    (tmp_path / "metrics.json").unlink()
    bare = export_model(tmp_path / "model", tmp_path / "bare")
    assert bare["sha256"] and "Not measured" in (tmp_path / "bare" / "README.md").read_text()


@pytest.mark.slow
def test_build_pairs_reports_progress_per_question_and_reuses_mined_pairs(tmp_path: Path) -> None:
    """Real index (crag's chunker, MiniLM, FTS5) over a small SQuAD file; progress counts every
    train question once; a second call reads pairs.jsonl instead of mining again."""
    from crag.grading.training.run import Sources, build_pairs

    topics = ["bridge", "river", "castle", "harbour", "tower", "canal", "market", "garden"]
    data = {
        "data": [
            {
                "title": "Places",
                "paragraphs": [
                    {
                        "context": f"The {t} number {i} was built in {1800 + 7 * i} by a guild.",
                        "qas": [
                            {
                                "id": f"q{t}{i}",
                                "question": f"When was the {t} number {i} built?",
                                "answers": [{"text": str(1800 + 7 * i)}],
                            }
                        ],
                    }
                    for t in topics
                    for i in range(5)
                ],
            }
        ]
    }
    path = tmp_path / "places.json"
    path.write_text(json.dumps(data))
    expected = len(load_squad(path, "train"))
    started: list[int] = []
    ticks: list[None] = []
    run = tmp_path / "run"
    sources = Sources(squad=[path])
    pairs = build_pairs(
        sources, run, on_start=started.append, on_question=lambda: ticks.append(None)
    )
    assert expected > 0 and started == [expected] and len(ticks) == expected
    assert sum(p.label == 1.0 for p in pairs) >= expected  # each question's gold chunk
    again = build_pairs(sources, run, on_start=started.append)
    assert again == pairs and started == [expected]  # reused, not mined again


@pytest.mark.slow
def test_distillation_labels_a_users_collection_with_the_judge(tmp_path: Path) -> None:
    """`--distill-questions`: each question's hits (and strips of the top two) are scored by
    the judge — here the packaged cross-encoder, a real model — and kept as soft labels."""
    from crag.config import load_settings
    from crag.grading.training.run import Sources, build_pairs
    from crag.index.store import Index
    from crag.ingest.ingestor import Ingestor
    from crag.models.cross_encoder import CrossEncoderEvaluator

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bridge.txt").write_text("The Golden Gate Bridge opened to traffic in 1937.")
    (docs / "bees.txt").write_text("Honey bees make honey from the nectar of flowers.")
    (docs / "moon.txt").write_text("The Moon is about 384,400 kilometres from the Earth.")
    settings = load_settings(data_dir=tmp_path / "data", collection="notes")
    index = Index.open(settings)
    try:
        assert Ingestor(index, settings.ingest).ingest([docs]).ok
    finally:
        index.close()
    questions = tmp_path / "questions.txt"
    questions.write_text("When did the Golden Gate Bridge open?\n\nWhat do bees make honey from?\n")
    ticks: list[None] = []
    pairs = build_pairs(
        Sources(distill_questions=questions, distill_collection="notes"),
        tmp_path / "run",
        judge=CrossEncoderEvaluator,
        settings=settings,
        on_question=lambda: ticks.append(None),
    )
    assert len(ticks) == 2 and {p.kind for p in pairs} == {"distilled"}
    assert all(0.0 <= p.label <= 1.0 for p in pairs)
    bridge = [p for p in pairs if p.question.startswith("When did the Golden")]
    best = max(bridge, key=lambda p: p.label)
    assert "1937" in best.passage and best.label > 0.5
    assert all(p.label < best.label for p in bridge if "Golden Gate" not in p.passage)

"""`crag eval` end to end with the real packaged models on a tiny SQuAD 2.0 file.

In-process with the session's models (both modes, resume, report), and once as the user runs
it: the `crag eval` command in a subprocess (one question, rag), then a rerun that asks nothing.
The rerun, the refused modes and the near-miss run go through the same `crag` app in-process
with the session's models (tests/support/cli.py): a cold model load each is what they cost.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import MODELS_DIR, share_models
from tests.support.cli import in_process_crag
from tests.support.files import write

from crag.datasets import load_dataset
from crag.eval.harness import Harness
from crag.eval.report import write_report
from crag.eval.results import ResultsFile
from crag.eval.summary import summarize
from crag.index.store import Index
from crag.ingest.ingestor import Ingestor
from crag.pipeline import build_pipeline
from crag.trace import Trace

pytestmark = pytest.mark.slow

TINY = {
    "version": "v2.0",
    "data": [
        {
            "title": "Golden_Gate_Bridge",
            "paragraphs": [
                {
                    "context": "The Golden Gate Bridge is a suspension bridge in San Francisco. "
                    "It opened to traffic on May 27, 1937, and was painted International Orange.",
                    "qas": [
                        {
                            "id": "gg-open",
                            "question": "In which year did the Golden Gate Bridge open?",
                            "answers": [{"text": "1937"}],
                        },
                        {
                            "id": "gg-architect",
                            "question": "Who was the chief architect of the Eiffel Tower?",
                            "answers": [],
                            "is_impossible": True,
                        },
                    ],
                }
            ],
        },
        {
            "title": "Honey_bee",
            "paragraphs": [
                {
                    "context": "Honey bees tell their nest mates where flowers are with the "
                    "waggle dance, whose angle points to the food relative to the sun.",
                    "qas": [
                        {
                            "id": "bee-dance",
                            "question": "Which dance do honey bees use to show where flowers are?",
                            "answers": [{"text": "waggle dance"}],
                        },
                    ],
                }
            ],
        },
    ],
}


def test_eval_in_process_both_modes_resume_and_report(
    tmp_path: Path, settings, embedder, llm, generator_llm
) -> None:
    path = write(tmp_path / "tiny.json", json.dumps(TINY))
    data = load_dataset(path)
    index = Index.open(settings, embedder=embedder)
    try:
        Ingestor(index, settings.ingest).ingest(data.kb)
        pipeline = build_pipeline(settings, index)
        share_models(pipeline, llm, generator_llm)
        out = tmp_path / "out"
        harness = Harness(pipeline, index.catalog, ResultsFile(out))
        assert harness.run(data.items, ["rag", "crag"], warm_up=False) == 6
        again = Harness(pipeline, index.catalog, ResultsFile(out))
        assert again.run(data.items, ["rag", "crag"]) == 0  # resumed: nothing left
    finally:
        index.close()
    records = list(ResultsFile(out).records.values())
    assert len(records) == 6 and not any(r["error"] for r in records)
    by = {(r["id"], r["mode"]): r for r in records}
    for qid in ("gg-open", "bee-dance"):
        assert by[(qid, "rag")]["gold_rank"] == 1  # two paragraphs: the gold one ranks first
        assert by[(qid, "rag")]["gold_in_context"] is True
    assert by[("gg-architect", "crag")]["gold_in_context"] is False  # unanswerable
    assert all(r["verdict"] for r in records if r["mode"] == "crag")
    assert all(r["verdict"] is None for r in records if r["mode"] == "rag")
    crag_traces = [Trace.model_validate(r["trace"]) for r in records if r["mode"] == "crag"]
    assert all(t.evaluations for t in crag_traces)  # judged

    modes = summarize(records, ["rag", "crag"])
    for mode in ("rag", "crag"):
        s = modes[mode]
        assert s["n"] == 3 and s["answers"]["n_answerable"] == 2
        assert s["answers"]["n_unanswerable"] == 1 and s["answers"]["refusal_rate"] is not None
        assert s["retrieval"]["recall@1"] == 1.0
        assert s["latency"]["total"]["p50_ms"] > 0
    assert modes["crag"]["evaluator"]["n"] == 3 and modes["rag"]["evaluator"] is None
    assert "evaluate" in modes["crag"]["latency"] and "evaluate" not in modes["rag"]["latency"]
    run = {
        "dataset_name": "tiny", "questions": 3, "language": "en", "collection": "test",
        "embedding": "all-MiniLM-L6-v2", "keyword_language": "english", "grader": "0.5b",
        "generator": "1.5b", "thresholds": {"upper": 0.54, "lower": 0.23},
        "web": "none", "evaluator": "LLM judge", "machine": "test",
    }  # fmt: skip
    paths = write_report({"run": run, "modes": modes}, out)
    assert all(p.is_file() for p in paths.values()) and len(paths) == 5


def test_crag_eval_command_runs_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder
) -> None:
    path = write(tmp_path / "tiny.json", json.dumps(TINY))
    out = tmp_path / "out"
    env = {
        **os.environ,
        "CRAG_DATA_DIR": str(tmp_path / "data"),
        "CRAG_LLM__MODELS_DIR": str(MODELS_DIR),
        "COLUMNS": "200",
    }
    exe = [sys.executable, "-m", "crag", "eval", str(path), "--out", str(out)]

    def crag_eval(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*exe, *args], capture_output=True, text=True, timeout=600, env=env, check=False
        )

    in_process = in_process_crag(
        monkeypatch, tmp_path / "data", embedder, CRAG_LLM__MODELS_DIR=str(MODELS_DIR)
    )
    bad = in_process("eval", str(path), "--out", str(out), "--modes", "rag,self-rag")
    assert bad.returncode == 1
    assert "self-rag is not supported" in bad.stderr and "rag, crag, self-crag" in bad.stderr

    done = crag_eval("--modes", "rag", "--limit", "1")
    assert done.returncode == 0, done.stderr
    assert "indexed 1 file(s)" in done.stderr and "crag eval · tiny" in done.stdout
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["mode"] == "rag"
    for name in ("summary.json", "report.md", "accuracy_by_mode.png", "latency_by_stage.png"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["collection"] == "eval-tiny" and summary["run"]["questions"] == 1

    again = in_process("eval", str(path), "--out", str(out), "--modes", "rag", "--limit", "1")
    assert again.returncode == 0, again.stderr
    assert "loading models" not in again.stderr  # nothing pending: no model is loaded
    assert len((out / "results.jsonl").read_text().splitlines()) == 1


def test_crag_eval_near_miss_withholds_the_gold_paragraph_and_gates_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder, llm, generator_llm
) -> None:
    """`--near-miss 0.5`: one of the two answerable questions loses its paragraph (a collection
    of its own), counts as should-refuse, and an impossible `--fail-under` exits 1 naming it."""
    path = write(tmp_path / "tiny.json", json.dumps(TINY))
    out = tmp_path / "out"
    models = {"qwen2.5-coder-0.5b": llm, "qwen2.5-coder-1.5b": generator_llm}
    in_process = in_process_crag(
        monkeypatch, tmp_path / "data", embedder, models, CRAG_LLM__MODELS_DIR=str(MODELS_DIR)
    )
    args = ["--out", str(out), "--modes", "rag", "--near-miss", "0.5"]
    gates = ["--fail-under", "rag.accuracy=1.01", "--fail-over", "rag.p50_ms=100000000"]
    run = in_process("eval", str(path), *args, *gates)
    assert run.returncode == 1, run.stderr
    assert "failed: rag.accuracy" in run.stderr and "p50_ms" not in run.stderr
    records = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    near = [r for r in records if r["part"] == "near_miss"]
    assert len(near) == 1 and len(records) == 3
    assert near[0]["gold_unit"] not in near[0]["retrieved_units"]  # withheld from the index
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["collection"].startswith("eval-tiny-nearmiss-")
    rag = summary["modes"]["rag"]
    assert rag["near_miss"]["n_unanswerable"] == 1 and rag["answers"]["n_answerable"] == 1
    assert rag["answer_kept"]["n"] <= 1
    assert "Near-miss questions" in (out / "report.md").read_text()


def test_crag_eval_asks_each_mode_in_a_process_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder
) -> None:
    """Two modes: each in a spawned process that builds the real pipeline and loads its own
    models (the session's are not shared with them), as `crag eval` does by default."""
    path = write(tmp_path / "tiny.json", json.dumps(TINY))
    out = tmp_path / "out"
    in_process = in_process_crag(
        monkeypatch, tmp_path / "data", embedder, CRAG_LLM__MODELS_DIR=str(MODELS_DIR)
    )
    run = in_process("eval", str(path), "--out", str(out), "--modes", "rag,crag", "--limit", "1")
    assert run.returncode == 0, run.stderr
    assert "each mode in a process of its own" in run.stderr
    records = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert [r["mode"] for r in records] == ["rag", "crag"]
    assert all(r["error"] is None and r["answer"] for r in records)
    assert records[1]["trace"]["verdict"] in ("correct", "ambiguous", "incorrect")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["process_per_mode"] is True
    assert "do not compare modes" not in (out / "report.md").read_text()

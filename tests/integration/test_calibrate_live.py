"""`crag calibrate` as a user runs it: the packaged LLM writes questions from examples/sample,
the configured evaluator scores them; the curve and the stored thresholds are written, `crag
ask` uses them, and a second run resumes from the journal instead of asking again.

The first `crag calibrate` is a real process (models loaded from cold); the `crag ask` and the
resumed run go through the same app in-process with the session's models (tests/support/cli.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import MODELS_DIR, SAMPLE
from tests.support.cli import in_process_crag

from crag.config import load_settings
from crag.pipeline.build import verify_cut
from crag.trace import Trace

pytestmark = pytest.mark.slow


def crag(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("crag")
    env = {
        **os.environ,
        "CRAG_DATA_DIR": str(data_dir),
        "CRAG_LLM__MODELS_DIR": str(MODELS_DIR),
        "COLUMNS": "200",
    }
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=1200, env=env)


def test_calibrate_sample_writes_stores_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder, llm, generator_llm
) -> None:
    data = tmp_path / "data"
    models = {"qwen2.5-coder-0.5b": llm, "qwen2.5-coder-1.5b": generator_llm}
    in_process = in_process_crag(
        monkeypatch, data, embedder, models, CRAG_LLM__MODELS_DIR=str(MODELS_DIR)
    )
    assert in_process("ingest", str(SAMPLE), "-c", "sample").returncode == 0
    first = crag("calibrate", "-c", "sample", "--questions", "3", data_dir=data)
    assert first.returncode == 0, first.stderr
    assert "chosen: upper" in first.stdout and "expected:" in first.stdout
    run = data / "collections" / "sample" / "calibration"
    journal = run / "journal.jsonl"
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    questions = [r for r in records if r["type"] == "question"]
    assert len(questions) == 3
    for q in questions:  # validated: the answer is in its chunk's file, not in the question
        assert q["answer"].lower() not in q["question"].lower()
        assert Path(q["source"]).parent == SAMPLE
    assert sum(r["type"] == "scores" for r in records) == 6
    curve = json.loads((run / "curve.json").read_text())
    assert curve["questions"] == 3 and curve["curve"]
    assert (run / "curve.png").stat().st_size > 10_000
    stored = json.loads((data / "collections" / "sample" / "calibration.json").read_text())
    assert 0.0 <= stored["lower"] <= stored["upper"] <= 1.0
    assert stored["evaluator"] == curve["evaluator"]

    asked = in_process("ask", "When was the telephone patented?", "-c", "sample", "--json")
    assert asked.returncode == 0, asked.stderr
    thresholds = Trace.model_validate(json.loads(asked.stdout)["trace"]).thresholds
    assert thresholds is not None
    assert (thresholds.upper, thresholds.lower) == (stored["upper"], stored["lower"])

    second = in_process("calibrate", "-c", "sample", "--questions", "3")
    assert second.returncode == 0, second.stderr
    assert "3 resumed" in second.stdout
    assert len(journal.read_text().splitlines()) == len(records)  # nothing asked again

    # --answers: the same questions (resumed) go through the generator, every answer verified
    # with the real 1.5B model; the verification cut is chosen and stored, and used from then on
    third = in_process("calibrate", "-c", "sample", "--questions", "3", "--answers")
    assert third.returncode == 0, third.stderr
    answers = [json.loads(line) for line in journal.read_text().splitlines()]
    answers = [r for r in answers if r["type"] == "answer"]
    assert len(answers) == 6
    verified = [r["verified"] for r in answers if not r["refused"]]
    assert all(p is None or 0.0 <= p <= 1.0 for p in verified)
    stored = json.loads((data / "collections" / "sample" / "calibration.json").read_text())
    curve = json.loads((run / "curve.json").read_text())
    assert stored["verify_cut"] == curve["verify_cut"]
    # the sample's generated questions are easy: some answer is given, so verified
    assert any(p is not None for p in verified), answers
    assert 0.75 <= stored["verify_cut"] <= 1.0  # raised from the default, never lowered
    assert f"verification cut {stored['verify_cut']:.4f} (was 0.7500)" in third.stdout
    settings = load_settings(data_dir=data, collection="sample")
    assert verify_cut(settings) == stored["verify_cut"]

"""The `crag` command as a user runs it: a real data dir, real models.

Each test runs `crag` once as a real process (the entry point, exit codes, stderr, models
loaded from cold); the other runs of the same test go through the same typer app in-process
with the session's loaded models (tests/support/cli.py), which is where the minutes went.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import SAMPLE
from tests.support.cli import in_process_crag
from tests.support.files import write

from crag.trace import Trace

pytestmark = pytest.mark.slow


def crag(*args: str, data_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("crag")
    return subprocess.run(
        [str(exe), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "CRAG_DATA_DIR": str(data_dir), "COLUMNS": "200", **env},
    )


def test_ingest_search_sources_remove(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder
) -> None:
    data = tmp_path / "data"
    bad = write(tmp_path / "bad" / "broken.jsonl", "{not json\n")
    done = crag("ingest", str(SAMPLE), str(bad), data_dir=data)
    assert done.returncode == 2, done.stderr  # one file failed, the rest went in
    assert f"{bad}" in done.stderr and "no valid JSONL record" in done.stderr
    assert "6 added" in done.stdout
    run = in_process_crag(monkeypatch, data, embedder)
    again = run("ingest", str(SAMPLE))
    assert again.returncode == 0 and "6 unchanged" in again.stdout

    found = run("search", "When was the telephone patented?", "-k", "3", "--json")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    assert len(hits) == 3 and hits[0]["doc_id"] == "telephone"
    assert hits[0]["source"].endswith("inventions.jsonl") and "1876" in hits[0]["text"]
    for mode in ("bm25", "dense"):
        one = run("search", "Rhine Falls", "-k", "1", "--mode", mode, "--json")
        assert json.loads(one.stdout)[0]["title"] == "The Rhine"

    listed = run("sources")
    assert "honeybees.md" in listed.stdout and "all-MiniLM-L6-v2" in listed.stdout

    removed = run("remove", str(SAMPLE / "inventions.jsonl"))
    assert removed.returncode == 0 and "1 removed" in removed.stdout
    gone = run("search", "telephone patent", "--json")
    assert all(h["doc_id"] != "telephone" for h in json.loads(gone.stdout))


def test_friendly_errors(tmp_path: Path) -> None:
    data = tmp_path / "data"
    bad_mode = crag("search", "x", "--mode", "fuzzy", data_dir=data)
    assert bad_mode.returncode == 1 and "use bm25, dense or hybrid" in bad_mode.stderr
    assert "Traceback" not in bad_mode.stderr
    bad_env = crag("search", "x", data_dir=data, CRAG_RETRIEVAL__TOP_K="zero")
    assert bad_env.returncode == 1 and "retrieval.top_k" in bad_env.stderr
    missing = crag("ingest", str(tmp_path / "nowhere.txt"), data_dir=data)
    assert missing.returncode == 2 and "nowhere.txt" in missing.stderr


def test_ask_json_trace_and_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder, llm, generator_llm
) -> None:
    from tests.conftest import MODELS_DIR

    data = tmp_path / "data"
    env = {"CRAG_LLM__MODELS_DIR": str(MODELS_DIR)}
    models = {"qwen2.5-coder-0.5b": llm, "qwen2.5-coder-1.5b": generator_llm}
    run = in_process_crag(monkeypatch, data, embedder, models, **env)
    empty = run("ask", "anything?")
    assert empty.returncode == 1 and "empty" in empty.stderr and "crag ingest" in empty.stderr
    assert run("ingest", str(SAMPLE)).returncode == 0
    question = "When was the telephone patented?"
    out = crag("ask", question, "--json", data_dir=data, **env)  # the real process, cold models
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # no library's load bars or deprecation notes beside the answer
    answer = json.loads(out.stdout)
    assert answer["question"] == question and answer["verdict"] in {"correct", "ambiguous"}
    trace = Trace.model_validate(answer["trace"])  # the typed schema reads it back
    assert len(trace.evaluations) == 5 and trace.stages_ms["generate"] > 0
    assert {c.role for c in trace.calls} <= {"grader", "generator"}
    # crag's readings are typed records: each candidate names its reading and source
    assert answer["refused"] or trace.candidates
    assert all(c.reading == "all" or c.reading.startswith("alone [") for c in trace.candidates)
    # llama.cpp returns each token's log-probability: the short answer's token probabilities
    assert all(c.probs and all(0.0 < p <= 1.0 for p in c.probs) for c in trace.candidates)
    alone = [c for c in trace.calls if c.purpose == "generate-alone"]
    assert len(alone) == len(trace.read_alone) <= 1
    for c in answer["citations"]:
        assert f"[{c['n']}]" in answer["answer"] and Path(c["source"]).exists()
    shown = run("ask", question, "--trace", "--mode", "rag")
    assert shown.returncode == 0 and "stages" in shown.stdout and "mode rag" in shown.stdout
    bad = run("ask", question, "--mode", "nope")
    assert bad.returncode == 1 and "--mode" in bad.stderr
    graph = run("graph")
    assert graph.returncode == 0 and "evaluate -.-> web_search" in graph.stdout
    loop = run("graph", "--mode", "self-crag")
    assert loop.returncode == 0 and "reflect -.-> generate" in loop.stdout
    reflected = run("ask", question, "--mode", "self-crag", "--reflect", "always", "--trace")
    assert reflected.returncode == 0, reflected.stderr
    assert "mode self-crag" in reflected.stdout and "reflection (always): ran" in reflected.stdout
    assert "reflection rounds" in reflected.stdout and "reflected " in reflected.stdout
    bad_reflect = run("ask", question, "--mode", "self-crag", "--reflect", "x")
    assert bad_reflect.returncode == 1 and "--reflect" in bad_reflect.stderr

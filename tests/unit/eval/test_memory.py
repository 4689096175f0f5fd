"""Whether a process per mode fits in memory (`crag.eval.memory`), and `crag eval` asking in one
process where it does not (`crag.eval.run._asker`)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

import crag.eval.memory as memory
import crag.pipeline
from crag.config import Settings
from crag.eval.run import _asker

_MEMINFO = """MemTotal:       24589412 kB
MemFree:         1048576 kB
MemAvailable:    3145728 kB
Buffers:          102400 kB
"""


def test_available_memory_is_read_from_meminfo(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text(_MEMINFO, encoding="ascii")
    assert memory.available_mb(meminfo) == 3072.0
    assert memory.available_mb(tmp_path / "missing") is None  # not Linux: not checked
    meminfo.write_text("MemTotal: 1 kB\n", encoding="ascii")
    assert memory.available_mb(meminfo) is None


def test_the_packaged_models_need_more_than_models_served_elsewhere() -> None:
    local = Settings()
    remote = Settings(llm={"grader": "ollama:qwen2.5:0.5b", "generator": "openai:gpt-4o-mini"})
    assert memory.needed_mb(local, 2) == 2 * 1800 + 1300
    assert memory.needed_mb(remote, 2) == 2 * 700
    assert memory.too_little_memory(local, 2, 8000.0) is None
    why = memory.too_little_memory(local, 2, 3000.0)
    assert why is not None and "4.8 GB" in why and "2.9 GB" in why and "one process" in why
    assert memory.too_little_memory(remote, 2, 3000.0) is None
    assert memory.too_little_memory(local, 2, None) is None  # unknown: not checked
    assert memory.too_little_memory(local, 1, 100.0) is None  # one mode: one process anyway


def test_crag_eval_asks_in_one_process_where_the_processes_would_not_fit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = SimpleNamespace(components=SimpleNamespace(web=None))
    monkeypatch.setattr(memory, "available_mb", lambda: 1000.0)
    monkeypatch.setattr(crag.pipeline, "build_pipeline", lambda settings, index: built)
    plan = SimpleNamespace(
        config=SimpleNamespace(process_per_mode=True), modes=["rag", "crag"], settings=Settings()
    )
    said: list[str] = []
    with _asker(plan, index=None, overrides={}, log=said.append) as (asker, apart, web):
        assert asker is built and apart is False and web is False
    assert len(said) == 1 and "1.0 GB of memory is available" in said[0]
    assert "--one-process" in said[0]

"""`crag` commands run in-process (typer's CliRunner over the real app) with the session's models.

Why: every `crag` subprocess imports crag and loads the embedder and the llama.cpp models from
cold; a test that runs the command eight times pays that eight times (most of the suite's CLI
minutes). Here the same `app` that `crag.cli:main` calls runs in the test process, reading its
settings from the environment as the command does, and the models it asks for are the
session's already loaded ones: `make_llm` returns the session's llama.cpp model of the same
name and `Index.open` gets the session's embedder. Nothing is faked: real models, real Chroma,
real SQLite. Each test module keeps one real `crag` subprocess for the entry point itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import crag.index.store
import crag.pipeline.build
from crag.cli import app
from crag.models.embedder import Embedder

__all__ = ["Ran", "in_process_crag"]


@dataclass(frozen=True)
class Ran:
    """What a `crag` run left: the same three fields a `subprocess.CompletedProcess` has."""

    returncode: int
    stdout: str
    stderr: str


def in_process_crag(
    monkeypatch: pytest.MonkeyPatch,
    data_dir: Path,
    embedder: Embedder,
    models: Mapping[str, Any] | None = None,
    **env: str,
) -> Callable[..., Ran]:
    """A `crag(*args)` that runs the command in this process against `data_dir`.

    `models` maps a llama.cpp model name (`qwen2.5-coder-1.5b`) to the session's loaded model;
    a role naming another model gets a new one, as the command would build it.
    """
    for name, value in {"CRAG_DATA_DIR": str(data_dir), "COLUMNS": "200", **env}.items():
        monkeypatch.setenv(name, value)
    make_llm = crag.pipeline.build.make_llm
    make_embedder = crag.index.store.make_embedder

    def shared_llm(role: Any, models_dir: Path) -> Any:
        loaded = (models or {}).get(role.model)
        return loaded if loaded is not None else make_llm(role, models_dir)

    def shared_embedder(model: str, **kwargs: Any) -> Embedder:
        same = model.strip().lower() in {"all-minilm-l6-v2", embedder.name.lower()}
        return embedder if same else make_embedder(model, **kwargs)

    monkeypatch.setattr(crag.pipeline.build, "make_llm", shared_llm)
    monkeypatch.setattr(crag.index.store, "make_embedder", shared_embedder)
    runner = CliRunner()

    def crag_(*args: str) -> Ran:
        result = runner.invoke(app, list(args), catch_exceptions=False)
        return Ran(result.exit_code, result.stdout, result.stderr)

    return crag_

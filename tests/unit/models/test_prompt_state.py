"""Prompt states kept across processes: naming, restore, save and pruning (a server double
answers the slot requests; tests/integration/test_prompt_state_live.py runs llama.cpp)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from crag.models.llm import ChatRequest
from crag.models.llm.base import Message
from crag.models.llm.prompt_state import KEEP, PromptStates, model_identity, state_name


def _request(last: str, lead: str = "Answer briefly.") -> ChatRequest:
    return ChatRequest(messages=(Message("system", lead), Message("user", last)))


class _Slots:
    """What llama.cpp's /slots endpoint does with files: save writes, restore reads."""

    def __init__(self, folder: Path, fail: bool = False) -> None:
        self.folder, self.fail, self.calls = folder, fail, []

    def __call__(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(path)
        file = self.folder / body["filename"]
        if self.fail:
            return {"error": {"message": "failed"}}
        if path.endswith("action=save"):
            file.write_bytes(b"state")
            return {"n_saved": 12}
        return {"n_restored": 12} if file.read_bytes() == b"state" else {"error": "bad"}


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF")
    return path


def test_the_name_follows_the_lead_not_the_last_message(model_file: Path) -> None:
    model = model_identity(model_file, "1.0", 4096)
    name = state_name(model, _request("Where is Paris?"))
    assert name == state_name(model, _request("Who built it?"))
    assert name != state_name(model, _request("Where?", lead="Be long."))
    assert name != state_name(model_identity(model_file, "1.1", 4096), _request("Where is Paris?"))
    assert name != state_name(model_identity(model_file, "1.0", 2048), _request("Where is Paris?"))
    os.utime(model_file, ns=(1, 1))  # another file at the same path: another state
    assert name != state_name(model_identity(model_file, "1.0", 4096), _request("Where is Paris?"))
    assert name.startswith("prompt-") and name.endswith(".bin") and "/" not in name


def test_first_use_is_once_per_name(tmp_path: Path) -> None:
    states = PromptStates(tmp_path, _Slots(tmp_path))
    assert states.first_use("prompt-a.bin") and states.first_use("prompt-b.bin")
    assert not states.first_use("prompt-a.bin")


def test_save_then_restore(tmp_path: Path) -> None:
    slots = _Slots(tmp_path)
    states = PromptStates(tmp_path, slots)
    assert not states.restore("prompt-a.bin")  # none saved yet: nothing asked of the server
    assert slots.calls == []
    states.save("prompt-a.bin")
    assert (tmp_path / "prompt-a.bin").read_bytes() == b"state"
    assert [p.name for p in tmp_path.iterdir()] == ["prompt-a.bin"]  # the temporary renamed
    assert states.restore("prompt-a.bin")


def test_a_state_that_fails_to_restore_is_deleted(tmp_path: Path) -> None:
    (tmp_path / "prompt-a.bin").write_bytes(b"half a state")
    states = PromptStates(tmp_path, _Slots(tmp_path))
    assert not states.restore("prompt-a.bin")
    assert not (tmp_path / "prompt-a.bin").exists()


def test_failures_leave_no_file_and_raise_nothing(tmp_path: Path) -> None:
    states = PromptStates(tmp_path / "states", _Slots(tmp_path / "states", fail=True))
    states.save("prompt-a.bin")
    assert list((tmp_path / "states").iterdir()) == []

    def unreachable(path: str, body: dict[str, Any]) -> dict[str, Any]:
        raise OSError("connection refused")

    (tmp_path / "prompt-b.bin").write_bytes(b"state")
    assert not PromptStates(tmp_path, unreachable).restore("prompt-b.bin")
    assert (tmp_path / "prompt-b.bin").exists()  # the server was not reached: the file stays
    PromptStates(tmp_path, unreachable).save("prompt-c.bin")
    assert not (tmp_path / "prompt-c.bin").exists()


def test_only_the_most_recently_used_states_are_kept(tmp_path: Path) -> None:
    states = PromptStates(tmp_path, _Slots(tmp_path))
    for i in range(KEEP + 3):  # saved by earlier processes, oldest first
        (tmp_path / f"prompt-{i:02}.bin").write_bytes(b"state")
        os.utime(tmp_path / f"prompt-{i:02}.bin", (i, i))
    states.restore("prompt-00.bin")  # used again: now the most recent
    states.save("prompt-99.bin")
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert len(kept) == KEEP
    assert "prompt-00.bin" in kept and "prompt-99.bin" in kept and "prompt-01.bin" not in kept

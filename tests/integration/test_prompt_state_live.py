"""A prompt's fixed lead computed by one process is reused by the next (real llama.cpp, the
packaged 0.5B model; each run is a new Python process, as each `crag ask` is)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import MODELS_DIR

from crag.models.llm.packaged import PACKAGED_MODELS, resolve_gguf

pytestmark = pytest.mark.slow

_RUN = """
import json, sys
from pathlib import Path
from crag.models.llm import ChatRequest, LlamaCppLLM
from crag.models.llm.base import Message
model, models_dir, keep, question, stream = sys.argv[1:]
llm = LlamaCppLLM(model, models_dir=Path(models_dir), ctx_per_slot=2048, parallel=1,
                  keep_states=keep == "1")
lead = "You answer questions about cities in one word. " * 12
request = ChatRequest(
    messages=(Message("system", lead), Message("user", "Capital of Italy?"),
              Message("assistant", "Rome"), Message("user", question)),
    max_tokens=6, keep_prefix=True)
r = llm.stream(request, lambda token: None) if stream == "1" else llm.chat(request)
print(json.dumps({"text": r.text, "cached": r.cached_tokens, "prompt": r.prompt_tokens}))
"""


def _run(models_dir: Path, keep: bool, question: str, stream: bool = False) -> dict[str, object]:
    """Ask in a new process (streaming or not); its states are kept in `models_dir`/states."""
    model = resolve_gguf("qwen2.5-coder-0.5b", MODELS_DIR)
    done = subprocess.run(
        [sys.executable, "-c", _RUN, str(model), str(models_dir), "1" if keep else "0", question,
         "1" if stream else "0"],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_the_next_process_restores_the_lead_and_answers_the_same(tmp_path: Path) -> None:
    assert PACKAGED_MODELS["qwen2.5-coder-0.5b"]
    states = tmp_path / "states"
    first = _run(tmp_path, True, "Capital of France?")
    assert first["cached"] == 0
    saved = list(states.glob("prompt-*.bin"))
    assert len(saved) == 1 and saved[0].stat().st_size > 100_000
    assert not list(states.glob("part-*"))

    restored = _run(tmp_path, True, "Capital of Spain?", stream=True)  # as the reader asks
    computed = _run(tmp_path / "none", False, "Capital of Spain?")
    assert computed["cached"] == 0 and not (tmp_path / "none" / "states").exists()
    assert int(restored["cached"]) >= 100  # the lead: about 130 tokens of instructions
    assert restored["text"] == computed["text"] and restored["prompt"] == computed["prompt"]

    saved[0].write_bytes(b"not a state")  # corrupt: deleted, answered anyway, saved again
    again = _run(tmp_path, True, "Capital of Spain?")
    assert again["text"] == computed["text"] and again["cached"] == 0
    assert saved[0].stat().st_size > 100_000

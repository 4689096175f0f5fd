"""Settings are a leaf: loading and validating them imports no model code.

Why it matters: `crag config`, the server's schema and every test that only needs settings would
otherwise pay for torch / llama.cpp imports, and model code importing config back is how import
circles start. The check runs in a fresh interpreter with the `crag` package's own `__init__`
(the public API, which does import models) bypassed, so only config's own imports count.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import crag

PROBE = """
import json, sys, types
pkg = types.ModuleType("crag"); pkg.__path__ = [{path!r}]; sys.modules["crag"] = pkg
import crag.config
crag.config.load_settings(llm={{"generator": "ollama:gemma3:27b"}}, evaluate={{"upper": 0.9}})
print(json.dumps(sorted(sys.modules)))
"""


def test_config_imports_no_model_code() -> None:
    path = str(Path(crag.__file__).parent)
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(path=path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    loaded = json.loads(out)
    ours = sorted(m for m in loaded if m.startswith("crag."))
    config = [
        "crag.config",
        *(f"crag.config.{m}" for m in ("_generate", "_index", "_llm", "_settings", "_stages")),
    ]
    assert ours == [*config, "crag.errors", "crag.modes", "crag.providers"]
    heavy = ("torch", "sentence_transformers", "xllamacpp", "chromadb", "httpx", "langgraph")
    assert not [m for m in loaded if m.split(".")[0] in heavy]

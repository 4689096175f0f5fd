"""No import circles: neither among src/crag's modules nor among its packages.

A circle makes import order matter (a half-initialised module hands out names that are not
there yet) and ties modules that should change alone. `scripts/import_cycles.py` reads the
sources with `ast`; imports inside functions count too, since they tie the modules as much.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "import_cycles.py"


def _checker():  # the script is not a package module: load it from its file
    spec = importlib.util.spec_from_file_location("import_cycles", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_module_imports_another_that_imports_it_back() -> None:
    ic = _checker()
    assert ic.cycles(ic.graph()) == []


def test_no_package_imports_one_that_imports_it_back() -> None:
    ic = _checker()
    assert ic.cycles(ic.packages(ic.graph())) == []


def test_cli_commands_do_not_import_the_app() -> None:
    ic = _checker()
    edges = ic.graph()
    # command modules import `crag.cli.common` and the library, never the app's own module
    # (`crag.cli.__main__`, the `python -m crag.cli` entry point, is the one that runs it)
    back = [m for m in edges if m.startswith("crag.cli.") and "crag.cli" in edges[m]]
    assert back == ["crag.cli.__main__"]


def test_import_crag_cli_runs_clean() -> None:
    subprocess.run([sys.executable, "-c", "import crag.cli"], check=True, timeout=60)

"""Ctrl-C on `crag ingest` cancels cleanly (issue 21): exit 130, the half-written file repaired
at once, the stores in step."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.conftest import ROOT, assert_in_step
from tests.support.files import write

from crag.config import load_settings
from crag.index.store import Index

pytestmark = pytest.mark.slow


def _done(db: Path) -> int:
    if not db.exists():
        return 0
    con = sqlite3.connect(str(db), timeout=5)
    try:
        return con.execute("SELECT count(*) FROM sources WHERE state='done'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def test_ctrl_c_on_ingest_cancels_cleanly(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    for i in range(120):  # long enough that the signal lands mid-ingest on a quiet machine
        write(docs / f"f{i:02}.txt", f"File {i} mentions marker{i} in sentence {i}. " * 60)
    data = tmp_path / "data"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "CRAG_DATA_DIR": str(data),
        "CRAG_COLLECTION": "cancel",
        "CRAG_INGEST__BATCH_CHUNKS": "8",
    }
    # `python -m crag ingest DOCS`, with Ctrl-C raising KeyboardInterrupt even where the suite
    # was started with SIGINT ignored (a shell's background job): the child inherits that, and
    # Python then installs no handler, so the signal was lost and the test skipped
    run = (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "sys.argv = ['crag', 'ingest', sys.argv[1]]; runpy.run_module('crag', run_name='__main__')"
    )
    cmd = [sys.executable, "-c", run, str(docs)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    db = data / "collections" / "cancel" / "catalog.sqlite3"
    deadline = time.monotonic() + 180
    while _done(db) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    if proc.returncode == 0:  # exited normally: it ran to the end
        # The race was lost: the ingest ended before the signal arrived (seen once in a full
        # run on a quiet machine). Nothing was cancelled, so there is nothing to check here.
        pytest.skip("the ingest finished before Ctrl-C arrived")
    assert proc.returncode == 130, stderr
    assert "cancelled; the index is consistent" in stderr
    settings = load_settings(data_dir=data, collection="cancel")
    index = Index.open(settings)
    try:
        assert_in_step(index)
        assert 2 <= len(index.sources()) < 20
    finally:
        index.close()

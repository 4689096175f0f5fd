"""`crag watch` as a user runs it: a real process following a real folder. Files are created,
edited and deleted while it runs and the index follows within seconds; it is killed
(SIGKILL), the folder changes while it is down, and started again it catches up; SIGTERM
stops it cleanly and both stores agree."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.conftest import assert_in_step

from crag.config import load_settings
from crag.index.store import Index
from crag.models.embedder import Embedder

pytestmark = pytest.mark.slow

FOLLOW_S = 20.0  # generous for a loaded 2-core machine; typically ~1-2 s (debounce 0.3 s)


class Watcher:
    """`crag watch` in a subprocess, its output collected line by line."""

    def __init__(self, folder: Path, data: Path) -> None:
        exe = Path(sys.executable).with_name("crag")
        env = {**os.environ, "CRAG_DATA_DIR": str(data), "CRAG_COLLECTION": "watched"}
        self.proc = subprocess.Popen(
            [str(exe), "watch", str(folder), "--debounce", "0.3"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**env, "COLUMNS": "200"},
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())

    def wait_for(self, text: str, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while not any(text in line for line in self.lines):
            assert self.proc.poll() is None, "\n".join(self.lines)
            assert time.monotonic() < deadline, f"no {text!r} in:\n" + "\n".join(self.lines)
            time.sleep(0.1)


def _indexed(data: Path) -> dict[str, str]:
    """source file name -> its text, from the catalog (read-only; the watcher writes)."""
    path = data / "collections" / "watched" / "catalog.sqlite3"
    if not path.exists():
        return {}
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        rows = db.execute(
            "SELECT s.source, group_concat(c.text, ' ') FROM sources s "
            "JOIN chunks c ON c.source = s.source WHERE s.state = 'done' GROUP BY s.source"
        ).fetchall()
    finally:
        db.close()
    return {Path(source).name: text for source, text in rows}


def _until(check: Callable[[dict[str, str]], bool], data: Path) -> float:
    started = time.monotonic()
    while True:
        seen = _indexed(data)
        if check(seen):
            return time.monotonic() - started
        assert time.monotonic() - started < FOLLOW_S, seen
        time.sleep(0.1)


def test_watch_follows_the_folder_and_survives_a_kill(tmp_path: Path, embedder: Embedder) -> None:
    folder, data = tmp_path / "notes", tmp_path / "data"
    folder.mkdir()
    (folder / "alpha.txt").write_text("Alpha notes: the lighthouse lamp is lit at dusk.")
    (folder / "beta.md").write_text("# Beta\n\nThe ferry leaves at nine.")
    watcher = Watcher(folder, data)
    try:
        watcher.wait_for("start: 2 added")
        assert set(_indexed(data)) == {"alpha.txt", "beta.md"}

        (folder / "gamma.txt").write_text("Gamma: the harbour crane lifts ten tonnes.")
        (folder / ".hidden.txt").write_text("an editor's scratch file")
        (folder / "image.bin").write_bytes(b"\x00\x01")
        took = [_until(lambda s: "gamma.txt" in s, data)]
        # JSON that is not SQuAD, dropped into the folder: passed over, not a failure
        (folder / "package.json").write_text('{"name": "notes"}')
        watcher.wait_for("ignored: 1 file(s) crag does not read")
        assert not any("skipped:" in line for line in watcher.lines), watcher.lines
        (folder / "alpha.txt").write_text("Alpha notes: the lamp is now lit an hour after dusk.")
        took.append(_until(lambda s: "hour after dusk" in s.get("alpha.txt", ""), data))
        (folder / "beta.md").unlink()
        took.append(_until(lambda s: "beta.md" not in s, data))
        (folder / "sub").mkdir()
        (folder / "sub" / "delta.txt").write_text("Delta: a file in a new folder.")
        took.append(_until(lambda s: "delta.txt" in s, data))
        assert set(_indexed(data)) == {"alpha.txt", "gamma.txt", "delta.txt"}
        print(f"index followed in {', '.join(f'{t:.1f}s' for t in took)}")

        watcher.proc.send_signal(signal.SIGKILL)  # no clean-up at all
        watcher.proc.wait(10)
        (folder / "gamma.txt").unlink()
        (folder / "epsilon.txt").write_text("Epsilon: written while the watcher was down.")
        (folder / "alpha.txt").write_text("Alpha notes, third version.")

        watcher = Watcher(folder, data)
        watcher.wait_for("start: 1 added, 1 updated, 1 removed, 1 unchanged")
        texts = _indexed(data)
        assert set(texts) == {"alpha.txt", "delta.txt", "epsilon.txt"}
        assert texts["alpha.txt"] == "Alpha notes, third version."

        watcher.proc.send_signal(signal.SIGTERM)
        assert watcher.proc.wait(30) == 0, "\n".join(watcher.lines)
    finally:
        if watcher.proc.poll() is None:
            watcher.proc.kill()
            watcher.proc.wait(10)
    index = Index.open(load_settings(data_dir=data, collection="watched"), embedder=embedder)
    try:
        assert_in_step(index)
    finally:
        index.close()

"""`results.jsonl`: one line per (question, mode), appended as each finishes — the resume log.

A run killed at any moment leaves every finished pair on disk and at most one partial last
line. Opening the file drops that partial line (and says so), and the pairs already present
are skipped by the next run. Each line is flushed and fsynced before the next question starts.
A lock file keeps two runs from appending to the same directory at once.

Next to it, `run.json` holds the run's fingerprint — dataset, collection, embedding, models,
thresholds — so a resumed run cannot silently mix results of a different configuration.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from crag.errors import CragError

__all__ = ["ResultsFile", "check_fingerprint", "locked"]

RESULTS = "results.jsonl"
RUN = "run.json"


class ResultsFile:
    """Reads what a previous run left and appends new lines."""

    def __init__(self, out_dir: Path) -> None:
        self.path = out_dir / RESULTS
        self.records: dict[tuple[str, str], dict[str, Any]] = {}
        self.notes: list[str] = []
        self._load()

    def _load(self) -> None:
        if not self.path.is_file():
            return
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            # a run killed mid-write: drop the partial line so the next append starts clean
            with self.path.open("r+b") as fh:
                fh.truncate(end)
            self.notes.append(f"{self.path}: dropped a truncated last line ({len(data) - end} B)")
            data = data[:end]
        for lineno, line in enumerate(data.decode("utf-8", "replace").split("\n"), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                key = (str(record["id"]), str(record["mode"]))
            except (json.JSONDecodeError, KeyError, TypeError):
                self.notes.append(f"{self.path}: line {lineno} is not a result; it will be rerun")
                continue
            self.records[key] = record  # a later line for the same pair wins

    def done(self, item_id: str, mode: str) -> bool:
        return (item_id, mode) in self.records

    def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        self.records[(str(record["id"]), str(record["mode"]))] = record


def check_fingerprint(out_dir: Path, fingerprint: dict[str, Any]) -> None:
    """Record the fingerprint of this run, or refuse to resume one made differently."""
    path = out_dir / RUN
    if path.is_file() and (out_dir / RESULTS).is_file():
        try:
            before = json.loads(path.read_text(encoding="utf-8")).get("fingerprint", {})
        except json.JSONDecodeError:
            before = {}
        changed = sorted(k for k in fingerprint if k in before and before[k] != fingerprint[k])
        if changed:
            diffs = "; ".join(f"{k}: {before[k]!r} then, {fingerprint[k]!r} now" for k in changed)
            raise CragError(
                f"{out_dir} holds results of a run made differently ({diffs}); resuming would "
                "mix them. Use another --out, or restore the settings of that run."
            )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({"fingerprint": fingerprint}, indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )


@contextmanager
def locked(out_dir: Path) -> Iterator[None]:
    """One run per output directory at a time."""
    out_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(out_dir / ".lock", os.O_CREAT | os.O_RDWR, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise CragError(f"another `crag eval` is writing {out_dir}; wait for it") from exc
        yield
    finally:
        os.close(fd)

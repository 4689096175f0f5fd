"""The run's journal: one JSONL file, a record per line, appended and fsynced as work is done.

A killed run loses at most the line it was writing; the next run reads every whole line, drops
a torn last one (the file is cut back to the last newline), and skips the work the journal
already holds. Records:

- `run`: what the questions depend on (collection, seed, generator model); written first;
- `question`: a chunk, and the question and answer the LLM wrote for it;
- `rejected`: a chunk that gave no usable question, and why;
- `scores`: a question's judged chunks in one condition, for one evaluator;
- `answer`: the generator's outcome for a question in one condition (`--answers`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from crag.errors import CragError

__all__ = ["Journal"]


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: list[dict[str, Any]] = []
        if path.exists():
            self._load()

    def _load(self) -> None:
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):  # a line torn by a kill: cut it off, it is redone
            with self.path.open("r+b") as f:
                f.truncate(end)
                f.flush()
                os.fsync(f.fileno())
        for n, line in enumerate(data[:end].splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                raise CragError(
                    f"{self.path}: line {n} is not JSON ({exc}); move the file"
                ) from None
            if isinstance(record, dict):
                self.records.append(record)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("type") == kind]

    def append(self, record: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with self.path.open("a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())
        self.records.append(record)

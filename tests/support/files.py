"""Writing a test's input file: text as UTF-8, bytes as they are, its folder made if needed."""

from __future__ import annotations

from pathlib import Path

__all__ = ["write"]


def write(path: Path, data: str | bytes) -> Path:
    """Write `data` to `path` (text as UTF-8), making its parent folders, and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path

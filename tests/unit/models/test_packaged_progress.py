"""Assembling a packaged model says so, with progress (the first start copies 1.6 GB)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from crag.models.llm import packaged
from crag.models.llm.packaged import PackagedModel


def test_assembly_reports_progress_on_stderr(tmp_path: Path, monkeypatch, capsys) -> None:
    blocks = [b"GGUF" + b"a" * 5_000_000, b"b" * 3_000_000]
    parts = []
    for i, data in enumerate(blocks):
        part = tmp_path / f"part{i}"
        part.write_bytes(data)
        parts.append(part)
    whole = b"".join(blocks)
    model = PackagedModel(
        "tiny", "tiny.gguf", "unused{i}", 2, hashlib.sha256(whole).hexdigest(), len(whole), "x"
    )
    monkeypatch.setattr(PackagedModel, "part_paths", lambda self: parts)
    target = tmp_path / "models" / "tiny.gguf"
    packaged._assemble(model, target)
    assert target.read_bytes() == whole
    err = capsys.readouterr().err
    assert "assembling the packaged model tiny" in err and "first use only" in err
    assert "100 %" in err and "8 MB" in err

    seen: list[tuple[int, int]] = []
    packaged._assemble(model, tmp_path / "again.gguf", progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (len(whole), len(whole)) and len(seen) >= 2


def test_a_wrong_checksum_still_fails_after_reporting(tmp_path: Path, monkeypatch) -> None:
    part = tmp_path / "p"
    part.write_bytes(b"GGUF...")
    model = PackagedModel("bad", "bad.gguf", "u{i}", 1, "0" * 64, 7, "reinstall")
    monkeypatch.setattr(PackagedModel, "part_paths", lambda self: [part])
    with pytest.raises(Exception, match="reinstall"):
        packaged._assemble(model, tmp_path / "bad.gguf", progress=lambda d, t: None)
    assert not (tmp_path / "bad.gguf").exists()


def test_a_killed_assembly_leaves_no_partial_file_behind(tmp_path: Path, monkeypatch) -> None:
    """A process killed while assembling leaves `.tiny.gguf.<pid>.partial`; the next assembly
    deletes it when that process is gone, and keeps one whose process still runs."""
    part = tmp_path / "p"
    part.write_bytes(b"GGUF" + b"x" * 100)
    whole = part.read_bytes()
    model = PackagedModel(
        "tiny", "tiny.gguf", "unused{i}", 1, hashlib.sha256(whole).hexdigest(), len(whole), "x"
    )
    monkeypatch.setattr(PackagedModel, "part_paths", lambda self: [part])
    target = tmp_path / "models" / "tiny.gguf"
    target.parent.mkdir()
    dead = target.with_name(".tiny.gguf.999999999.partial")  # above any pid_max
    dead.write_bytes(b"half")
    alive = target.with_name(f".tiny.gguf.{os.getppid()}.partial")
    alive.write_bytes(b"half")
    packaged._assemble(model, target, progress=lambda d, t: None)
    assert target.read_bytes() == whole
    assert not dead.exists() and alive.exists()

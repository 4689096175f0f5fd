"""A real `chroma run` server on 127.0.0.1, for the index and server tests that use one."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

__all__ = ["chroma_binary", "chroma_server", "free_port"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chroma_binary() -> str:
    found = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
    if not Path(found).exists():
        pytest.fail("the `chroma` CLI (from the chromadb package) is not installed")
    return found


@contextmanager
def chroma_server(path: Path) -> Iterator[str]:
    """A `chroma run` on a free loopback port over `path`; yields its URL, stops it after."""
    port = free_port()
    proc = subprocess.Popen(
        [chroma_binary(), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("chroma run did not start within 60 s")
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()

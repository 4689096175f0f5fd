"""A real `crag serve` subprocess for the hardening benches (crash, lock wait, uploads).

Why a subprocess and the real CLI: the figures are about what a deployed service does when it
is killed, blocked or fed hostile input, so the bench must drive the same entry point, and a
`kill -9` must hit a separate process. `Server.start()` waits for `/healthz` (the port is open),
`ready()` for `/readyz`; `kill()` is SIGKILL, `stop()` SIGTERM then SIGKILL.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import httpx

__all__ = ["KEY", "Server", "free_port", "prose_files"]

ROOT = Path(__file__).resolve().parents[1]
KEY = "bench-hardening-key-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def prose_files(tag: str, n: int, facts: int = 60) -> list[tuple[str, tuple[str, bytes]]]:
    """`n` small distinct text files (multipart fields), each ~`facts` sentences."""
    out = []
    for i in range(n):
        text = " ".join(
            f"Fact {j} of {tag} file {i}: marker{tag}{i}x{j} holds." for j in range(facts)
        )
        out.append(("files", (f"{tag}-{i}.txt", text.encode())))
    return out


class Server:
    """`crag serve` on a free loopback port over `data_dir`, with one API key."""

    def __init__(self, data_dir: Path, collection: str, log: Path, **env: str) -> None:
        self.data_dir, self.collection, self.log_path = data_dir, collection, log
        self.extra_env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""
        self._log: IO[str] | None = None

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)]),
            "CRAG_DATA_DIR": str(self.data_dir),
            "CRAG_COLLECTION": self.collection,
            "CRAG_API_KEYS": KEY,
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            **self.extra_env,
        }

    def start(self, timeout: float = 300) -> Server:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self._log = self.log_path.open("a")
        cmd = [sys.executable, "-m", "crag.cli", "serve", "--port", str(port)]
        self.proc = subprocess.Popen(
            [*cmd, "--log-level", "warning"],
            env=self.env(),
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"crag serve exited: {self.log_path.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/healthz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.kill()
        raise RuntimeError("crag serve did not open its port")

    def client(self, timeout: float = 60) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"X-API-Key": KEY}, timeout=timeout)

    def readyz(self) -> tuple[int, dict[str, Any]]:
        r = httpx.get(self.url + "/readyz", headers={"X-API-Key": KEY}, timeout=10)
        return r.status_code, r.json()

    def ready(self, timeout: float = 300) -> list[tuple[float, int, dict[str, Any]]]:
        """Poll `/readyz` until 200; every answer seen, with seconds since the call."""
        seen, t0 = [], time.monotonic()
        while time.monotonic() - t0 < timeout:
            try:
                code, body = self.readyz()
            except httpx.HTTPError:
                time.sleep(0.05)
                continue
            seen.append((time.monotonic() - t0, code, body))
            if code == 200:
                return seen
            time.sleep(0.05)
        raise RuntimeError(f"/readyz not ready after {timeout} s: {seen[-1:]}")

    def kill(self) -> None:
        """`kill -9`: no shutdown code runs."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(30)
        self._close_log()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

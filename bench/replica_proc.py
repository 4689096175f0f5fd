"""One `crag serve` replica as a real process (what `bench.replicas` starts, kills and
restarts): its own data folder and spool, the shared PostgreSQL from the environment."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from tests.servers.chroma import free_port

__all__ = ["COLLECTION", "Replica"]

ROOT = Path(__file__).resolve().parents[1]
COLLECTION = "replicas"


class Replica:
    def __init__(self, name: str, data_dir: Path, url: str, schema: str) -> None:
        self.name = name
        self.data_dir = data_dir
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.client = httpx.Client(base_url=self.base, timeout=120)
        self.proc: subprocess.Popen[bytes] | None = None
        self.ready = False
        self.env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)]),
            "CRAG_DATA_DIR": str(data_dir),
            "CRAG_COLLECTION": COLLECTION,
            "CRAG_INDEX__URL": url,
            "CRAG_INDEX__DB_SCHEMA": schema,
            "CRAG_SERVER__WARMUP": "false",
            "CRAG_INGEST__BATCH_CHUNKS": "32",  # commit often, so a kill lands mid-job
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
        }

    def running_dir(self, replica_id: str) -> Path:
        """Where a `PgJobRunner` of this data folder spools the job it runs."""
        return self.data_dir / "uploads" / COLLECTION / f"running-{replica_id}"

    def up(self) -> bool:
        """Running and answering: a replica being started again is not up until /healthz
        answers (run 3 counted its refused connections as unsearchable markers)."""
        return self.ready and self.proc is not None and self.proc.poll() is None

    def start(self, timeout: float = 300) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = (self.data_dir / "server.log").open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "crag.cli", "serve", "--port", str(self.port)],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = (self.data_dir / "server.log").read_text(errors="replace")[-2000:]
                raise SystemExit(f"replica {self.name} exited:\n{tail}")
            try:
                if self.client.get("/healthz").status_code == 200:
                    self.ready = True
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise SystemExit(f"replica {self.name} did not answer within {timeout:.0f} s")

    def kill(self) -> None:
        """`kill -9`: no shutdown code runs, connections drop, files stay where they were."""
        self.ready = False
        if self.proc is not None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.up():
            assert self.proc is not None
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.client.close()

"""An upload while `crag ingest` writes the same collection (issue 21, F5).

    python -m bench.lock_wait [--cli-files 40] [--upload-files 4]

A real `crag serve` and a real `crag ingest` CLI process on one data directory and collection.
The CLI ingests `--cli-files` text files (it holds the collection's writer lock for the whole
run); as soon as it holds the lock (seen in /proc/locks), `--upload-files` files are uploaded
to the server.
Before issue 21 that job failed at once with "another crag process is writing…" after the
client had its 202. Now the job must wait (its status says it is waiting for the writer lock)
and complete after the CLI exits. Reported: the CLI's run, when the upload was accepted, what
the job said while it waited, when it ended relative to the CLI's exit, and the documents
listed at the end (CLI's + upload's). Writes bench/results/lock_wait.json.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import console, machine_info, write_results
from bench.serve import Server, prose_files

COLLECTION = "lock"


def holds_lock(pid: int, path: Path) -> bool:
    """`pid` holds a flock on `path` (read from /proc/locks: no lock is taken to find out)."""
    try:
        inode = path.stat().st_ino
        locks = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return False
    for line in locks:
        parts = line.split()  # "1: FLOCK ADVISORY WRITE <pid> <major>:<minor>:<inode> 0 EOF"
        held = len(parts) > 5 and parts[1] == "FLOCK" and parts[4] == str(pid)
        if held and parts[5].rsplit(":", 1)[-1] == str(inode):
            return True
    return False


def run(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="crag-bench-lock-"))
    data, docs = tmp / "data", tmp / "docs"
    docs.mkdir()
    for _, (name, body) in prose_files("cli", args.cli_files, facts=200):
        (docs / name).write_bytes(body)
    server = Server(data, COLLECTION, tmp / "server.log", CRAG_SERVER__WARMUP="false")
    server.start()
    server.ready()
    out: dict[str, Any] = {"cli_files": args.cli_files, "upload_files": args.upload_files}
    try:
        t0 = time.monotonic()
        cli = subprocess.Popen(
            [sys.executable, "-m", "crag.cli", "ingest", str(docs), "--collection", COLLECTION],
            env=server.env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        lock = data / "collections" / COLLECTION / "write.lock"
        while not holds_lock(cli.pid, lock) and cli.poll() is None:
            time.sleep(0.02)
        out["cli_has_lock_s"] = round(time.monotonic() - t0, 1)
        with server.client() as http:
            r = http.post("/v1/documents", files=prose_files("upload", args.upload_files))
            out["upload_status"] = r.status_code
            out["upload_accepted_s"] = round(time.monotonic() - t0, 1)
            job_id = r.json()["id"]
            notes: set[str] = set()
            cli_exit = None
            while True:
                job = http.get(f"/v1/documents/jobs/{job_id}").json()
                if job["state"] in ("queued", "running") and job.get("error"):
                    notes.add(f"{job['state']}: {job['error']}")
                if cli_exit is None and cli.poll() is not None:
                    cli_exit = time.monotonic() - t0
                if job["state"] in ("done", "failed"):
                    break
                time.sleep(0.1)
            ended = time.monotonic() - t0
            cli.wait(600)
            cli_exit = cli_exit if cli_exit is not None else time.monotonic() - t0
            listed = http.get("/v1/documents", params={"limit": 1000}).json()
        out |= {
            "cli_exit_code": cli.returncode,
            "cli_stderr_tail": (cli.stderr.read().decode(errors="replace") if cli.stderr else "")[
                -300:
            ],
            "cli_exit_s": round(cli_exit, 1),
            "job_state": job["state"],
            "job_error": job.get("error", ""),
            "job_added": len((job.get("result") or {}).get("added", [])),
            "job_ended_s": round(ended, 1),
            "job_ended_after_cli": ended >= cli_exit,
            "job_said_while_waiting": sorted(notes),
            "documents_listed": listed.get("total"),
        }
    finally:
        server.stop()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cli-files", type=int, default=12)
    parser.add_argument("--upload-files", type=int, default=4)
    args = parser.parse_args(argv)
    load = os.getloadavg()
    result = run(args)
    for key, value in result.items():
        console.print(f"{key}: {value}")
    ok = (
        result["job_state"] == "done"
        and result["job_added"] == args.upload_files
        and result["documents_listed"] == args.cli_files + args.upload_files
    )
    console.print("upload completed after the lock was released" if ok else "[red]FAILED[/]")
    result["machine"] = machine_info() | {"loadavg_before": load}
    console.print(f"written to {write_results('lock_wait', result)}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

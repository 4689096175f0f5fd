"""Large and hostile uploads to a real `crag serve` (issue 21, F1/F2).

    python -m bench.big_upload [--mb 20] [--full-mb 0.5]

1. A two-member gzip bomb (a small first member, then one that inflates past ingest.max_file_mb):
   the upload check used to inflate the first member only. Target: 413 at the door.
2. `--mb` MB of prose and of one line of words (bench.chunking's seeded shapes), each uploaded:
   the time from the 202 until the job has read and chunked the file (its progress shows the
   file done and the chunks planned), then the job is cancelled with DELETE (embedding ~50k
   chunks takes hours on 2 busy cores, and costs the same per chunk whatever the shape; the
   chunk counts are reported). Before issue 21 one line of 20 MB never got through chunking.
3. `--full-mb` MB of each shape ingested to the end (embedding included): the whole job.

Times are wall seconds and the server process's CPU seconds (utime + stime from /proc), since
the machine is shared. Target: one line within 3x the time of prose. Writes
bench/results/big_upload.json.
"""

from __future__ import annotations

import argparse
import gzip
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.chunking import shapes
from bench.common import console, machine_info, print_table, write_results
from bench.serve import Server

SHAPES = ("prose", "one line of words")


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bomb(inflated_mb: int) -> bytes:
    """Two gzip members: a sentence, then `inflated_mb` MB of one repeated line."""
    first = gzip.compress(b"A harmless first member about bees.\n")
    block = b"bomb " * 200_000  # 1 MB
    return first + gzip.compress(block * inflated_mb, compresslevel=9)


def upload(http: httpx.Client, name: str, data: bytes) -> httpx.Response:
    return http.post("/v1/documents", files={"files": (name, data)}, timeout=600)


def chunk_phase(server: Server, http: httpx.Client, name: str, text: str) -> dict[str, Any]:
    """Upload, time until the file is chunked, then cancel the job."""
    pid = server.proc.pid if server.proc else 0
    t0, c0 = time.monotonic(), cpu_s(pid)
    r = upload(http, name, text.encode())
    accepted = time.monotonic() - t0
    if r.status_code != 202:
        return {"status": r.status_code, "detail": r.text[:300]}
    location = r.headers["location"]
    while True:
        job = http.get(location).json()
        if job["progress"]["files_done"] >= 1 or job["state"] in ("done", "failed"):
            break
        time.sleep(0.1)
    chunked, cpu = time.monotonic() - t0, cpu_s(pid) - c0
    t1 = time.monotonic()
    http.delete(location)
    while (job := http.get(location).json())["state"] not in ("done", "failed"):
        time.sleep(0.2)
    return {
        "status": r.status_code,
        "accepted_s": round(accepted, 2),
        "chunked_s": round(chunked, 2),
        "chunked_server_cpu_s": round(cpu, 2),
        "chunks": job["progress"]["chunks_total"],
        "cancel_s": round(time.monotonic() - t1, 1),
        "ended": f"{job['state']}: {job.get('error', '')}"[:160],
    }


def full_job(http: httpx.Client, server: Server, name: str, text: str) -> dict[str, Any]:
    pid = server.proc.pid if server.proc else 0
    t0, c0 = time.monotonic(), cpu_s(pid)
    r = upload(http, name, text.encode())
    location = r.headers["location"]
    while (job := http.get(location).json())["state"] not in ("done", "failed"):
        time.sleep(0.2)
    return {
        "state": job["state"],
        "job_s": round(time.monotonic() - t0, 1),
        "server_cpu_s": round(cpu_s(pid) - c0, 1),
        "chunks": job["progress"]["chunks_total"],
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="crag-bench-upload-"))
    server = Server(tmp / "data", "uploads", tmp / "server.log", CRAG_SERVER__WARMUP="false")
    server.start()
    server.ready()
    out: dict[str, Any] = {"mb": args.mb, "full_mb": args.full_mb}
    try:
        with server.client(timeout=600) as http:
            data = bomb(args.bomb_mb)
            t0 = time.monotonic()
            r = upload(http, "bomb.txt.gz", data)
            out["bomb"] = {
                "compressed_kb": round(len(data) / 1e3, 1),
                "inflates_mb": args.bomb_mb,
                "status": r.status_code,
                "seconds": round(time.monotonic() - t0, 2),
                "detail": r.json().get("detail", "") if r.status_code >= 400 else "",
            }
            console.print(f"gzip bomb: {out['bomb']}")
            # the embedder loads on the first job (server.warmup off): not in the timed ones
            warm = full_job(http, server, "warm-up.txt", "Bees dance to show where flowers are.")
            console.print(f"warm-up job (loads the embedder): {warm}")
            big = shapes(int(args.mb * 1e6))
            out["chunking"] = {}
            for shape in SHAPES:
                name = shape.replace(" ", "-") + ".txt"
                out["chunking"][shape] = chunk_phase(server, http, name, big[shape])
                console.print(f"{args.mb:g} MB {shape}: {out['chunking'][shape]}")
            del big
            small = shapes(int(args.full_mb * 1e6), seed=2)
            out["full"] = {}
            for shape in SHAPES:
                name = "full-" + shape.replace(" ", "-") + ".txt"
                out["full"][shape] = full_job(http, server, name, small[shape])
                console.print(f"{args.full_mb:g} MB {shape}, whole job: {out['full'][shape]}")
    finally:
        server.stop()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--full-mb", type=float, default=0.5)
    parser.add_argument("--bomb-mb", type=int, default=250, help="what the bomb inflates to")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    result = run(args)
    rows = []
    c, f = result["chunking"], result["full"]
    for shape in SHAPES:
        rows.append(
            [shape, c[shape].get("chunks"), c[shape].get("chunked_s"),
             c[shape].get("chunked_server_cpu_s"), f[shape]["chunks"], f[shape]["job_s"],
             f[shape]["server_cpu_s"]]
        )  # fmt: skip
    ratio = c["one line of words"]["chunked_server_cpu_s"] / max(
        c["prose"]["chunked_server_cpu_s"], 1e-9
    )
    print_table(
        "Uploads by shape (crag serve)",
        ["shape", f"chunks ({args.mb:g} MB)", "to chunked s", "server CPU s",
         f"chunks ({args.full_mb:g} MB)", "whole job s", "server CPU s"],
        rows,
        caption=f"one line / prose, server CPU to chunked: x{ratio:.2f}",
    )  # fmt: skip
    result["machine"] = machine_info() | {"loadavg_before": load}
    console.print(f"written to {write_results('big_upload', result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

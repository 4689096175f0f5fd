"""Load benchmark for `crag serve`: N concurrent clients on loopback for a bounded time.

    python -m bench.load [--clients 4] [--seconds 120] [--mode crag] [--no-ingest-phase]
                         [--uploaders 2]

A real `crag serve` subprocess (packaged models, API key on) over the sample corpus, uploaded
through the API. Two phases, each `--seconds` long:

1. `queries`: N clients ask questions (in- and out-of-corpus) back to back. A client answered
   503 waits the Retry-After it was given, as a well-behaved client does.
2. `queries+ingest`: the same, while an ingestion job embeds the SQuAD dev subset (553
   paragraphs, uploaded at the phase start).

With `--uploaders N`, N more clients upload small text files through the API during every
phase, each following its job to the end before the next upload (bench/load_uploads.py): the
issue 21 acceptance run is `--clients 3 --uploaders 2 --no-ingest-phase`. A 503 without a
Retry-After header counts as another 5xx.

Clients stop starting requests at the deadline; requests in flight finish and count. Reported
per phase: requests, 200s, 503s, other errors (the target is zero 5xx besides the documented
503), throughput, p50/p95 latency of answered questions (queueing included) and the p50 of
their own pipeline time (from the trace: queueing excluded), p95/max of `/healthz` polled every
0.5 s meanwhile (is the event loop free while the models compute?), and the server's resident
memory (VmRSS of the process, which holds the models: llama.cpp runs in-process). The table is
printed and the JSON written to bench/results/.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.common import console, machine_info, percentile, print_table, write_results
from bench.load_uploads import Uploads
from crag.modes import Mode
from crag.server.schemas import AskResponse

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "sample"
DATASETS = ROOT.parent / "shared" / "datasets"  # /work/shared/datasets from a worktree
KEY = "bench-load-key-0123456789"
QUESTIONS = [
    "How do honey bees tell their nest mates where flowers are?",
    "Who patented the telephone?",
    "When did Apollo 11 land on the Moon?",
    "Who discovered penicillin?",
    "How tall was the Lighthouse of Alexandria?",
    "Where does the Rhine rise?",
    "What is the boiling point of tungsten?",  # not in the corpus: a refusal
    "Who won the 1998 FIFA World Cup?",  # not in the corpus
]


@dataclass
class Phase:
    name: str
    results: list[tuple[float, float, int, float | None]] = field(default_factory=list)
    # (start, seconds, status, the answer's own trace.total_ms / 1000: time not spent queued)
    health: list[float] = field(default_factory=list)
    health_failures: int = 0
    rss_mb: list[float] = field(default_factory=list)
    started: float = 0.0
    ended: float = 0.0
    ingest: dict[str, Any] | None = None
    uploads: dict[str, Any] | None = None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _client(base: str, mode: str, deadline: float, offset: int, phase: Phase) -> None:
    with httpx.Client(base_url=base, headers={"X-API-Key": KEY}, timeout=900) as http:
        i = offset
        while time.time() < deadline:
            question = QUESTIONS[i % len(QUESTIONS)]
            i += 1
            started = time.time()
            service = None
            try:
                r = http.post("/v1/ask", json={"question": question, "mode": mode})
                status = r.status_code
                if status == 200:
                    trace = AskResponse.model_validate(r.json()).trace
                    service = trace.total_ms / 1000 if trace else None
            except httpx.HTTPError:
                status = -1
            phase.results.append((started, time.time() - started, status, service))
            if status == 503 and "retry-after" not in r.headers:
                status = 599  # a 503 without Retry-After is not the documented busy answer
            if status == 503:
                wait = float(r.headers.get("retry-after", "1"))
                time.sleep(max(0.0, min(wait, deadline - time.time())))


def _watch(base: str, pid: int, stop: threading.Event, phase: Phase) -> None:
    with httpx.Client(base_url=base, timeout=30) as http:
        while not stop.is_set():
            t = time.perf_counter()
            try:
                ok = http.get("/healthz").status_code == 200
            except httpx.HTTPError:
                ok = False
            if ok:
                phase.health.append((time.perf_counter() - t) * 1000)
            else:
                phase.health_failures += 1
            rss = _rss_mb(pid)
            if rss is not None:
                phase.rss_mb.append(rss)
            stop.wait(0.5)


def _wait_job(http: httpx.Client, location: str, timeout: float) -> dict[str, Any]:
    deadline = time.time() + timeout
    while time.time() < deadline:
        job = http.get(location).json()
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(0.5)
    return http.get(location).json()


def run_phase(
    name: str, base: str, pid: int, args: argparse.Namespace, ingest_file: Path | None
) -> Phase:
    phase = Phase(name)
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, args=(base, pid, stop, phase), daemon=True)
    watcher.start()
    http = httpx.Client(base_url=base, headers={"X-API-Key": KEY}, timeout=120)
    location = None
    phase.started = time.time()
    if ingest_file is not None:
        sent = http.post(
            "/v1/documents", files={"files": (ingest_file.name, ingest_file.read_bytes())}
        )
        sent.raise_for_status()
        location = sent.headers["location"]
    deadline = phase.started + args.seconds
    clients = [
        threading.Thread(target=_client, args=(base, args.mode, deadline, i, phase))
        for i in range(args.clients)
    ]
    uploads = Uploads(base, KEY)
    clients += [
        threading.Thread(target=uploads.run, args=(i, deadline)) for i in range(args.uploaders)
    ]
    for c in clients:
        c.start()
    for c in clients:
        c.join()
    phase.ended = time.time()
    if args.uploaders:
        uploads.settle(wait_s=600)
        phase.uploads = uploads.summary()
    if location is not None:
        job = _wait_job(http, location, timeout=900)
        started, finished = job.get("started") or 0, job.get("finished") or 0
        phase.ingest = {
            "file": ingest_file.name if ingest_file else None,
            "state": job["state"],
            "chunks": job["progress"]["chunks_done"],
            "seconds": round(finished - started, 1) if finished else None,
            "finished_within_phase": bool(finished and finished <= phase.ended),
        }
    stop.set()
    watcher.join()
    http.close()
    return phase


def summarise(phase: Phase, clients: int) -> dict[str, Any]:
    statuses = [s for _, _, s, _ in phase.results]
    ok = [lat for _, lat, s, _ in phase.results if s == 200]
    service = [sv for _, _, s, sv in phase.results if s == 200 and sv is not None]
    span = max(phase.ended - phase.started, 1e-9)
    return {
        "phase": phase.name,
        "clients": clients,
        "seconds": round(span, 1),
        "requests": len(statuses),
        "ok": len(ok),
        "busy_503": statuses.count(503),
        "errors_5xx_other": sum(1 for s in statuses if s >= 500 and s != 503),
        "errors_other": sum(1 for s in statuses if s != 200 and s < 500),
        "answers_per_min": round(len(ok) / span * 60, 2),
        "latency_p50_s": round(percentile(ok, 50), 1),
        "latency_p95_s": round(percentile(ok, 95), 1),
        "service_p50_s": round(percentile(service, 50), 1),
        "healthz_p95_ms": round(percentile(phase.health, 95), 1),
        "healthz_max_ms": round(max(phase.health, default=float("nan")), 1),
        "healthz_failures": phase.health_failures,
        "rss_mb_max": round(max(phase.rss_mb, default=float("nan"))),
        "ingest": phase.ingest,
        "uploads": phase.uploads,
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--clients", type=int, default=4)
    p.add_argument("--seconds", type=float, default=120, help="length of each phase")
    p.add_argument("--mode", choices=[Mode.CRAG.value, Mode.RAG.value], default=Mode.CRAG.value)
    p.add_argument("--max-concurrent", type=int, default=1, help="server.max_concurrent")
    p.add_argument("--max-queue", type=int, default=8, help="server.max_queue")
    p.add_argument("--queue-timeout", type=float, default=120, help="server.queue_timeout_s")
    p.add_argument("--datasets", type=Path, default=DATASETS)
    p.add_argument("--models-dir", type=Path, default=ROOT / ".crag" / "models")
    p.add_argument("--no-ingest-phase", action="store_true")
    p.add_argument("--uploaders", type=int, default=0, help="clients uploading meanwhile")
    p.add_argument("--out", default=None, help="results JSON (default bench/results/load-*.json)")
    args = p.parse_args(argv)

    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="crag-bench-load-"))
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)]),
        "CRAG_DATA_DIR": str(tmp / "data"),
        "CRAG_COLLECTION": "load",
        "CRAG_API_KEYS": KEY,
        "CRAG_LLM__MODELS_DIR": str(args.models_dir),
        "CRAG_SERVER__MAX_CONCURRENT": str(args.max_concurrent),
        "CRAG_SERVER__MAX_QUEUE": str(args.max_queue),
        "CRAG_SERVER__QUEUE_TIMEOUT_S": str(args.queue_timeout),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    load_before = os.getloadavg()
    log_path = tmp / "server.log"
    log = log_path.open("w")
    started = time.time()
    proc = subprocess.Popen(
        [sys.executable, "-m", "crag.cli", "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        http = httpx.Client(base_url=base, headers={"X-API-Key": KEY}, timeout=120)
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"crag serve exited: {log_path.read_text()[-2000:]}")
            try:
                if http.get("/readyz").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        cold_start = time.time() - started
        rss_idle = _rss_mb(proc.pid)
        console.print(f"server ready in {cold_start:.1f} s (models loaded), RSS {rss_idle:.0f} MB")
        files = [("files", (f.name, f.read_bytes())) for f in sorted(SAMPLE.iterdir())]
        sent = http.post("/v1/documents", files=files)
        sent.raise_for_status()
        job = _wait_job(http, sent.headers["location"], timeout=600)
        console.print(f"sample corpus ingested: {job['state']}, {job['progress']}")
        http.post("/v1/ask", json={"question": "warm up", "mode": args.mode}, timeout=900)

        phases = [run_phase("queries", base, proc.pid, args, None)]
        if not args.no_ingest_phase:
            squad = args.datasets / "squad-en-dev-subset.json"
            phases.append(run_phase("queries+ingest", base, proc.pid, args, squad))
        rows = [summarise(ph, args.clients) for ph in phases]
        load_after = os.getloadavg()
        server_log = log_path.read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)

    print_table(
        f"crag serve under load: {args.clients} clients, mode {args.mode}, "
        f"{args.seconds:g} s a phase, max_concurrent {args.max_concurrent}, "
        f"max_queue {args.max_queue}",
        ["phase", "requests", "200", "503", "other 5xx", "answers/min", "p50 s", "p95 s",
         "service p50 s", "healthz p95/max ms", "RSS max MB"],
        [
            [r["phase"], r["requests"], r["ok"], r["busy_503"], r["errors_5xx_other"],
             r["answers_per_min"], r["latency_p50_s"], r["latency_p95_s"], r["service_p50_s"],
             f"{r['healthz_p95_ms']} / {r['healthz_max_ms']}", r["rss_mb_max"]]
            for r in rows
        ],
        caption=(
            f"cold start {cold_start:.1f} s; idle RSS {rss_idle:.0f} MB; load average "
            f"{load_before[0]:.1f} before, {load_after[0]:.1f} after ({os.cpu_count()} CPUs)"
        ),
    )  # fmt: skip
    for r in rows:
        if r["ingest"]:
            console.print(f"ingestion during {r['phase']}: {r['ingest']}")
        if r["uploads"]:
            console.print(f"uploads during {r['phase']}: {r['uploads']}")
    result = {
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "cold_start_s": round(cold_start, 1),
        "loadavg_before": load_before,
        "loadavg_after": load_after,
        "rss_idle_mb": rss_idle,
        "phases": rows,
        "raw": {ph.name: ph.results for ph in phases},
        "server_log_tracebacks": server_log.count("Traceback"),
        "machine": machine_info(),
    }
    out = write_results(args.out or f"load-{time.strftime('%Y%m%d-%H%M%S')}", result)
    console.print(f"wrote {out}")


if __name__ == "__main__":
    main()

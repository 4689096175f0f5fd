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
import time
from pathlib import Path

import httpx

from bench.common import console, machine_info, print_table, write_results
from bench.load_clients import KEY, rss_mb, run_phase, summarise, wait_job
from crag.modes import Mode

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "sample"
DATASETS = ROOT.parent / "shared" / "datasets"  # /work/shared/datasets from a worktree


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
        rss_idle = rss_mb(proc.pid)
        console.print(f"server ready in {cold_start:.1f} s (models loaded), RSS {rss_idle:.0f} MB")
        files = [("files", (f.name, f.read_bytes())) for f in sorted(SAMPLE.iterdir())]
        sent = http.post("/v1/documents", files=files)
        sent.raise_for_status()
        job = wait_job(http, sent.headers["location"], timeout=600)
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

"""One phase of the load bench (`bench.load`): the clients asking questions back to back, the
watcher polling `/healthz` and the server's memory meanwhile, and the phase's figures. Apart
from the server's set-up in bench/load.py, so the workload reads on its own."""

from __future__ import annotations

import argparse
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.common import percentile
from bench.load_uploads import Uploads
from crag.server.schemas import AskResponse

__all__ = ["KEY", "QUESTIONS", "Phase", "rss_mb", "run_phase", "summarise", "wait_job"]

KEY = "bench-load-key-0123456789"  # the server is started with it (bench.load); clients send it
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


def rss_mb(pid: int) -> float | None:
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
            rss = rss_mb(pid)
            if rss is not None:
                phase.rss_mb.append(rss)
            stop.wait(0.5)


def wait_job(http: httpx.Client, location: str, timeout: float) -> dict[str, Any]:
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
        job = wait_job(http, location, timeout=900)
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

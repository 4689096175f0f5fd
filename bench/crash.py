"""`kill -9` of a real `crag serve` at five points of multi-file jobs (issue 21, F5/F6).

    python -m bench.crash [--files 8] [--out crash]

One data directory, one `crag serve` after another (embedder only: `server.warmup` off, small
embedding batches so a kill lands between writes). Each run starts the server, maybe uploads a
job of `--files` text files (202 = accepted), and `kill -9`s it at its point:

1. right after the 202 (the job persisted, not started);
2. inside the resumed job, while a file is being written (after the first);
3. a second job accepted while the first runs, killed inside a write after 5 files;
4. a third job accepted, killed inside a write after 11 files (two jobs unfinished);
5. during start-up, before `/readyz` said ready (recovery and repair interrupted).

"Inside a write": the catalog marks a source `pending` before its vectors are written and
`done` after its chunks and keyword rows; the kill is sent as soon as a pending source is seen,
so the stores may disagree when it lands (what start-up must repair).

After every kill the stores are read offline (catalog chunks, FTS rows, vectors, vectors the
catalog lacks, sources left unfinished, spool files, job records). At every restart `/readyz`
is polled until ready: the detail of its first 200 must show as many vectors as catalog chunks,
and every spool file must belong to a job still to run. A last restart runs every accepted
job to its end; then, the server stopped, the stores must agree with no orphan vector or spool
file, and every accepted job must be `done` with all its files listed. Targets: 0 lost, 0
orphans, ready only when the stores agree.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import console, machine_info, print_table, write_results
from bench.serve import Server, prose_files

COLLECTION = "crash"
# (name, upload a job first?, done sources to wait for (None: kill at once), then kill only
# while a source is being written: marked pending, vectors and catalog not yet in step)
POINTS: list[tuple[str, bool, int | None, bool]] = [
    ("right after the 202", True, None, False),
    ("resumed job, inside a write after file 1", False, 1, True),
    ("2nd job accepted, inside a write after file 5", True, 5, True),
    ("3rd job accepted, inside a write after file 11", True, 11, True),
    ("during start-up, before ready", False, None, False),
]


def _count(data: Path, state: str) -> int:
    db = data / "collections" / COLLECTION / "catalog.sqlite3"
    if not db.exists():
        return 0
    con = sqlite3.connect(str(db), timeout=5)
    try:
        sql = "SELECT count(*) FROM sources WHERE state=?"
        return int(con.execute(sql, (state,)).fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def done_sources(data: Path) -> int:
    return _count(data, "done")


def job_records(data: Path) -> list[dict[str, Any]]:
    folder = data / "jobs" / COLLECTION
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def spool(data: Path) -> set[str]:
    folder = data / "uploads" / COLLECTION
    return {str(p.resolve()) for p in folder.iterdir()} if folder.is_dir() else set()


def orphan_spool(data: Path) -> int:
    """Spool files no unfinished job needs."""
    needed = {
        str(Path(u["path"]).resolve())
        for j in job_records(data)
        if j["state"] in ("queued", "running")
        for u in j.get("uploads", [])
    }
    return len(spool(data) - needed)


def stores(data: Path) -> dict[str, int]:
    """The collection read offline (no server running)."""
    from crag.config import load_settings
    from crag.index.store import Index

    index = Index.open(load_settings(data_dir=data, collection=COLLECTION))
    try:
        catalog, vectors = index.catalog.all_chunk_ids(), index.vectors.all_ids()
        return {
            "chunks": len(catalog),
            "fts_rows": index.catalog.keyword_count(),
            "vectors": len(vectors),
            "orphan_vectors": len(vectors - catalog),
            "missing_vectors": len(catalog - vectors),
            "unfinished_sources": len(index.catalog.unfinished()),
            "done_sources": done_sources(data),
            "agree": int(index.stores_agree()),
        }
    finally:
        index.close()


def kill_run(
    server: Server, point: tuple[str, bool, int | None, bool], tag: str, n: int
) -> tuple[str | None, bool]:
    """Run one point against a started server: (the accepted job id, if one; whether a
    source was pending when the kill was sent)."""
    _, upload, wait_for, in_write = point
    accepted = None
    if upload:
        with server.client() as http:
            r = http.post("/v1/documents", files=prose_files(tag, n))
        if r.status_code != 202:
            raise RuntimeError(f"upload refused: {r.status_code} {r.text}")
        accepted = r.json()["id"]
    pending = False
    if wait_for is not None:
        deadline = time.monotonic() + 600
        while done_sources(server.data_dir) < wait_for and time.monotonic() < deadline:
            time.sleep(0.01)
        while in_write and time.monotonic() < deadline:
            if _count(server.data_dir, "pending"):
                pending = True
                break
            time.sleep(0.002)
    server.kill()
    return accepted, pending


def restart(server: Server) -> dict[str, Any]:
    """Start, poll `/readyz` to its first 200, and check what it and the spool say then."""
    started = time.monotonic()
    server.start()
    seen = server.ready()
    _, _, body = seen[-1]
    index = body.get("index", {})
    return {
        "ready_s": round(time.monotonic() - started, 1),
        "not_ready_answers": sum(1 for _, code, _ in seen if code != 200),
        "check": index.get("check"),
        "chunks_at_ready": index.get("chunks"),
        "vectors_at_ready": index.get("vectors"),
        "agree_at_ready": index.get("chunks") == index.get("vectors"),
        "orphan_spool_at_ready": orphan_spool(server.data_dir),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="crag-bench-crash-"))
    data = tmp / "data"
    env = {"CRAG_SERVER__WARMUP": "false", "CRAG_INGEST__BATCH_CHUNKS": "16"}
    server = Server(data, COLLECTION, tmp / "server.log", **env)
    accepted: list[str] = []
    runs: list[dict[str, Any]] = []
    server.start()
    for i, point in enumerate(POINTS):
        t0 = time.monotonic()
        job, pending = kill_run(server, point, "abcde"[i], args.files)
        if job:
            accepted.append(job)
        row: dict[str, Any] = {"point": point[0], "killed_after_s": round(time.monotonic() - t0, 1)}
        row["source_pending_at_kill"] = pending
        row["after_kill"] = stores(data) | {
            "spool_files": len(spool(data)),
            "orphan_spool": orphan_spool(data),
            "unfinished_jobs": sum(j["state"] in ("queued", "running") for j in job_records(data)),
        }
        if i + 1 < len(POINTS) and POINTS[i + 1][0].startswith("during start-up"):
            server.start()  # the next point kills this start before it is ready
            row["restart"] = {"note": "killed before ready (next run)"}
        elif i + 1 < len(POINTS):
            row["restart"] = restart(server)
        runs.append(row)
        console.print(f"kill {i + 1} ({point[0]}): {row}")
    final = restart(server)
    ended = wait_jobs(server, accepted, timeout=args.timeout)
    with server.client() as http:
        listed = http.get("/v1/documents", params={"limit": 1000}).json()
    server.stop()
    final |= {
        "jobs": ended,
        "documents_listed": listed.get("total"),
        "expected_documents": args.files * len(accepted),
        "after_stop": stores(data) | {"spool_files": len(spool(data))},
    }
    return {"files_per_job": args.files, "accepted": accepted, "runs": runs, "final": final}


def wait_jobs(server: Server, ids: list[str], timeout: float) -> dict[str, str]:
    deadline = time.monotonic() + timeout
    with server.client() as http:
        while True:
            states = {j: http.get(f"/v1/documents/jobs/{j}").json().get("state", "?") for j in ids}
            if all(s in ("done", "failed") for s in states.values()):
                return states
            if time.monotonic() > deadline:
                return states
            time.sleep(0.5)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=8, help="text files per uploaded job")
    parser.add_argument("--timeout", type=float, default=900, help="for the last jobs to end")
    parser.add_argument("--out", default="crash")
    args = parser.parse_args(argv)
    load = __import__("os").getloadavg()
    result = run(args)
    rows = []
    for i, r in enumerate(result["runs"], start=1):
        k, s = r["after_kill"], r.get("restart", {})
        rows.append(
            [i, r["point"], "yes" if r["source_pending_at_kill"] else "",
             f"{k['chunks']}/{k['fts_rows']}/{k['vectors']}", k["orphan_vectors"],
             k["missing_vectors"], k["unfinished_sources"], k["spool_files"], k["orphan_spool"],
             k["unfinished_jobs"], s.get("not_ready_answers", "-"),
             f"{s.get('chunks_at_ready', '-')}/{s.get('vectors_at_ready', '-')}",
             s.get("orphan_spool_at_ready", "-")]
        )  # fmt: skip
    columns = ["kill", "point", "in write", "chunks/fts/vectors", "extra vec", "missing vec",
               "pending src", "spool", "orphan spool", "jobs left", "503s", "at ready c/v",
               "orphan spool at ready"]  # fmt: skip
    print_table("crag serve killed with SIGKILL (stores read offline after a kill)", columns, rows)
    for i, r in enumerate(result["runs"], start=1):
        check = r.get("restart", {}).get("check")
        console.print(f"restart after kill {i}: start-up check {check}")
    f = result["final"]
    lost = sum(s != "done" for s in f["jobs"].values())
    console.print(
        f"final: {len(f['jobs'])} accepted jobs, {lost} not done; documents "
        f"{f['documents_listed']}/{f['expected_documents']}; after stop {f['after_stop']}"
    )
    result["machine"] = machine_info() | {"loadavg_before": load}
    console.print(f"written to {write_results(args.out, result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Uploading clients for bench.load (issue 21: ≥ 3 clients asking, 2 uploading, 0 lost jobs).

Each uploader posts a small text file of its own (distinct content, so every job writes),
follows its job to the end, and uploads the next, until the phase's deadline; a 503 waits the
Retry-After it was given. After the phase every accepted job is followed until it ends: a job
that is not `done` (failed, or still not finished `wait_s` after the phase) is lost. A 503
without a Retry-After header, or any other 5xx, is an error.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.common import percentile

__all__ = ["Uploads"]


@dataclass
class Uploads:
    base: str
    key: str
    # (start, seconds to the 202 or refusal, status, had a Retry-After header)
    posts: list[tuple[float, float, int, bool]] = field(default_factory=list)
    jobs: dict[str, str] = field(default_factory=dict)  # location -> last state seen
    job_seconds: list[float] = field(default_factory=list)  # accepted -> done
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base, headers={"X-API-Key": self.key}, timeout=120)

    def run(self, who: int, deadline: float) -> None:
        """One uploading client until `deadline`."""
        n = 0
        with self.client() as http:
            while time.time() < deadline:
                n += 1
                body = " ".join(
                    f"Upload {who}.{n} sentence {j}: the token u{who}x{n}y{j} is unique here."
                    for j in range(40)
                )
                started = time.time()
                try:
                    r = http.post("/v1/documents", files={"files": (f"up-{who}-{n}.txt", body)})
                    status, retry = r.status_code, "retry-after" in r.headers
                except httpx.HTTPError:
                    status, retry = -1, False
                with self._lock:
                    self.posts.append((started, time.time() - started, status, retry))
                if status == 503:
                    wait = float(r.headers.get("retry-after", "1"))
                    time.sleep(max(0.0, min(wait, deadline - time.time())))
                    continue
                if status != 202:
                    time.sleep(1)
                    continue
                location = r.headers["location"]
                self.jobs[location] = "queued"
                self._follow(http, location, started, deadline)

    def _follow(self, http: httpx.Client, location: str, started: float, until: float) -> None:
        while time.time() < until:
            try:
                state = http.get(location).json()["state"]
            except (httpx.HTTPError, ValueError, KeyError):
                state = "unreadable"
            self.jobs[location] = state
            if state in ("done", "failed"):
                if state == "done":
                    self.job_seconds.append(time.time() - started)
                return
            time.sleep(0.5)

    def settle(self, wait_s: float) -> None:
        """Follow every accepted job still unfinished, at most `wait_s` in all."""
        until = time.time() + wait_s
        with self.client() as http:
            for location, state in list(self.jobs.items()):
                if state not in ("done", "failed"):
                    self._follow(http, location, time.time(), until)

    def summary(self) -> dict[str, Any]:
        statuses = [s for _, _, s, _ in self.posts]
        states = list(self.jobs.values())
        return {
            "uploads": len(statuses),
            "accepted_202": statuses.count(202),
            "busy_503": sum(1 for _, _, s, r in self.posts if s == 503 and r),
            "errors_5xx_other": sum(
                1 for _, _, s, r in self.posts if s >= 500 and not (s == 503 and r)
            ),
            "errors_other": sum(1 for s in statuses if s not in (202, 503) and s < 500),
            "jobs_done": states.count("done"),
            "jobs_lost": sum(1 for s in states if s != "done"),
            "job_states": {s: states.count(s) for s in set(states)},
            "accept_p50_s": round(percentile([t for _, t, s, _ in self.posts if s == 202], 50), 2),
            "job_p50_s": round(percentile(self.job_seconds, 50), 1),
            "job_p95_s": round(percentile(self.job_seconds, 95), 1),
        }
